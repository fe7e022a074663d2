package analysis

import (
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/shareddata"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
	"github.com/prism-eval/prism/ui/cli/internal/clitest"
)

// rubricWorkspace is the demo with the quality bank and three rubric
// studies by the offline judge (G-Eval with 3 samples), and its scores and
// labels exported as CSV files; built once for the package's tests.
var rubricWorkspace = sync.OnceValues(func() (string, error) {
	dir, err := clitest.TempDirOnce("prism-rubric-fit")
	if err != nil {
		return "", err
	}
	ws := filepath.Join(dir, "ws.db")
	for _, args := range [][]string{
		{"data", "import", "demo", "--workspace", ws},
		{"run", "--workspace", ws, "--bank", "quality"},
		{"run", "--workspace", ws, "--rubric", "saja-broad"},
		{"run", "--workspace", ws, "--rubric", "saja-granular"},
		{"run", "--workspace", ws, "--rubric", "geval-summeval", "--samples", "3"},
		{"export", "scores", "--workspace", ws, "-o", filepath.Join(dir, "s.csv")},
		{"export", "labels", "--workspace", ws, "-o", filepath.Join(dir, "l.csv")},
	} {
		var out, errb strings.Builder
		if code := clikit.RunMain(context.Background(), args, &out, &errb); code != 0 {
			return "", &clitest.CLIError{Args: args, Out: out.String() + errb.String()}
		}
	}
	return dir, nil
})

func rubricFixture(t *testing.T) (ws, scores, labels string) {
	t.Helper()
	dir, err := rubricWorkspace()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "ws.db"), filepath.Join(dir, "s.csv"), filepath.Join(dir, "l.csv")
}

func fitJSON(t *testing.T, args ...string) *calib.Report {
	t.Helper()
	out, _ := clitest.MustRun(t, append([]string{"fit", "--json", "--bootstrap", "200"}, args...)...)
	var r calib.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

// prism fit reports a row per rubric study of the judge, scored exactly
// as calib.FitDesign scores the stored ratings (averaged by hand here from
// the exported scores); the methods' rows are those of a fit without
// baselines; budgets are the calls the studies made per candidate.
func TestFitRubricBaselines(t *testing.T) {
	ws, scores, labels := rubricFixture(t)
	rep := fitJSON(t, "--workspace", ws)
	plain := fitJSON(t, "--workspace", ws, "--baselines", "none")
	if plain.Baselines != nil || plain.Budgets != nil {
		t.Fatalf("--baselines none reports baselines %v, budgets %v", plain.Baselines, plain.Budgets)
	}
	if !reflect.DeepEqual(rep.Methods, plain.Methods) || !reflect.DeepEqual(rep.Folds, plain.Folds) {
		t.Error("the baselines changed the methods' results")
	}
	want := map[string]struct {
		kind         string
		crits, calls int
	}{"saja_broad": {calib.BaselineForest, 8, 1}, "saja_granular": {calib.BaselineForest, 28, 1}, "geval": {calib.BaselineGEval, 4, 12}}
	if len(rep.Baselines) != len(want) {
		t.Fatalf("baselines %v", keys(rep.Baselines))
	}
	for name, w := range want {
		b := rep.Baselines[name]
		if b == nil || b.Kind != w.kind || len(b.Criteria) != w.crits || b.CallsPerCandidate != float64(w.calls) || b.DiffVsPRISM == nil || b.DiffVsVanilla == nil {
			t.Errorf("%s: %+v", name, b)
		}
	}
	if v, p := rep.Budgets["vanilla"], rep.Budgets["prism"]; v.CallsPerCandidate != 1 || p.CallsPerCandidate != 33 {
		t.Errorf("budgets vanilla %+v prism %+v, want 1 and 33 calls (baseline + 8 attributes × 2 signs × 2 wordings)", v, p)
	}

	// The same numbers from the exported scores, by hand: mean over runs
	// per criterion (one run here), in the rubric's criterion order.
	rows, err := clikit.ReadFile(scores, model.ReadScoresCSV)
	if err != nil {
		t.Fatal(err)
	}
	labs, err := clikit.ReadFile(labels, model.ReadLabelsCSV)
	if err != nil {
		t.Fatal(err)
	}
	opts := calib.DefaultOptions()
	opts.Bootstrap = 200
	for name, b := range rep.Baselines {
		rubric := map[string]string{"saja_broad": "saja-broad", "saja_granular": "saja-granular", "geval": "geval-summeval"}[name]
		bl := calib.Baseline{Name: name, Kind: b.Kind, Criteria: b.Criteria, Scores: map[[2]string][]float64{}}
		if b.Kind == calib.BaselineGEval {
			for _, c := range b.Criteria {
				bl.Scales = append(bl.Scales, [2]float64{1, map[bool]float64{true: 3, false: 5}[c == "fluency"]})
			}
		} else {
			for range b.Criteria {
				bl.Scales = append(bl.Scales, [2]float64{1, 5})
			}
		}
		for _, r := range rows {
			rn, c, ok := model.SplitRubricProbe(r.Probe)
			if !ok || rn != rubric {
				continue
			}
			k := [2]string{r.Context, r.Candidate}
			if bl.Scores[k] == nil {
				bl.Scores[k] = make([]float64, len(b.Criteria))
				for i := range bl.Scores[k] {
					bl.Scores[k][i] = math.NaN()
				}
			}
			if !r.Missing {
				bl.Scores[k][indexOf(b.Criteria, c)] = r.Score
			}
		}
		o := opts
		o.Baselines = []calib.Baseline{bl}
		d, _, err := calib.BuildDesign(rows, labs, calib.BuildOptions{})
		if err != nil {
			t.Fatal(err)
		}
		hand, _, err := calib.FitDesign(context.Background(), d, o)
		if err != nil {
			t.Fatal(err)
		}
		h := hand.Baselines[name]
		if h.Mean != b.Mean || h.CI != b.CI || h.DiffVsPRISM.Mean != b.DiffVsPRISM.Mean || h.DiffVsVanilla.CI != b.DiffVsVanilla.CI {
			t.Errorf("%s: prism fit %v %v, by hand %v %v", name, b.Mean, b.CI, h.Mean, h.CI)
		}
	}

	// From the exported CSV files: the same rows (built-in rubrics by
	// name), no budgets (a file has no token counts).
	fromCSV := fitJSON(t, "--scores", scores, "--labels", labels)
	for name, b := range rep.Baselines {
		c := fromCSV.Baselines[name]
		if c == nil || c.Mean != b.Mean || c.CI != b.CI || c.CallsPerCandidate != 0 {
			t.Errorf("%s from CSV: %+v, from the workspace: %+v", name, c, b)
		}
	}
	if fromCSV.Budgets != nil {
		t.Errorf("budgets from a file: %v", fromCSV.Budgets)
	}

	// --baselines chooses rows; --head ridge fits SAJA's ridge head.
	some := fitJSON(t, "--workspace", ws, "--baselines", "geval,saja_broad", "--head", "ridge")
	if len(some.Baselines) != 2 || some.Baselines["saja_broad"].Kind != calib.BaselineRidge || len(some.Baselines["saja_broad"].Gammas) != 5 ||
		some.Baselines["geval"].Mean != rep.Baselines["geval"].Mean {
		t.Errorf("--baselines geval,saja_broad --head ridge: %v", some.Baselines)
	}
}

func indexOf(xs []string, x string) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	panic("no " + x)
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// The printed report groups the rows as Table 2, with budgets.
func TestFitRubricBaselinesPrinted(t *testing.T) {
	ws, _, _ := rubricFixture(t)
	out, _ := clitest.MustRun(t, "fit", "--workspace", ws, "--bootstrap", "200")
	for _, want := range []string{"Rubric-based\n", "Rubric-free\n", "  SAJA broad (RF)  ", "  SAJA granular (RF)  ", "  G-Eval  ", "  Vanilla  ", "Δ vs PRISM", "calls/cand"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if i, j := strings.Index(out, "  SAJA broad"), strings.Index(out, "  Vanilla "); i > j {
		t.Error("rubric-based rows are not first")
	}
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "  ") {
			continue // not a row of the method table
		}
		if f := strings.Fields(l); len(f) > 0 && f[0] == "G-Eval" && f[len(f)-2] != "12" {
			t.Errorf("G-Eval row without its 12 calls per candidate: %q", l)
		}
		if f := strings.Fields(l); len(f) > 0 && f[0] == "PRISM" && f[len(f)-2] != "33" {
			t.Errorf("PRISM row without its 33 calls per candidate: %q", l)
		}
	}
}

func TestFitRubricBaselinesErrors(t *testing.T) {
	ws, scores, labels := rubricFixture(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--workspace", ws, "--baselines", "saja_broad,nope"}, `no rubric ratings named "nope" for this judge (have: geval, saja_broad, saja_granular)`},
		{[]string{"--workspace", ws, "--head", "tree"}, `--head "tree": want forest or ridge`},
		{[]string{"--workspace", ws, "--trees", "0"}, "--trees 0"},
		{[]string{"--workspace", ws, "--rubric-file", "x.toml"}, "--rubric-file names the rubric of ratings in a --scores file"},
		{[]string{"--scores", scores, "--labels", labels, "--rubric-file", filepath.Join(t.TempDir(), "none.toml")}, "--rubric-file"},
	} {
		code, _, errOut := clitest.RunPrism(t, append([]string{"fit"}, tc.args...)...)
		if code == 0 || !strings.Contains(errOut, tc.want) {
			t.Errorf("fit %v: exit %d, stderr %q; want %q", tc.args, code, errOut, tc.want)
		}
	}
}

// The README's Table 2 sequence on the real SummEval: the quality bank and
// the three built-in rubrics by the offline judge in expected mode, then
// prism fit from the workspace with every row and its budget.
func TestTable2SummEval(t *testing.T) {
	path := shareddata.Path(t, "summeval/data.json")
	if testing.Short() || clitest.RaceEnabled {
		t.Skip("the SummEval studies and two forests per fold: not in -short or -race runs")
	}
	ws := filepath.Join(t.TempDir(), "ws.db")
	clitest.MustRun(t, "data", "import", "summeval", path, "--name", "summeval", "--workspace", ws)
	clitest.MustRun(t, "run", "--workspace", ws, "--bank", "quality", "--mode", "expected")
	for _, r := range []string{"saja-broad", "saja-granular", "geval-summeval"} {
		out, _ := clitest.MustRun(t, "run", "--workspace", ws, "--rubric", r, "--mode", "expected")
		if !strings.Contains(out, "done: ") {
			t.Fatalf("run --rubric %s:\n%s", r, out)
		}
	}
	rep := fitJSON(t, "--workspace", ws)
	if rep.NCandidates != 1600 || rep.NContexts != 100 {
		t.Fatalf("%d contexts, %d candidates", rep.NContexts, rep.NCandidates)
	}
	calls := map[string]float64{"saja_broad": 1, "saja_granular": 1, "geval": 4}
	for name, c := range calls {
		b := rep.Baselines[name]
		if b == nil {
			t.Fatalf("no %s row: %v", name, keys(rep.Baselines))
		}
		if !(b.CI[0] <= b.Mean && b.Mean <= b.CI[1]) || b.CallsPerCandidate != c || b.Absent != 0 {
			t.Errorf("%s: mean %v CI %v, %v calls, %d absent", name, b.Mean, b.CI, b.CallsPerCandidate, b.Absent)
		}
		t.Logf("%-14s mean %.4f [%.4f, %.4f]  Δ vs Vanilla %+.4f [%+.4f, %+.4f]  Δ vs PRISM %+.4f [%+.4f, %+.4f]", name, b.Mean, b.CI[0], b.CI[1],
			b.DiffVsVanilla.Mean, b.DiffVsVanilla.CI[0], b.DiffVsVanilla.CI[1], b.DiffVsPRISM.Mean, b.DiffVsPRISM.CI[0], b.DiffVsPRISM.CI[1])
	}
	for _, m := range []string{"vanilla", "prism", "alpha_prism"} {
		r := map[string]*calib.MethodResult{"vanilla": rep.Methods.Vanilla, "prism": rep.Methods.PRISM, "alpha_prism": rep.Methods.AlphaPRISM}[m]
		t.Logf("%-14s mean %.4f [%.4f, %.4f]  calls/cand %v", m, r.Mean, r.CI[0], r.CI[1], rep.Budgets[m].CallsPerCandidate)
	}
	if rep.Budgets["prism"].CallsPerCandidate != 33 {
		t.Errorf("PRISM budget %+v, want 33 calls per candidate", rep.Budgets["prism"])
	}
}
