package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
)

// Rubric studies with the offline judge on the demo dataset: stored counts
// per criterion, a rerun sends nothing, the scores are exported, and the
// PRISM fit of the quality bank is unchanged by their presence (without
// the baselines' rows, which TestFitRubricBaselines checks).
func TestRunRubricOfflineDemo(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws.db")
	mustRun(t, "data", "import", "demo", "--workspace", ws)
	mustRun(t, "run", "--workspace", ws, "--bank", "quality")
	before, _ := mustRun(t, "fit", "--workspace", ws)

	out, _ := mustRun(t, "run", "--workspace", ws, "--rubric", "saja-broad", "--dry-run")
	for _, want := range []string{"rubric saja-broad (saja, 8 criteria", "budget per candidate: 1 call(s)", "480 in all", "60 request(s) to send, 60 call(s)"} {
		if !strings.Contains(out, want) {
			t.Fatalf("dry run lacks %q:\n%s", want, out)
		}
	}
	out, _ = mustRun(t, "run", "--workspace", ws, "--rubric", "saja-broad")
	if !strings.Contains(out, "done: 480 of 480 ratings") || !strings.Contains(out, "accuracy     60      0") {
		t.Fatalf("saja run:\n%s", out)
	}
	out, _ = mustRun(t, "run", "--workspace", ws, "--rubric", "saja-broad")
	if !strings.Contains(out, "480 answered, 0 from cache; 0 request(s) to send, 0 call(s)") || strings.Contains(out, "done:") {
		t.Fatalf("saja rerun sends:\n%s", out)
	}
	out, _ = mustRun(t, "run", "--workspace", ws, "--rubric", "geval-summeval", "--samples", "3")
	for _, want := range []string{"budget per candidate: 12 call(s) (4 criteria × 3 sample(s) at temperature 1, top_p 1)", "done: 240 of 240 ratings", "fluency      60      0"} {
		if !strings.Contains(out, want) {
			t.Fatalf("geval run lacks %q:\n%s", want, out)
		}
	}
	out, _ = mustRun(t, "run", "--workspace", ws, "--rubric", "geval-summeval", "--samples", "3")
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

	after, _ := mustRun(t, "fit", "--workspace", ws, "--baselines", "none")
	if after != before {
		t.Errorf("the fit changed with rubric scores present:\n%s\nvs\n%s", before, after)
	}
	csv := filepath.Join(dir, "scores.csv")
	mustRun(t, "export", "scores", "--workspace", ws, "-o", csv)
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
	mustRun(t, "data", "import", "demo", "--workspace", ws)
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
		if code := runMain(context.Background(), args, &out, &errb); code == 0 || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %q", tc.args, code, errb.String(), tc.want)
		}
	}
}
