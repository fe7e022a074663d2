package ui

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/prism-eval/prism/calib/figures"
	runtab "github.com/prism-eval/prism/ui/tabs/run"

	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/model"
)

// formTo puts the Run form's cursor on the field key, showing the form
// first when the Run tab shows a study's answers.
func formTo(t *testing.T, a *App, key string) {
	t.Helper()
	press(a, "3")
	if !a.run.FormShown() {
		press(a, "e")
	}
	press(a, "g") // the first field
	for i := 0; a.run.Field() != key; i++ {
		if i > 2*len(a.run.Fields()) {
			t.Fatalf("no form field %q", key)
		}
		press(a, "down")
	}
}

// chooseStudy sets the Run form's study field to name (the bank or a
// built-in rubric) with the keys a user presses: enter cycles it.
func chooseStudy(t *testing.T, a *App, name string) {
	t.Helper()
	formTo(t, a, runtab.FieldStudy)
	for i := 0; a.run.Value(runtab.FieldStudy) != name; i++ {
		if i > len(banks.BuiltinRubrics())+1 {
			t.Fatalf("the study field has no choice %q", name)
		}
		press(a, "enter")
	}
	if a.run.Plan() == nil {
		t.Fatalf("no estimate for %s: %v", name, a.run.PlanErr())
	}
}

// countJudges makes a's runs count how often their judges are built (once
// per started run) around the default factory.
func countJudges(a *App) *int {
	n := new(int)
	a.newJudges = func(p *engine.Plan, lim *engine.Limiter) ([]judge.Judge, error) {
		*n++
		return engine.PlanJudges(p, lim)
	}
	return n
}

// storedRatings counts the ratings the workspace holds of a rubric plan's
// study per probe: scored and missing cells alike.
func storedRatings(t *testing.T, a *App, p *engine.Plan) map[string]int {
	t.Helper()
	rows, err := a.study.Store.Scores(context.Background(), p.Spec.Dataset.Name, p.Spec.JudgeName, p.BankHash)
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, r := range rows {
		n[r.Probe]++
	}
	return n
}

// checkRatings checks that the workspace holds cands ratings of every
// criterion of rubric name, under its probes and nothing else.
func checkRatings(t *testing.T, a *App, name string, cands int) {
	t.Helper()
	p := a.run.RunPlan()
	if p == nil || !p.IsRubric() || p.Spec.Rubric.Name != name {
		t.Fatalf("the last run's plan is not rubric %s's: %+v", name, p)
	}
	r, err := banks.BuiltinRubric(name)
	if err != nil {
		t.Fatal(err)
	}
	got := storedRatings(t, a, p)
	if len(got) != len(r.Criteria) {
		t.Errorf("%d probes stored, want %d criteria: %v", len(got), len(r.Criteria), got)
	}
	for _, c := range r.Criteria {
		if pr := model.RubricProbe(name, c.Name); got[pr] != cands {
			t.Errorf("%s: %d ratings, want %d", pr, got[pr], cands)
		}
	}
}

// A SAJA study starts from the Run tab like a bank's: the estimate
// gives its budget per candidate, the run rates every criterion of every
// candidate under the judge's name, and a second start sends nothing. The
// Fit tab's report is then stale, and a refit has the SAJA row.
func TestRunRubricSAJA(t *testing.T) {
	t.Parallel()
	a := fixtureApp(t, fixtureScreened, 160, 48)
	built := countJudges(a)
	press(a, "5", "f")
	if a.fit.Report() == nil || a.fit.Err() != nil {
		t.Fatalf("fit: %v", a.fit.Err())
	}
	if len(a.fit.Report().Baselines) != 0 || a.fit.Stale() != "" {
		t.Fatalf("fit before the study: baselines %v, stale %q", a.fit.Report().Baselines, a.fit.Stale())
	}
	press(a, "8", "c")
	if a.cmp.Err() != nil || a.cmp.Stale() != "" {
		t.Fatalf("compare: %v, stale %q", a.cmp.Err(), a.cmp.Stale())
	}

	chooseStudy(t, a, "saja-broad")
	cands := a.study.Dataset.NumCandidates()
	crits := len(a.run.Plan().Spec.Rubric.Criteria)
	e := a.run.Plan().Estimate
	if e.Requests != crits*cands || e.Send != cands || e.Calls != cands {
		t.Fatalf("estimate %+v, want %d ratings in %d calls", e, crits*cands, cands)
	}
	f := frame(a)
	for _, want := range []string{"study        ‹saja-broad›", "rubric    saja-broad", "per cand  1 call(s)", "one call rates every criterion", "≈ 640 in · 36 out tokens",
		"ratings   480 · 0 answered", "to send   60 request(s) · 60 call(s)"} {
		if !strings.Contains(f, want) {
			t.Errorf("the estimate lacks %q:\n%s", want, f)
		}
	}
	if strings.Contains(f, "samples") {
		t.Errorf("a SAJA study shows G-Eval's samples:\n%s", f)
	}

	press(a, "s")
	lr := a.run.Live()
	if lr == nil || lr.Phase() != runtab.PhaseDone || lr.Err() != nil || lr.Rubric() == nil {
		t.Fatalf("run: %+v", lr)
	}
	if *built != 1 || (*lr.Progress()).Done != crits*cands || (*lr.Progress()).Failed != 0 {
		t.Fatalf("judges built %d times, done %d, failed %d", *built, (*lr.Progress()).Done, (*lr.Progress()).Failed)
	}
	checkRatings(t, a, "saja-broad", cands)
	f = frame(a)
	for _, want := range []string{"finished", "Ratings per criterion · saja-broad (saja)", "criterion", "rubric baseline saja_broad"} {
		if !strings.Contains(f, want) {
			t.Errorf("the dashboard lacks %q:\n%s", want, f)
		}
	}
	var scored int
	for _, c := range lr.Rubric().Criteria {
		rated, missing, _, _ := lr.Tally(c.Name)
		scored += rated + missing
	}
	if scored != crits*cands {
		t.Errorf("the criteria panel counts %d ratings, want %d", scored, crits*cands)
	}

	// Nothing left to send: s shows the stored ratings and sends nothing.
	before := storedRatings(t, a, a.run.RunPlan())
	press(a, "s")
	if *built != 1 || a.run.Handle() != nil || a.run.Live().Phase() != runtab.PhaseStored {
		t.Fatalf("second start: judges built %d times, active %v, phase %d", *built, a.run.Handle() != nil, a.run.Live().Phase())
	}
	if after := storedRatings(t, a, a.run.RunPlan()); len(after) != len(before) {
		t.Errorf("second start stored %v, had %v", after, before)
	}
	if f := frame(a); !strings.Contains(f, "stored") || !strings.Contains(f, "Ratings per criterion") {
		t.Errorf("the stored study's dashboard:\n%s", f)
	}
	if rated, missing, _, ok := a.run.Live().Tally("coherence"); !ok || rated+missing != cands {
		t.Errorf("the stored panel's coherence tally: %d rated, %d missing", rated, missing)
	}

	// The fits do not hold the new ratings: stale, and a refit has them.
	if s := a.fit.Stale(); !strings.Contains(s, "rubric ratings") {
		t.Errorf("fit stale %q, want new rubric ratings", s)
	}
	if s := a.cmp.Stale(); !strings.Contains(s, "rubric ratings") {
		t.Errorf("compare stale %q, want new rubric ratings", s)
	}
	press(a, "5")
	if f := frame(a); !strings.Contains(f, "new rubric ratings were stored since this fit") {
		t.Errorf("the Fit tab does not say it is stale:\n%s", f)
	}
	press(a, "f")
	if a.fit.Report() == nil || a.fit.Stale() != "" {
		t.Fatalf("refit: %v, stale %q", a.fit.Err(), a.fit.Stale())
	}
	if _, ok := a.fit.Report().Baselines["saja_broad"]; !ok || len(a.fit.Report().Baselines) != 1 {
		t.Fatalf("refit baselines %v, want saja_broad", a.fit.Report().Baselines)
	}
	if f := frame(a); !strings.Contains(f, "SAJA broad (RF)") || !strings.Contains(f, figures.GroupRubric) {
		t.Errorf("the refit's table has no SAJA row:\n%s", f)
	}
}

// G-Eval's N is the form's samples field, shown only for a G-Eval
// rubric: N = 2 makes each rating two sampled calls.
func TestRunRubricGEval(t *testing.T) {
	t.Parallel()
	a := demoApp(t, 120, 36)
	drive(a, a.Init())
	chooseStudy(t, a, "geval-summeval")
	if a.run.Plan().Samples() != engine.DefaultGEvalSamples {
		t.Fatalf("default N %d, want %d", a.run.Plan().Samples(), engine.DefaultGEvalSamples)
	}
	press(a, "down")
	if k := a.run.Field(); k != runtab.FieldSamples {
		t.Fatalf("the field after the study is %q, want samples", k)
	}
	press(a, "enter", "ctrl+u")
	typeText(a, "2")
	press(a, "enter")
	p := a.run.Plan()
	if p == nil || p.Samples() != 2 {
		t.Fatalf("plan after N=2: %+v, %v", p, a.run.PlanErr())
	}
	cands, crits := a.study.Dataset.NumCandidates(), len(p.Spec.Rubric.Criteria)
	if e := p.Estimate; e.Requests != crits*cands || e.Send != crits*cands || e.Calls != 2*crits*cands {
		t.Fatalf("estimate %+v", e)
	}
	f := frame(a)
	for _, want := range []string{"samples      2", "per cand  8 call(s)", "4 criteria × 2 sample(s) at", "temperature 1, top_p 1"} {
		if !strings.Contains(f, want) {
			t.Errorf("the form or estimate lacks %q:\n%s", want, f)
		}
	}
	press(a, "s")
	if lr := a.run.Live(); lr == nil || lr.Phase() != runtab.PhaseDone || lr.Err() != nil || (*lr.Progress()).Failed != 0 {
		t.Fatalf("run: %+v", a.run.Live())
	}
	checkRatings(t, a, "geval-summeval", cands)

	// Back to the bank: the samples field goes, keeping its value.
	chooseStudy(t, a, "bank")
	if slices.Contains(a.run.Fields(), runtab.FieldSamples) {
		t.Fatal("the bank study shows the samples field")
	}
	if a.run.Plan().IsRubric() || a.run.Value(runtab.FieldSamples) != "2" {
		t.Errorf("back to the bank: rubric plan %v, samples %q", a.run.Plan().IsRubric(), a.run.Value(runtab.FieldSamples))
	}
	// A bad N names the field.
	chooseStudy(t, a, "geval-summeval")
	formTo(t, a, runtab.FieldSamples)
	press(a, "enter", "ctrl+u")
	typeText(a, "0")
	press(a, "enter")
	if a.run.PlanErr() == nil || !strings.Contains(a.run.PlanErr().Error(), "samples") {
		t.Errorf("N = 0: plan error %v", a.run.PlanErr())
	}
}

// The Run form with a rubric chosen: SAJA's (no samples field) and
// G-Eval's (its N), with their estimates.
func TestGoldenRunRubric(t *testing.T) {
	t.Parallel()
	a := demoApp(t, goldenSizes[0][0], goldenSizes[0][1])
	drive(a, a.Init())
	var g goldenFrames
	chooseStudy(t, a, "saja-broad")
	g.capture(a, "saja")
	chooseStudy(t, a, "geval-summeval")
	g.capture(a, "geval")
	g.check(t)
}

// A rubric run pauses, resumes and cancels like a bank's, and the next
// start sends only what is left.
func TestRunRubricCancelResume(t *testing.T) {
	t.Parallel()
	a := demoApp(t, 100, 30)
	drive(a, a.Init())
	chooseStudy(t, a, "saja-broad")
	crits := len(a.run.Plan().Spec.Rubric.Criteria)
	gate(t, a, 5) // five SAJA calls: every criterion of five candidates
	_, cmd := a.Update(keyMsg("s"))
	a.Update(cmd()) // runStartedMsg
	run := a.run.Handle()
	if run == nil {
		t.Fatalf("run did not start: %v", a.run.Live().Err())
	}
	press(a, "p")
	if !run.Snapshot().Paused || !strings.Contains(frame(a), "paused") {
		t.Fatal("p did not pause the rubric run")
	}
	press(a, "p")
	// The resume's own progress event comes after every result sent
	// while paused: the loop ends on it.
	for p := a.run.Live().Progress(); p.Done < 5*crits || p.Paused; p = a.run.Live().Progress() {
		a.Update(runtab.Drain(run)())
	}
	if f := frame(a); !strings.Contains(f, "running") || !strings.Contains(f, "Ratings per criterion") {
		t.Fatalf("the live dashboard:\n%s", f)
	}
	press(a, "x")
	for a.run.Handle() != nil {
		_, cmd := a.Update(runtab.Drain(run)())
		if m, ok := cmd().(runtab.DoneMsg); ok {
			drive(a, func() tea.Msg { return m })
		}
	}
	if lr := a.run.Live(); lr.Summary() == nil || !lr.Summary().Canceled || (*lr.Progress()).Done != 5*crits || (*lr.Progress()).Failed != 0 {
		t.Fatalf("after cancel: %+v", (*lr.Progress()))
	}
	if k, _ := a.currentKey(); a.versions.Of(k.Rubric()) != 1 {
		t.Errorf("the canceled run's ratings did not count: %v", a.versions.Of(k.Rubric()))
	}
	e := a.run.Plan().Estimate
	cands := a.study.Dataset.NumCandidates()
	if !a.run.Plan().IsRubric() || e.Answered != 5*crits || e.Send != cands-5 {
		t.Fatalf("re-estimate after cancel: %+v", e)
	}
	a.newJudges = runtab.DefaultJudges
	press(a, "s")
	if lr := a.run.Live(); lr.Phase() != runtab.PhaseDone || lr.Err() != nil || (*lr.Progress()).Total != (cands-5)*crits {
		t.Fatalf("resumed run: %+v", (*lr.Progress()))
	}
	checkRatings(t, a, "saja-broad", cands)
}

// The judge form's ‹…› fields cycle with ← and → as their marks suggest
// (issue 46), both ways and around, and the focus stays on the form; on
// a text field → still moves to the right pane.
func TestRunFormChoiceArrows(t *testing.T) {
	t.Parallel()
	a := demoApp(t, 120, 36)
	drive(a, a.Init())
	formTo(t, a, runtab.FieldMode)
	start := a.run.Value(runtab.FieldMode)
	press(a, "right")
	next := a.run.Value(runtab.FieldMode)
	if next == start || a.run.FocusRight() {
		t.Fatalf("→ on score mode: %q → %q, focus right %v", start, next, a.run.FocusRight())
	}
	press(a, "left")
	if got := a.run.Value(runtab.FieldMode); got != start {
		t.Errorf("← did not go back: %q, want %q", got, start)
	}
	press(a, "left") // around: two choices
	if got := a.run.Value(runtab.FieldMode); got != next {
		t.Errorf("← from the first choice: %q, want the last %q", got, next)
	}
	formTo(t, a, runtab.FieldModel)
	press(a, "right")
	if !a.run.FocusRight() {
		t.Error("→ on a text field did not move to the right pane")
	}
}
