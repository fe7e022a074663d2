package ui

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	runtab "github.com/prism-eval/prism/ui/tabs/run"

	"github.com/charmbracelet/x/ansi"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/figures"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/analysis"
	"github.com/prism-eval/prism/ui/tabs/fit"
	"github.com/prism-eval/prism/ui/widgets"
)

// fixtureRubrics are the rubric studies of fixtureRubric.
var fixtureRubrics = []string{"saja-broad", "saja-granular", "geval-summeval"}

// runRubrics runs the rubric studies of fixtureRubrics with a's judge
// (the Run form's), one run each, as `prism run --rubric R` does.
func runRubrics(a *App) error {
	sp, err := a.run.Spec()
	if err != nil {
		return err
	}
	ctx := context.Background()
	st := a.study.Store
	for _, name := range fixtureRubrics {
		r, err := banks.BuiltinRubric(name)
		if err != nil {
			return err
		}
		rs := sp
		rs.Bank, rs.BankSource = nil, ""
		rs.Rubric, rs.RubricSource, rs.Repeats = r, "builtin:"+name, 1
		p, err := engine.NewPlan(ctx, st, rs)
		if err != nil {
			return err
		}
		lim := engine.NewLimiter(rs.Limits)
		js, err := engine.PlanJudges(p, lim)
		if err != nil {
			return err
		}
		run, err := engine.Start(ctx, st, js, p, engine.Options{Limiter: lim})
		if err != nil {
			return err
		}
		for range run.Events() {
		}
		if _, err := run.Wait(); err != nil {
			return fmt.Errorf("rubric %s: %w", name, err)
		}
	}
	return nil
}

// importSwappedRubric imports the judge "swapped" (see twoJudgeDemo) with
// a's judge's SAJA broad ratings among its scores: an imported judge's
// rubric rows, matched to the built-in rubric by name.
func importSwappedRubric(a *App) error {
	rows, err := swappedRows(a)
	if err != nil {
		return err
	}
	k, _ := a.currentKey()
	ctx := context.Background()
	rrs, err := study.StoredRubricRatings(ctx, a.study.Store, k.Dataset, k.Judge)
	if err != nil {
		return err
	}
	for _, rr := range rrs {
		if rr.Rubric.Name == "saja-broad" {
			rows = append(rows, rr.Rows...)
		}
	}
	_, err = a.study.Store.ImportScores(ctx, k.Dataset, "swapped", rows)
	return err
}

// rubricTwoJudgeDemo is fixtureRubricTwoJudge: the offline judge with its
// three rubric studies, and the judge "swapped" with SAJA broad's
// ratings alone.
func rubricTwoJudgeDemo(t testing.TB, w, h int) *App {
	t.Helper()
	return fixtureApp(t, fixtureRubricTwoJudge, w, h)
}

// wantFit is what `prism fit --judge J --bank B` computes from the
// workspace with its default baselines (every rubric with ratings, SAJA's
// forest head), by the engine's and calib's exported functions: the
// report the Fit and Compare tabs must show.
func wantFit(t testing.TB, st *store.Store, k studyKey, opts calib.Options) *calib.Report {
	t.Helper()
	ctx := context.Background()
	rows, labels, err := st.FitInput(ctx, k.Dataset, k.Judge, k.BankHash)
	if err != nil {
		t.Fatal(err)
	}
	labels, _ = model.ScoredLabels(rows, labels)
	rrs, err := study.StoredRubricRatings(ctx, st, k.Dataset, k.Judge)
	if err != nil {
		t.Fatal(err)
	}
	var rest []model.ScoreRow
	for _, r := range rows {
		if name, _, ok := model.SplitRubricProbe(r.Probe); ok && !slices.ContainsFunc(rrs, func(rr study.RubricRatings) bool { return rr.Rubric.Name == name }) {
			rest = append(rest, r)
		}
	}
	found, _ := study.RatingsFromRows(rest, nil)
	if opts.Baselines, err = study.Baselines(append(rrs, found...), study.BaselineOptions{}); err != nil {
		t.Fatal(err)
	}
	d, _, err := calib.BuildDesign(rows, labels, calib.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rep, _, err := calib.FitDesign(ctx, d, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Baselines) > 0 {
		usage, err := st.Usage(ctx, k.Dataset, k.Judge, k.BankHash)
		if err != nil {
			t.Fatal(err)
		}
		rep.Budgets = study.MethodBudgets(usage, d.Columns)
	}
	return rep
}

// wantFits holds wantFit's reports by fixture, judge and options: a
// fixture is the same bytes in every test and a judge's report reads
// only that judge's answers, so each report (a forest head and 2,000
// resamples, slow under the race detector) is computed once per test
// binary. Tests do not modify the reports they are given.
var wantFits = struct {
	sync.Mutex
	m map[string]*calib.Report
}{m: map[string]*calib.Report{}}

// sharedWantFit is wantFit of judge k.judge on st, a copy of the named
// fixture whose study of that judge the test has not changed.
func sharedWantFit(t testing.TB, fixture string, st *store.Store, k studyKey, opts calib.Options) *calib.Report {
	t.Helper()
	key := fmt.Sprintf("%s|%+v|%+v", fixture, k, opts)
	wantFits.Lock()
	defer wantFits.Unlock()
	if rep := wantFits.m[key]; rep != nil {
		return rep
	}
	rep := wantFit(t, st, k, opts)
	wantFits.m[key] = rep
	return rep
}

// fittedRubric is the rubric fixture fitted on the Fit tab at w×h,
// with the report wantFit computes.
func fittedRubric(t testing.TB, w, h int) (*App, *calib.Report) {
	t.Helper()
	a := fitRubricApp(t, w, h)
	return a, sharedWantFit(t, fixtureRubric, a.study.Store, a.fit.Key(), a.fit.Options())
}

// fitRubricApp is the rubric fixture fitted on the Fit tab at w×h.
func fitRubricApp(t testing.TB, w, h int) *App {
	t.Helper()
	a := fixtureApp(t, fixtureRubric, w, h)
	press(a, "5", "f")
	if a.fit.Job().Job != nil || a.fit.Err() != nil || a.fit.Report() == nil {
		t.Fatalf("fit: busy %v, err %v", a.fit.Job().Job != nil, a.fit.Err())
	}
	return a
}

// table2Want is row's text in a 160-column frame, runs of blanks as one:
// the label, mean and interval, Δ vs Vanilla and its interval, a rubric
// row's Δ vs PRISM (its interval does not fit) and the calls per
// candidate (the offline judge counts no tokens: no tokens column).
func table2Want(row figures.T2Row) string {
	f := []string{row.Label, widgets.Mean4(row.Res.Mean), widgets.CI(row.Res.CI)}
	if d := row.Res.DiffVsVanilla; d != nil {
		f = append(f, widgets.Gain4(d.Mean), widgets.DiffCI(d.CI))
	}
	if d := row.VsPRISM; d != nil {
		f = append(f, widgets.Gain4(d.Mean))
	}
	f = append(f, analysis.CountText(row.Budget.CallsPerCandidate))
	return strings.Join(strings.Fields(strings.Join(f, " ")), " ")
}

// With rubric studies of the judge, the Fit tab's report is `prism
// fit`'s with its baselines and budgets, and its table is Table 2: the
// rubric-based rows, then the rubric-free ones, with the report's
// numbers as the screen formats them.
func TestFitScreenBaselines(t *testing.T) {
	t.Parallel()
	a, rep := fittedRubric(t, 160, 48)
	if got, want := jsonOf(t, studyless(t, a.fit.Report(), a.fit.Key())), jsonOf(t, rep); got != want {
		t.Fatalf("the Fit tab's report differs from prism fit's:\n got %s\nwant %s", got, want)
	}
	if got := slices.Sorted(maps.Keys(rep.Baselines)); !slices.Equal(got, []string{"geval", "saja_broad", "saja_granular"}) {
		t.Fatalf("baselines %v", got)
	}
	if rep.Budgets["prism"].CallsPerCandidate == 0 || rep.Baselines["geval"].CallsPerCandidate == 0 {
		t.Fatalf("budgets not known: %+v, G-Eval %g", rep.Budgets, rep.Baselines["geval"].CallsPerCandidate)
	}
	f := frame(a)
	rows := figures.Table2(rep)
	if len(rows) != 3+4 || rows[0].Key != "saja_broad" || rows[1].Key != "saja_granular" || rows[2].Key != "geval" || rows[3].Key != "vanilla" {
		t.Fatalf("Table 2's rows: %+v", rows)
	}
	for _, row := range rows {
		line := strings.Join(strings.Fields(paneRow(f, 0, "  "+row.Label+" ")), " ")
		if want := table2Want(row); line != want {
			t.Errorf("%s row %q, want %q", row.Key, line, want)
		}
	}
	rb, rf := strings.Index(f, figures.GroupRubric), strings.Index(f, figures.GroupFree)
	if rb < 0 || rf < rb || strings.Index(f, "SAJA broad (RF)") < rb || strings.Index(f, "  Vanilla") < rf {
		t.Errorf("the groups are not Rubric-based, then Rubric-free:\n%s", f)
	}
	if head := strings.Join(strings.Fields(paneRow(f, 0, "method ")), " "); head != "method mean 95% CI Δ vs Van 95% CI Δ vs PRISM calls" {
		t.Errorf("header %q", head)
	}
	// The methods' numbers are those of the fit without baselines.
	plain, _ := fittedDemo(t, 160, 48)
	if got, want := jsonOf(t, a.fit.Report().Methods), jsonOf(t, plain.fit.Report().Methods); got != want {
		t.Errorf("the baselines changed the methods:\n got %s\nwant %s", got, want)
	}
}

// Imputed rubric cells are listed under Table 2 (its columns leaving a
// narrow pane are tested in ui/tabs/fit).
func TestTable2Narrow(t *testing.T) {
	t.Parallel()
	a, rep := fittedRubric(t, 80, 24)
	// A report whose SAJA broad ratings had missing cells says so.
	r := *rep
	r.Baselines = maps.Clone(rep.Baselines)
	b := *r.Baselines["saja_broad"]
	b.Missing = map[string]int{b.Criteria[0]: 3, b.Criteria[1]: 2}
	b.Absent = 1
	r.Baselines["saja_broad"] = &b
	text := paneText(ansi.Strip(strings.Join(fit.Table2Lines(a.styles, &r, 76), "\n")))
	want := fmt.Sprintf("SAJA broad (RF): 5 missing cell(s) mean-imputed (%s 3, %s 2); 1 candidate(s) without any rating", b.Criteria[0], b.Criteria[1])
	if !strings.Contains(text, want) {
		t.Errorf("table lacks %q:\n%s", want, text)
	}
	if text := strings.Join(fit.Table2Lines(a.styles, rep, 76), "\n"); strings.Contains(text, "mean-imputed") {
		t.Errorf("no missing cells, yet:\n%s", text)
	}
}

// The Compare tab shows each judge's rubric rows beside its methods:
// the offline judge's three, the imported judge's SAJA broad (from its
// imported scores) and — where it has none; each judge's report is
// `prism fit`'s.
func TestCompareBaselines(t *testing.T) {
	t.Parallel()
	a := rubricTwoJudgeDemo(t, 160, 48)
	press(a, "8", "c")
	if a.cmp.Busy() || a.cmp.Err() != nil || len(a.cmp.Fits()) != 2 {
		t.Fatalf("compare: busy %v, err %v, %d fits", a.cmp.Busy(), a.cmp.Err(), len(a.cmp.Fits()))
	}
	k, _ := a.currentKey()
	var reps []*calib.Report
	for _, jf := range a.cmp.Fits() {
		if jf.Err != nil {
			t.Fatalf("%s: %v", jf.Judge, jf.Err)
		}
		// The offline judge's answers here are fixtureRubric's (the
		// fixture adds the judge "swapped" alone): its report is shared.
		jk := studyKey{Dataset: k.Dataset, Judge: jf.Judge, BankHash: k.BankHash}
		var want *calib.Report
		if jf.Judge == "offline" {
			want = sharedWantFit(t, fixtureRubric, a.study.Store, jk, a.fit.Options())
		} else {
			want = wantFit(t, a.study.Store, jk, a.fit.Options())
		}
		if got, want := jsonOf(t, studyless(t, jf.Rep, studyKey{Dataset: k.Dataset, Judge: jf.Judge, BankHash: k.BankHash})), jsonOf(t, want); got != want {
			t.Errorf("%s: the Compare tab's report differs from prism fit's:\n got %s\nwant %s", jf.Judge, got, want)
		}
		reps = append(reps, jf.Rep)
	}
	if len(reps[0].Baselines) != 3 || len(reps[1].Baselines) != 1 || reps[1].Baselines["saja_broad"] == nil {
		t.Fatalf("baselines: %d and %d", len(reps[0].Baselines), len(reps[1].Baselines))
	}
	cell := func(res *calib.MethodResult) string {
		if res == nil {
			return "—"
		}
		s := widgets.Mean4(res.Mean)
		if res.DiffVsVanilla != nil {
			s += " " + widgets.Gain4(res.DiffVsVanilla.Mean)
		}
		return s
	}
	f := frame(a)
	for _, row := range figures.Table2(reps[0]) {
		want := row.Label
		for _, r := range reps {
			var res *calib.MethodResult
			if row.Base != nil {
				if b := r.Baselines[row.Key]; b != nil {
					res = &b.MethodResult
				}
			} else {
				res = r.Methods.Get(methodOf(t, row.Key))
			}
			want += " " + cell(res)
		}
		if line := strings.Join(strings.Fields(paneRow(f, 0, "  "+row.Label+" ")), " "); line != want {
			t.Errorf("%s row %q, want %q", row.Key, line, want)
		}
	}
	if !strings.Contains(f, figures.GroupRubric) || !strings.Contains(f, figures.GroupFree) {
		t.Errorf("no groups:\n%s", f)
	}
}

// methodOf is the method of a report key.
func methodOf(t *testing.T, key string) calib.Method {
	t.Helper()
	for _, fm := range analysis.Methods {
		if fm.M.String() == key {
			return fm.M
		}
	}
	t.Fatalf("no method %q", key)
	return 0
}

// e with baselines writes table2.csv beside the report: Table 2's rows
// with the report's numbers; report.json holds the baselines and budgets.
func TestFitExportBaselines(t *testing.T) {
	t.Parallel()
	a, rep := fittedRubric(t, 80, 24)
	a.fit.SetExportDir(filepath.Join(t.TempDir(), "export"))
	press(a, "e", "enter")
	want := fmt.Sprintf("exported 10 files (report JSON, CSV, Table 2 CSV, figures PNG, SVG) to %s", a.fit.ExportDir())
	if fitStatus(a) != want || fitStatusErr(a) {
		t.Fatalf("status %q, want %q", fitStatus(a), want)
	}
	fh, err := os.Open(filepath.Join(a.fit.ExportDir(), figures.Table2File))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	got, err := csv.NewReader(fh).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if g, w := jsonOf(t, got), jsonOf(t, figures.Table2CSV(rep)); g != w {
		t.Errorf("table2.csv:\n got %s\nwant %s", g, w)
	}
	if len(got) != 1+3+4 || !slices.Equal(got[0], figures.Table2Header) {
		t.Fatalf("table2.csv has %d rows, header %v", len(got), got[0])
	}
	b := rep.Baselines["saja_broad"]
	row := got[1]
	if row[0] != "rubric_based" || row[1] != "saja_broad" || row[2] != "SAJA broad (RF)" || row[3] != rep.Metric ||
		row[4] != fmt.Sprint(b.Mean) || row[10] != fmt.Sprint(b.DiffVsPRISM.Mean) || row[13] != fmt.Sprint(b.CallsPerCandidate) ||
		row[14] != "" || row[15] != "0" || row[16] != "0" {
		t.Errorf("saja_broad row %q", row)
	}
	if van := got[4]; van[0] != "rubric_free" || van[1] != "vanilla" || van[7] != "" || van[10] != "" || van[15] != "" {
		t.Errorf("vanilla row %q", van)
	}
	data, err := os.ReadFile(filepath.Join(a.fit.ExportDir(), "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var back calib.Report
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if g, w := jsonOf(t, back.Baselines), jsonOf(t, rep.Baselines); g != w {
		t.Errorf("report.json baselines %s, want %s", g, w)
	}
	if g, w := jsonOf(t, back.Budgets), jsonOf(t, rep.Budgets); g != w {
		t.Errorf("report.json budgets %s, want %s", g, w)
	}
}

// Golden frames of the Fit tab with rubric baselines (its top and its
// end) and of the Compare tab with two judges' baselines.
func TestGoldenBaselines(t *testing.T) {
	t.Parallel()
	a := fitRubricApp(t, goldenSizes[0][0], goldenSizes[0][1])
	g := goldenFrames{}
	g.capture(a, "fit")
	press(a, "G")
	g.capture(a, "fit-bottom")
	c := rubricTwoJudgeDemo(t, goldenSizes[0][0], goldenSizes[0][1])
	press(c, "8", "c")
	g.capture(c, "compare")
	g.check(t)
}

// An imported judge's rubric rows of a rubric prism does not know are
// left out with a warning, and rows a built-in rubric cannot read (a
// criterion it lacks) leave the baselines out with a warning: the
// methods are fitted all the same.
func TestFitBaselinesWarnings(t *testing.T) {
	t.Parallel()
	a := fixtureApp(t, fixtureScreened, 160, 48)
	rows, err := swappedRows(a)
	if err != nil {
		t.Fatal(err)
	}
	c := a.study.Dataset.Contexts[0]
	for _, p := range []string{model.RubricProbe("my-rubric", "depth"), model.RubricProbe("saja-broad", "no-such-criterion")} {
		rows = append(rows, model.ScoreRow{Context: c.ID, Candidate: c.Candidates[0].ID, Probe: p, Run: "0", Score: 3})
	}
	k, _ := a.currentKey()
	if _, err := a.study.Store.ImportScores(context.Background(), k.Dataset, "odd", rows); err != nil {
		t.Fatal(err)
	}
	setFormField(t, a, runtab.FieldName, "odd")
	press(a, "5", "f")
	if a.fit.Err() != nil || a.fit.Report() == nil || a.fit.Key().Judge != "odd" {
		t.Fatalf("fit: err %v, key %+v", a.fit.Err(), a.fit.Key())
	}
	if len(a.fit.Report().Baselines) != 0 || a.fit.Report().Budgets != nil {
		t.Errorf("baselines %v, budgets %v: want none", a.fit.Report().Baselines, a.fit.Report().Budgets)
	}
	text := strings.Join(a.fit.Warnings(), "\n")
	for _, want := range []string{`rubric ratings of "my-rubric": no built-in rubric of that name`, "rubric baselines left out: ", "no-such-criterion"} {
		if !strings.Contains(text, want) {
			t.Errorf("warnings lack %q:\n%s", want, text)
		}
	}
	if f := paneText(frame(a)); !strings.Contains(f, "method mean 95% CI Δ vs Van 95% CI") || strings.Contains(f, figures.GroupRubric) {
		t.Errorf("without baselines the table is the methods' alone:\n%s", f)
	}
}

// Ratings the fit cannot use (here SAJA broad with one criterion rated,
// the others never) leave the baselines out with the fit's reason; the
// methods are fitted.
func TestFitBaselinesUnusable(t *testing.T) {
	t.Parallel()
	a := fixtureApp(t, fixtureScreened, 160, 48)
	rows, err := swappedRows(a)
	if err != nil {
		t.Fatal(err)
	}
	r, err := banks.BuiltinRubric("saja-broad")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range a.study.Dataset.Contexts {
		for _, cand := range c.Candidates {
			rows = append(rows, model.ScoreRow{Context: c.ID, Candidate: cand.ID, Probe: model.RubricProbe(r.Name, r.Criteria[0].Name), Run: "0", Score: 3})
		}
	}
	k, _ := a.currentKey()
	if _, err := a.study.Store.ImportScores(context.Background(), k.Dataset, "partial", rows); err != nil {
		t.Fatal(err)
	}
	setFormField(t, a, runtab.FieldName, "partial")
	press(a, "5", "f")
	if a.fit.Err() != nil || a.fit.Report() == nil || a.fit.Key().Judge != "partial" {
		t.Fatalf("fit: err %v, key %+v", a.fit.Err(), a.fit.Key())
	}
	if len(a.fit.Report().Baselines) != 0 {
		t.Errorf("baselines %v: want none", a.fit.Report().Baselines)
	}
	if text := strings.Join(a.fit.Warnings(), "\n"); !strings.Contains(text, "rubric baselines left out: ") {
		t.Errorf("warnings lack the baselines' reason:\n%s", text)
	}
}

// studyless is rep without its Study, which the independent fit of
// wantFit does not make, once the Study is checked to name key's study.
func studyless(t testing.TB, rep *calib.Report, key studyKey) *calib.Report {
	t.Helper()
	// An imported judge's study has no bank.
	if s := rep.Study; s == nil || s.Dataset != key.Dataset || s.Judge != key.Judge || (s.BankHash != key.BankHash && s.Backend != store.ImportBackend) {
		t.Fatalf("the report's study %+v is not %+v", rep.Study, key)
	}
	out := *rep
	out.Study = nil
	return &out
}
