package analysis

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/model/shareddata"
	"github.com/prism-eval/prism/ui/cli/internal/clitest"
)

// methodsJSON is a report's method results as JSON, what a headline is.
func methodsJSON(t *testing.T, rep *calib.Report) string {
	t.Helper()
	b, err := json.Marshal(rep.Methods)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A study's headline does not move because diagnostics ran: on the real
// SummEval, after prism screen (a second run on 20 contexts), diagnose
// resolution (the bank on a 0–100 scale) and diagnose wording (the ladder
// bank), prism fit --judge offline gives the first fit's method results
// byte for byte, says which study it took, and never pools the others.
// Asked for every run, it reads the screen's too and says the runs are
// unbalanced; with two studies prism run planned, it refuses and lists
// them.
func TestDiagnosticsNeverMoveTheHeadline(t *testing.T) {
	path := shareddata.Path(t, "summeval/data.json")
	if testing.Short() || clitest.RaceEnabled {
		t.Skip("a 60,800-request study and its diagnostics: not in -short or -race runs")
	}
	ws := filepath.Join(t.TempDir(), "ws.db")
	clitest.MustRun(t, "data", "import", "summeval", path, "--name", "summeval", "--workspace", ws)
	clitest.MustRun(t, "run", "--workspace", ws, "--bank", "quality", "--backend", "offline")
	first := fitJSON(t, "--baselines", "none", "--workspace", ws, "--judge", "offline")
	if s := first.Study; s == nil || s.Dataset != "summeval" || s.Bank != "quality" || s.Scale != "1–10" || s.PlannedRuns != 1 ||
		s.Runs != "planned" || s.RunsPerContext != [2]int{1, 1} || s.Contexts != 100 || s.Candidates != 1600 || s.Answers != 60800 {
		t.Fatalf("the first fit's study: %+v", first.Study)
	}

	clitest.MustRun(t, "screen", "--workspace", ws, "--bank", "quality", "--backend", "offline")
	clitest.MustRun(t, "diagnose", "resolution", "--workspace", ws, "--backend", "offline", "--contexts", "10")
	clitest.MustRun(t, "diagnose", "wording", "--workspace", ws, "--backend", "offline", "--contexts", "5")
	ls, _ := clitest.MustRun(t, "ls", "--workspace", ws)
	for _, want := range []string{"ladder", "diagnose wording", "diagnose resolution", "run, screen"} {
		if !strings.Contains(ls, want) {
			t.Errorf("prism ls does not show %q:\n%s", want, ls)
		}
	}

	code, out, stderr := clitest.RunPrism(t, "fit", "--json", "--bootstrap", "200", "--baselines", "none", "--workspace", ws, "--judge", "offline")
	if code != 0 {
		t.Fatalf("fit after the diagnostics: exit %d: %s", code, stderr)
	}
	var again calib.Report
	if err := json.Unmarshal([]byte(out), &again); err != nil {
		t.Fatal(err)
	}
	if got, want := methodsJSON(t, &again), methodsJSON(t, first); got != want {
		t.Fatalf("the diagnostics moved the headline:\nafter  %.400s\nbefore %.400s", got, want)
	}
	if !reflect.DeepEqual(again.Columns, first.Columns) || again.Study.Answers != first.Study.Answers {
		t.Errorf("columns %v, answers %d; want %v, %d", again.Columns, again.Study.Answers, first.Columns, first.Study.Answers)
	}
	if !strings.Contains(stderr, "the one prism run planned; 2 other bank versions hold only diagnostics' answers") {
		t.Errorf("the fit does not say which study it took: %s", stderr)
	}

	all := fitJSON(t, "--baselines", "none", "--workspace", ws, "--judge", "offline", "--runs", "all")
	if all.Study.Runs != "all" || all.Study.RunsPerContext != [2]int{1, 2} || all.Study.Answers <= first.Study.Answers {
		t.Errorf("--runs all: %+v", all.Study)
	}

	// A second study of the judge's own (another bank): never pooled.
	clitest.MustRun(t, "run", "--workspace", ws, "--bank", "style8", "--backend", "offline")
	code, _, stderr = clitest.RunPrism(t, "fit", "--workspace", ws, "--judge", "offline", "--baselines", "none", "--bootstrap", "200")
	if code == 0 || !strings.Contains(stderr, "never pooled") || !strings.Contains(stderr, "quality ") || !strings.Contains(stderr, "style8 ") {
		t.Fatalf("two planned studies: exit %d, stderr %s", code, stderr)
	}
	if got := fitJSON(t, "--baselines", "none", "--workspace", ws, "--judge", "offline", "--bank", "quality"); methodsJSON(t, got) != methodsJSON(t, first) {
		t.Error("--bank quality does not give the first fit")
	}
}

// JudgeBench is imported with pairwise accuracy as its metric, and a fit
// of it uses that metric unless --metric says otherwise.
func TestJudgeBenchFitsPairwise(t *testing.T) {
	dir := shareddata.Path(t, "judgebench")
	ws := filepath.Join(t.TempDir(), "ws.db")
	clitest.MustRun(t, "data", "import", "judgebench", dir, "--workspace", ws)
	clitest.MustRun(t, "run", "--workspace", ws, "--bank", "answer", "--backend", "offline", "--probes", "baseline,length:+,length:-,steps:+,steps:-")
	if rep := fitJSON(t, "--baselines", "none", "--workspace", ws); rep.Metric != "pairwise" {
		t.Errorf("metric %q, want the dataset's pairwise", rep.Metric)
	}
	if rep := fitJSON(t, "--baselines", "none", "--workspace", ws, "--metric", "spearman"); rep.Metric != "spearman" {
		t.Errorf("--metric spearman gave %q", rep.Metric)
	}
}
