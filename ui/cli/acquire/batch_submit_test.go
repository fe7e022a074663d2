package acquire

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prism-eval/prism/judge/batchapi/batchapitest"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
	"github.com/prism-eval/prism/ui/cli/internal/clitest"
)

// TestBatchSubmitStatusFetch: prism batch submit, status and fetch
// against each provider's fake: the demo's 60 baseline requests go as one
// batch, a second submit sends nothing, status shows the batch in
// progress and what it waits for, fetch stores the answers of a batch
// that expired with 20 requests not run, the 20 stay pending and the
// next submit sends exactly them; the workspace never holds the key.
func TestBatchSubmitStatusFetch(t *testing.T) {
	for _, tc := range []struct {
		backend, model, keyEnv string
		fake                   func() *batchapitest.Fake
	}{
		{"openai", "gpt-4.1-mini", "OPENAI_API_KEY", batchapitest.NewOpenAI},
		{"anthropic", "claude-haiku-4-5", "ANTHROPIC_API_KEY", batchapitest.NewAnthropic},
	} {
		t.Run(tc.backend, func(t *testing.T) {
			f := tc.fake()
			defer f.Close()
			f.ExpireAfter = 40
			t.Setenv(tc.keyEnv, batchapitest.Key)
			ws := filepath.Join(t.TempDir(), "ws.db")
			clitest.MustRun(t, "data", "import", "demo", "--workspace", ws)
			submit := []string{"batch", "submit", "--workspace", ws, "--bank", "quality", "--probes", "baseline",
				"--backend", tc.backend, "--model", tc.model, "--base-url", f.BaseURL(), "--response-format", "none"}
			dry := []string{"run", "--workspace", ws, "--bank", "quality", "--probes", "baseline", "--backend", tc.backend,
				"--model", tc.model, "--response-format", "none", "--dry-run"}
			out, _ := clitest.MustRun(t, submit...)
			if !strings.Contains(out, "submitted batch ") || !strings.Contains(out, "60 requests") || f.Creates() != 1 {
				t.Fatalf("submit: %s", out)
			}
			if out, _ = clitest.MustRun(t, submit...); !strings.Contains(out, "60 request(s) already in a submitted batch") || f.Creates() != 1 {
				t.Fatalf("second submit: %s (creates %d)", out, f.Creates())
			}
			out, _ = clitest.MustRun(t, "batch", "status", "--workspace", ws)
			if !strings.Contains(out, "60 processing; waiting for") {
				t.Fatalf("status: %s", out)
			}
			out, _ = clitest.MustRun(t, "batch", "fetch", "--workspace", ws)
			if !strings.Contains(out, "40 answers, 20 failures") || !strings.Contains(out, "expired") {
				t.Fatalf("fetch: %s", out)
			}
			if out, _ := clitest.MustRun(t, dry...); !strings.Contains(out, "40 answered, 0 from cache, 20 to send") {
				t.Fatalf("after fetch: %s", out)
			}
			var o, e bytes.Buffer
			if code := clikit.RunMain(context.Background(), []string{"batch", "fetch", "--workspace", ws, f.Requests()[0]}, &o, &e); code == 0 {
				// f.Requests()[0] is a custom_id, not a batch: refused by name.
				t.Fatalf("fetch of an unknown batch: exit 0: %s", o.String())
			}
			out, _ = clitest.MustRun(t, "batch", "status", "--workspace", ws)
			if !strings.Contains(out, "no batch in progress") {
				t.Fatalf("status after fetch: %s", out)
			}
			f.ExpireAfter = -1
			if out, _ = clitest.MustRun(t, submit...); !strings.Contains(out, "20 requests") || f.Creates() != 2 || len(f.Requests()) != 80 {
				t.Fatalf("resubmit: %s (creates %d, %d requests sent)", out, f.Creates(), len(f.Requests()))
			}
			clitest.MustRun(t, "batch", "status", "--workspace", ws)
			if out, _ = clitest.MustRun(t, "batch", "fetch", "--workspace", ws); !strings.Contains(out, "20 answers, 0 failures") {
				t.Fatalf("second fetch: %s", out)
			}
			db, err := os.ReadFile(ws)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(db, []byte(batchapitest.Key)) {
				t.Fatal("the workspace holds the API key")
			}
		})
	}
}

// A job whose create call got no answer holds its requests until it is
// forgotten by name; a job the provider has cannot be forgotten.
func TestBatchForget(t *testing.T) {
	ctx := context.Background()
	ws := filepath.Join(t.TempDir(), "ws.db")
	clitest.MustRun(t, "data", "import", "demo", "--workspace", ws)
	st, err := store.Open(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	lost := &store.BatchJob{Provider: "anthropic", Tag: "lost1", Endpoint: "http://127.0.0.1:1", State: store.JobCreating}
	ended := &store.BatchJob{Provider: "openai", Tag: "done1", Endpoint: "http://127.0.0.1:1", State: store.JobCreating}
	for _, j := range []*store.BatchJob{lost, ended} {
		if err := st.PutBatchJob(ctx, j, []string{"k-" + j.Tag}); err != nil {
			t.Fatal(err)
		}
	}
	ended.BatchID, ended.State = "batch_9", store.JobEnded
	if err := st.UpdateBatchJob(ctx, ended); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if code, _, errOut := clitest.RunPrism(t, "batch", "forget", "batch_9", "--workspace", ws); code == 0 || !strings.Contains(errOut, "only a job whose create call got no answer") {
		t.Errorf("forgetting an ended batch: exit %d, %s", code, errOut)
	}
	if code, _, errOut := clitest.RunPrism(t, "batch", "forget", "--workspace", ws); code != 2 || !strings.Contains(errOut, "takes the tags") {
		t.Errorf("forget without a tag: exit %d, %s", code, errOut)
	}
	out, _ := clitest.MustRun(t, "batch", "forget", "lost1", "--workspace", ws)
	if !strings.Contains(out, "job lost1 (anthropic, 1 requests) forgotten") {
		t.Errorf("forget: %s", out)
	}
	st, err = store.Open(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	held, err := st.BatchHeld(ctx)
	if err != nil || held["k-lost1"] != "" || held["k-done1"] != "batch_9" {
		t.Errorf("held after forget: %v, %v", held, err)
	}
}
