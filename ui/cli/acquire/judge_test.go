package acquire

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

func TestJudgeTryOffline(t *testing.T) {
	var out, errb bytes.Buffer
	if code := clikit.RunMain(context.Background(), []string{"judge", "try", "--repeats", "3", "--mode", "expected"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	s := out.String()
	if !strings.Contains(s, "offline (simulator)") || !strings.Contains(s, "baseline") {
		t.Errorf("output does not name the simulator and the baseline:\n%s", s)
	}
	out.Reset()
	if code := clikit.RunMain(context.Background(), []string{"judge", "try", "--all"}, &out, &errb); code != 0 {
		t.Fatalf("--all exit %d: %s", code, errb.String())
	}
	if n := strings.Count(out.String(), ":+"); n < 2 {
		t.Errorf("--all printed %d plus probes:\n%s", n, out.String())
	}
}

func TestJudgeTryUsage(t *testing.T) {
	for _, args := range [][]string{{"judge"}, {"judge", "run"}, {"judge", "try", "--mode", "logits"}, {"judge", "try", "--candidate", "99"}, {"judge", "try", "--backend", "openai"}} {
		var out, errb bytes.Buffer
		if code := clikit.RunMain(context.Background(), args, &out, &errb); code == 0 {
			t.Errorf("%v: exit 0", args)
		}
	}
}

// A try that gets no score fails (exit 1) with its whole reason, and
// its retries say what they wait for (issue 42).
func TestJudgeTryFails(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + ln.Addr().String() + "/v1"
	ln.Close() // nothing listens there now: connections are refused
	var out, errb bytes.Buffer
	args := []string{"judge", "try", "--backend", "openai", "--model", "m", "--base-url", refused,
		"--retries", "2", "--max-retry-wait", "1ms"}
	if code := clikit.RunMain(context.Background(), args, &out, &errb); code != 1 {
		t.Fatalf("refused: exit %d, want 1\n%s%s", code, out.String(), errb.String())
	}
	e := errb.String()
	if !strings.Contains(e, "connect: connection refused after 3 attempts") {
		t.Errorf("the reason is not whole on stderr:\n%s", e)
	}
	if n := strings.Count(e, "connection refused); retrying in 1ms"); n != 2 {
		t.Errorf("%d retry lines naming the failure and the wait, want 2:\n%s", n, e)
	}

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,`+
			`"message":{"role":"assistant","content":"Maybe a 7? It is hard to say without reading the source article in full."},`+
			`"finish_reason":"stop"}],"usage":{"prompt_tokens":60,"completion_tokens":20,"total_tokens":80}}`)
	}))
	defer srv.Close()
	out.Reset()
	errb.Reset()
	args = []string{"judge", "try", "--backend", "openai", "--model", "m", "--base-url", srv.URL + "/v1", "--retries", "0"}
	if code := clikit.RunMain(context.Background(), args, &out, &errb); code != 1 {
		t.Fatalf("unparseable: exit %d, want 1\n%s%s", code, out.String(), errb.String())
	}
	if !strings.Contains(errb.String(), "baseline: judge: unparseable") {
		t.Errorf("stderr does not name the condition and the kind:\n%s", errb.String())
	}
}
