package acquire

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
	"github.com/prism-eval/prism/ui/cli/internal/clitest"
)

// Rubric studies with the offline judge on the demo dataset: stored counts
// per criterion, a rerun sends nothing, the scores are exported, and the
// PRISM fit of the quality bank is unchanged by their presence (without
// the baselines' rows, which TestFitRubricBaselines checks).
func TestRunRubricOfflineDemo(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws.db")
	clitest.MustRun(t, "data", "import", "demo", "--workspace", ws)
	clitest.MustRun(t, "run", "--workspace", ws, "--bank", "quality")
	before, _ := clitest.MustRun(t, "fit", "--workspace", ws)

	out, _ := clitest.MustRun(t, "run", "--workspace", ws, "--rubric", "saja-broad", "--dry-run")
	for _, want := range []string{"rubric saja-broad (saja, 8 criteria", "budget per candidate: 1 call(s)", "480 in all", "60 request(s) to send, 60 call(s)"} {
		if !strings.Contains(out, want) {
			t.Fatalf("dry run lacks %q:\n%s", want, out)
		}
	}
	out, _ = clitest.MustRun(t, "run", "--workspace", ws, "--rubric", "saja-broad")
	if !strings.Contains(out, "done: 480 of 480 ratings") || !strings.Contains(out, "accuracy     60      0") {
		t.Fatalf("saja run:\n%s", out)
	}
	out, _ = clitest.MustRun(t, "run", "--workspace", ws, "--rubric", "saja-broad")
	if !strings.Contains(out, "480 answered, 0 from cache; 0 request(s) to send, 0 call(s)") || strings.Contains(out, "done:") {
		t.Fatalf("saja rerun sends:\n%s", out)
	}
	out, _ = clitest.MustRun(t, "run", "--workspace", ws, "--rubric", "geval-summeval", "--samples", "3")
	for _, want := range []string{"budget per candidate: 12 call(s) (4 criteria × 3 sample(s) at temperature 1, top_p 1)", "done: 240 of 240 ratings", "fluency      60      0"} {
		if !strings.Contains(out, want) {
			t.Fatalf("geval run lacks %q:\n%s", want, out)
		}
	}
	out, _ = clitest.MustRun(t, "run", "--workspace", ws, "--rubric", "geval-summeval", "--samples", "3")
	if !strings.Contains(out, "0 request(s) to send") {
		t.Fatalf("geval rerun:\n%s", out)
	}

	st, err := store.Open(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	rows, _, err := st.FitInput(context.Background(), "demo", "offline", "")
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	for _, r := range rows {
		if rb, c, ok := model.SplitRubricProbe(r.Probe); ok && !r.Missing {
			per[rb+"/"+c]++
		}
	}
	if len(per) != 12 || per["saja-broad/overall"] != 60 || per["geval-summeval/coherence"] != 60 {
		t.Errorf("rubric scores in FitInput: %v", per)
	}

	after, _ := clitest.MustRun(t, "fit", "--workspace", ws, "--baselines", "none")
	if after != before {
		t.Errorf("the fit changed with rubric scores present:\n%s\nvs\n%s", before, after)
	}
	csv := filepath.Join(dir, "scores.csv")
	clitest.MustRun(t, "export", "scores", "--workspace", ws, "-o", csv)
	data, err := os.ReadFile(csv)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), ",rubric:"); n != 480+240 {
		t.Errorf("exported %d rubric rows, want 720", n)
	}
}

func TestRunRubricUsageErrors(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "ws.db")
	clitest.MustRun(t, "data", "import", "demo", "--workspace", ws)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--rubric", "saja-broad", "--bank", "quality"}, "not both"},
		{[]string{"--prompts", "x"}, "are for a rubric study"},
		{[]string{"--rubric", "nope"}, "no built-in rubric"},
		{[]string{"--rubric", "saja-broad", "--prompts", t.TempDir()}, "prompt files are for G-Eval"},
	}
	for _, tc := range tests {
		var out, errb bytes.Buffer
		args := append([]string{"run", "--workspace", ws}, tc.args...)
		if code := clikit.RunMain(context.Background(), args, &out, &errb); code == 0 || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %q", tc.args, code, errb.String(), tc.want)
		}
	}
}

// Rubric studies through prism batch: export, a batch engine's answers,
// import; a rerun of prism run --rubric then sends nothing imported, and
// a sampled G-Eval request missing a sample stays pending.
func TestBatchRubricRoundTrip(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws.db")
	clitest.MustRun(t, "data", "import", "demo", "--workspace", ws)
	server := []string{"--workspace", ws, "--backend", "openai", "--model", "gpt-4o-mini"}
	answer := func(in string, content func(i int, id string) string) string {
		data, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var req engine.BatchInput
			if err := json.Unmarshal([]byte(line), &req); err != nil {
				t.Fatal(err)
			}
			c := content(i, req.CustomID)
			if c == "" {
				continue
			}
			cj, _ := json.Marshal(c)
			fmt.Fprintf(&out, `{"id":"b%d","custom_id":%q,"response":{"status_code":200,"request_id":"r","body":{"choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1}}},"error":null}`+"\n", i, req.CustomID, cj)
		}
		f := filepath.Join(dir, "out-"+filepath.Base(in))
		if err := os.WriteFile(f, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}

	saja := filepath.Join(dir, "saja.jsonl")
	_, errOut := clitest.MustRun(t, append([]string{"batch", "export", "--rubric", "saja-broad", "-o", saja}, server...)...)
	if !strings.Contains(errOut, "exported 60 lines") || !strings.Contains(errOut, "60 call(s) for 480 rating(s) of rubric saja-broad") {
		t.Fatalf("export: %s", errOut)
	}
	out := answer(saja, func(i int, _ string) string {
		if i == 0 {
			return `{"accuracy": 4}` // one rated criterion: seven missing cells
		}
		return `{"accuracy": 4, "grounding": 5, "overall": 3, "coherence": 4, "fluency": 5, "engagement": 2, "helpfulness": 3, "safety": 5}`
	})
	got, _ := clitest.MustRun(t, "batch", "import", out, "--workspace", ws)
	if !strings.Contains(got, "imported 60 results") || !strings.Contains(got, "480 answers, 0 failures") || !strings.Contains(got, "7 of the answers are missing cells") {
		t.Fatalf("import: %s", got)
	}
	got, _ = clitest.MustRun(t, append([]string{"run", "--rubric", "saja-broad", "--dry-run"}, server...)...)
	if !strings.Contains(got, "480 answered, 0 from cache; 0 request(s) to send, 0 call(s)") {
		t.Fatalf("after import: %s", got)
	}

	geval := filepath.Join(dir, "geval.jsonl")
	_, errOut = clitest.MustRun(t, append([]string{"batch", "export", "--rubric", "geval-summeval", "--samples", "2", "-o", geval}, server...)...)
	if !strings.Contains(errOut, "exported 480 lines") {
		t.Fatalf("export: %s", errOut)
	}
	out = answer(geval, func(i int, id string) string {
		if i == 1 {
			return "" // the first request's second sample never came back
		}
		return "2"
	})
	got, _ = clitest.MustRun(t, "batch", "import", out, "--workspace", ws)
	if !strings.Contains(got, "239 answers, 1 failures (incomplete 1)") || !strings.Contains(got, "1 sampled G-Eval request(s) did not get all their samples back") {
		t.Fatalf("import: %s", got)
	}
	got, _ = clitest.MustRun(t, append([]string{"run", "--rubric", "geval-summeval", "--samples", "2", "--dry-run"}, server...)...)
	if !strings.Contains(got, "239 answered, 0 from cache; 1 request(s) to send, 2 call(s)") {
		t.Fatalf("after import: %s", got)
	}
	// A G-Eval export with another N is another study: refused under the
	// same judge name, as for prism run.
	if code, _, errOut := clitest.RunPrism(t, append([]string{"batch", "export", "--rubric", "geval-summeval", "--samples", "3", "-o", geval}, server...)...); code == 0 || !strings.Contains(errOut, "another --judge name") {
		t.Errorf("export with another N: %d %s", code, errOut)
	}
}
