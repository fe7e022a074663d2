package acquire

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
	"github.com/prism-eval/prism/ui/cli/internal/clitest"
)

// faultServer is an OpenAI-compatible server whose every reply comes from
// reply(n, identity) (n counts requests from 0). With hold set, each
// request first waits until release is closed, and reached closes on the
// first request: tests synchronise on those, never on time.
type faultServer struct {
	*httptest.Server
	reply   func(n int, id string) (status int, h http.Header, body string)
	hold    bool
	reached chan struct{}
	release chan struct{}

	mu   sync.Mutex
	n    int
	seen map[string]int // requests per identity
}

func newFaultServer(t *testing.T, hold bool, reply func(n int, id string) (int, http.Header, string)) *faultServer {
	s := &faultServer{reply: reply, hold: hold, reached: make(chan struct{}), release: make(chan struct{}), seen: map[string]int{}}
	var once sync.Once
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		id := clitest.RequestIdentity(b)
		s.mu.Lock()
		n := s.n
		s.n++
		s.seen[id]++
		s.mu.Unlock()
		if s.hold {
			once.Do(func() { close(s.reached) })
			select {
			case <-s.release:
			case <-r.Context().Done():
				return
			}
		}
		status, h, body := s.reply(n, id)
		for k, v := range h {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(func() {
		select {
		case <-s.release:
		default:
			close(s.release)
		}
		s.Close()
	})
	return s
}

func studyProgress(t *testing.T, ws string) store.Progress {
	t.Helper()
	st, err := store.OpenReadOnly(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	p, err := st.Progress(context.Background(), "tiny", "m", "")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRunStoresOnlyRequestedScores (issue 14 items 1, 2): refusals that
// end in a number and prose are failures; JSON numbers are read as JSON.
func TestRunStoresOnlyRequestedScores(t *testing.T) {
	ws := clitest.TinyWorkspace(t)
	replies := []string{
		"I cannot rate this summary on a scale of 1 to 10.",
		"I must decline to rate this content. (Policy 4)",
		"This summary is fine. I'd give it a 7 because it covers 3 points.",
		`{"score": 1e1}`,
		`{"score": 0.7e1}`,
		`{"score": 7.5}`,
	}
	var mu sync.Mutex
	gave := map[string]string{}
	srv := newFaultServer(t, false, func(n int, id string) (int, http.Header, string) {
		r := replies[n%len(replies)]
		mu.Lock()
		gave[id] = r
		mu.Unlock()
		return 200, nil, clitest.Completion(r)
	})
	code, out, errOut := clitest.RunCmd(clitest.ServerArgs(ws, srv.URL, "--concurrency", "4")...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	want := map[string]int{}
	for _, r := range gave {
		want[r]++
	}
	st, err := store.OpenReadOnly(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rows, err := st.Scores(context.Background(), "tiny", "m", "")
	if err != nil {
		t.Fatal(err)
	}
	got := map[float64]int{}
	for _, r := range rows {
		if !r.Missing {
			got[r.Score]++
		}
	}
	if got[10] != want[`{"score": 1e1}`] || got[7] != want[`{"score": 0.7e1}`] || len(got) != 2 {
		t.Errorf("stored scores %v; want 10 ×%d and 7 ×%d only", got, want[`{"score": 1e1}`], want[`{"score": 0.7e1}`])
	}
	fails, err := st.Failures(context.Background(), "tiny", "m")
	if err != nil {
		t.Fatal(err)
	}
	refusals := want[replies[0]] + want[replies[1]]
	unparseable := want[replies[2]] + want[replies[5]]
	if fails["refusal"] != refusals || fails["unparseable"] != unparseable {
		t.Errorf("failures %v; want refusal %d, unparseable %d", fails, refusals, unparseable)
	}
}

// TestOneRunPerStudyAndItsDataset (items 3, 4): while a run is in
// flight, a second run on the study is refused naming it, and its dataset
// can be neither replaced nor removed; nothing is sent twice.
func TestOneRunPerStudyAndItsDataset(t *testing.T) {
	ws := clitest.TinyWorkspace(t)
	srv := newFaultServer(t, true, func(int, string) (int, http.Header, string) {
		return 200, nil, clitest.Completion(`{"score": 5}`)
	})
	args := clitest.ServerArgs(ws, srv.URL, "--concurrency", "2")
	first := make(chan int)
	go func() {
		code, _, _ := clitest.RunCmd(args...)
		first <- code
	}()
	<-srv.reached // the first run is sending and holds its study

	code, _, errOut := clitest.RunCmd(args...)
	if code == 0 || !strings.Contains(errOut, "being acquired by another prism run") || !strings.Contains(errOut, fmt.Sprintf("pid %d", os.Getpid())) {
		t.Errorf("second run: exit %d, stderr %q", code, errOut)
	}
	// A different study (another judge name) of the same workspace runs.
	if code, _, errOut := clitest.RunCmd("run", "--workspace", ws, "--bank", "quality"); code != 0 {
		t.Errorf("an offline study beside the run: exit %d, %s", code, errOut)
	}
	data := filepath.Join(filepath.Dir(ws), "tiny.jsonl")
	for _, cmd := range [][]string{
		{"data", "import", "jsonl", data, "--name", "tiny", "--replace", "--workspace", ws},
		{"data", "rm", "tiny", "--workspace", ws},
	} {
		code, _, errOut := clitest.RunCmd(cmd...)
		if code == 0 || !strings.Contains(errOut, "stop that run") {
			t.Errorf("prism %s during a run: exit %d, stderr %q", cmd[1], code, errOut)
		}
	}
	close(srv.release)
	if code := <-first; code != 0 {
		t.Fatalf("first run: exit %d", code)
	}
	if p := studyProgress(t, ws); p.Answered != 152 || p.Failures != 0 {
		t.Errorf("study: %+v, want 152 answered", p)
	}
	for id, n := range srv.seen {
		if n != 1 {
			t.Errorf("request %s sent %d times", id[:8], n)
		}
	}
}

// TestRunStopsWhenTheServerCannotAnswer (items 7, 13, 14): a dead server
// trips the circuit breaker, an auth error stops at once; the counts say
// what is stored, and server text reaches the terminal without escapes.
func TestRunStopsWhenTheServerCannotAnswer(t *testing.T) {
	ws := clitest.TinyWorkspace(t)
	dead := httptest.NewServer(http.NotFoundHandler())
	url := dead.URL
	dead.Close() // connection refused from now on
	code, _, errOut := clitest.RunCmd(clitest.ServerArgs(ws, url, "--concurrency", "1")...)
	if code == 0 || !strings.Contains(errOut, "looks down: 12 requests in a row failed") || !strings.Contains(errOut, "0 answers of this run are stored") {
		t.Errorf("dead server: exit %d, stderr %q", code, errOut)
	}
	if p := studyProgress(t, ws); p.Answered != 0 || p.Failures != 12 {
		t.Errorf("dead server: study %+v, want 12 failures, 0 answered", p)
	}

	srv := newFaultServer(t, false, func(int, string) (int, http.Header, string) {
		return 401, nil, `{"error":{"message":"bad key \u001b[2J\u001b[H\u0007 gone","type":"invalid_request_error"}}`
	})
	ws = clitest.TinyWorkspace(t) // a judge name keeps its base URL: a new workspace per server
	code, out, errOut := clitest.RunCmd(clitest.ServerArgs(ws, srv.URL, "--concurrency", "1")...)
	if code == 0 || !strings.Contains(errOut, "auth") || !strings.Contains(errOut, "0 answers of this run are stored") {
		t.Errorf("401: exit %d, stderr %q", code, errOut)
	}
	if strings.ContainsAny(out+errOut, "\x1b\x07") {
		t.Errorf("control characters reached the terminal: %q", errOut)
	}
	if !strings.Contains(out, "stored: 0 answers by this run; the workspace holds answers to 0 of the study's 152 requests") {
		t.Errorf("401 summary:\n%s", out)
	}
	if srv.n != 1 {
		t.Errorf("the server saw %d requests after a 401, want 1", srv.n)
	}

	// A server that accepts requests and never answers: each attempt
	// times out, and the breaker stops the run instead of waiting on.
	hung := newFaultServer(t, true, nil) // never released: every request hangs
	ws = clitest.TinyWorkspace(t)
	code, _, errOut = clitest.RunCmd(clitest.ServerArgs(ws, hung.URL, "--concurrency", "2", "--timeout", "20ms")...)
	if code == 0 || !strings.Contains(errOut, "looks down: 12 requests in a row failed") || !strings.Contains(errOut, "timeout") {
		t.Errorf("hung server: exit %d, stderr %q", code, errOut)
	}

	code, _, errOut = clitest.RunCmd("run", "--workspace", ws, "--bank", "quality", "--backend", "openai", "--model", "m", "--base-url", "notaurl", "--dry-run")
	if code == 0 || !strings.Contains(errOut, "base_url") {
		t.Errorf("--base-url notaurl --dry-run: exit %d, stderr %q", code, errOut)
	}

	tlsSrv := httptest.NewTLSServer(http.NotFoundHandler()) // a certificate nobody trusts
	defer tlsSrv.Close()
	ws = clitest.TinyWorkspace(t)
	code, _, errOut = clitest.RunCmd(clitest.ServerArgs(ws, tlsSrv.URL, "--concurrency", "1", "--retries", "5")...)
	if code == 0 || !strings.Contains(errOut, "tls") {
		t.Errorf("untrusted certificate: exit %d, stderr %q", code, errOut)
	}
}

// TestRunCapsServerWaits (item 6): one Retry-After of 100000 s costs at
// most --max-retry-wait, then the run completes.
func TestRunCapsServerWaits(t *testing.T) {
	ws := clitest.TinyWorkspace(t)
	srv := newFaultServer(t, false, func(n int, _ string) (int, http.Header, string) {
		if n == 0 {
			return 429, http.Header{"Retry-After": {"100000"}}, `{"error":{"message":"slow down"}}`
		}
		return 200, nil, clitest.Completion(`{"score": 4}`)
	})
	code, out, errOut := clitest.RunCmd(clitest.ServerArgs(ws, srv.URL, "--concurrency", "1", "--retries", "1", "--max-retry-wait", "50ms")...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if p := studyProgress(t, ws); p.Answered != 152 {
		t.Errorf("study %+v, want all 152 answered", p)
	}
}

// TestSummaryNeverClaimsUnstoredAnswers (item 13): when the store failed
// mid-run, the summary says how few answers it holds, on the line that
// counts them and in the stored line read back from the workspace.
func TestSummaryNeverClaimsUnstoredAnswers(t *testing.T) {
	var b strings.Builder
	sum := engine.Summary{Progress: engine.Progress{Total: 2280, Done: 2280, Answered: 2280, Stored: 500, Written: 500},
		Study: store.Progress{Requests: 500, Answered: 500}}
	plan := &engine.Plan{Estimate: engine.Estimate{Requests: 2280, PriceModel: "m"}}
	clikit.PrintSummary(&b, plan, sum, 0)
	out := b.String()
	for _, want := range []string{"2280 answered (0 from cache), only 500 of them stored", "stored: 500 answers by this run; the workspace holds answers to 500 of the study's 2280 requests"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
}
