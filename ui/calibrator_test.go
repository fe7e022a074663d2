package ui

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/ui/tab"
	"github.com/prism-eval/prism/ui/widgets"
)

// rightPane is the text of the right pane of a two-pane frame, its rows
// joined by spaces and blanks collapsed, so that wrapped lines read whole.
// A line that ends in a hyphen (wrap breaks there) joins the next
// without a space.
func rightPane(f string) string {
	var b strings.Builder
	for _, ln := range strings.Split(f, "\n") {
		if _, right, ok := strings.Cut(ln, "││"); ok {
			right = strings.Join(strings.Fields(strings.TrimSuffix(right, "│")), " ")
			if b.Len() > 0 && !strings.HasSuffix(b.String(), "-") {
				b.WriteString(" ")
			}
			b.WriteString(right)
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// One fit of the screened demo serves the whole calibrator flow:
//
//   - S on the Fit tab saves the PRISM calibrator of the fit: the file
//     is one calib.ReadCalibrator accepts, and its γ and β are those of
//     calib.NewCalibrator on a design built here from the workspace's
//     answers and the screen's report (TestFitScreenMatchesFit checks that
//     report against calib.Fit); a second save to the same path asks first;
//   - L on the Data tab loads it and applies it to the demo dataset:
//     the candidate rows show Apply's baseline, corrected score and ranks,
//     with the transfer line and the in-sample note (the demo is the
//     calibrator's own training data);
//   - Inspect shows the candidate's terms under it, largest first;
//   - an edited copy of the file is refused with an error naming the file
//     and the field, and the loaded calibrator stays as it was.
func TestCalibratorFlow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := fixtureApp(t, fixtureScreened, goldenSizes[0][0], goldenSizes[0][1])
	press(a, "5", "S")
	if _, _, saving := a.fit.Saving(); saving || !fitStatusErr(a) || !strings.Contains(frame(a), "no calibrator to save yet: f fits first") {
		t.Fatalf("S before a fit: input %v, status %q", saving, fitStatus(a))
	}
	press(a, "f")
	if a.fit.Report() == nil || a.fit.Design() == nil {
		t.Fatalf("fit: %v", a.fit.Err())
	}
	rows, labels := screenedInput(t, a)
	k := a.fit.Key()

	// Save: the default path names the judge and the method.
	press(a, "S")
	if path, _, saving := a.fit.Saving(); !saving || path != "prism-calibrator-offline-prism.json" {
		t.Fatalf("S: input %v %q", saving, path)
	}
	if !strings.Contains(frame(a), "save prism calibrator to: ") {
		t.Errorf("the path prompt is not drawn:\n%s", frame(a))
	}
	// tab goes through the fit's methods (not Vanilla), the path following.
	press(a, "tab")
	if path, m, _ := a.fit.Saving(); m != calib.AlphaPRISM || path != "prism-calibrator-offline-alpha_prism.json" {
		t.Errorf("tab: method %v, path %q", m, path)
	}
	press(a, "tab", "tab")
	if _, m, _ := a.fit.Saving(); m != calib.PRISM || a.tab != tab.Fit {
		t.Errorf("tab ×3: method %v, screen %d", m, a.tab)
	}
	path := filepath.Join(t.TempDir(), "prism-calibrator-offline-prism.json")
	press(a, "ctrl+u")
	typeText(a, path)
	press(a, "enter")
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("status %q: %v", fitStatus(a), err)
	}
	got, err := calib.ReadCalibrator(f, path)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	d, _, err := calib.BuildDesign(rows, labels, calib.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := calib.NewCalibrator(ctx, d, a.fit.Report(), a.fit.Options(), calib.PRISM)
	if err != nil {
		t.Fatal(err)
	}
	if got.Method != "prism" || got.Gamma.Value != want.Gamma.Value || !slices.Equal(got.Beta, want.Beta) || !slices.Equal(got.Columns, want.Columns) {
		t.Errorf("saved %s γ %g β %v, want prism γ %g β %v", got.Method, got.Gamma.Value, got.Beta, want.Gamma.Value, want.Beta)
	}
	if got.Judge == nil || got.Judge.Name != k.Judge || got.Judge.Backend != "offline" || got.Bank == nil || got.Bank.Hash != k.BankHash ||
		got.Training.Dataset != "demo" || !strings.Contains(got.Training.Source, "dataset demo, judge offline") || got.PrismVersion == "" {
		t.Errorf("provenance: judge %+v bank %v training %+v version %q", got.Judge, got.Bank != nil, got.Training, got.PrismVersion)
	}
	if wantStatus := fmt.Sprintf("saved calibrator %s (prism, γ %g)", path, want.Gamma.Value); fitStatus(a) != wantStatus || fitStatusErr(a) {
		t.Errorf("status %q, want %q", fitStatus(a), wantStatus)
	}
	// The same path again asks before replacing; n keeps the file.
	before, _ := os.ReadFile(path)
	press(a, "S", "ctrl+u")
	typeText(a, path)
	press(a, "enter")
	if _, ok := a.modal.(tabDialog); !ok {
		t.Fatalf("saving over %s did not ask (modal %T, status %q)", path, a.modal, fitStatus(a))
	}
	press(a, "n")
	if after, _ := os.ReadFile(path); a.modal != nil || string(after) != string(before) {
		t.Errorf("n: modal %T, file changed %v", a.modal, string(after) != string(before))
	}

	// Load on the Data tab: the path offered is the one just saved.
	press(a, "1", "L")
	if got, ok := a.data.Loading(); !ok || got != path {
		t.Fatalf("L: input %q", got)
	}
	press(a, "enter")
	p := a.cal.app
	if a.cal.cal == nil || a.cal.loadErr != nil || p == nil || p.scored == nil || p.err != nil {
		t.Fatalf("load: cal %v, err %v, application %+v", a.cal.cal != nil, a.cal.loadErr, p)
	}
	ref, err := want.Apply(rows, labels, calib.ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ref.Rows) != len(p.scored.Rows) {
		t.Fatalf("applied %d rows, want %d", len(p.scored.Rows), len(ref.Rows))
	}
	for i, r := range ref.Rows {
		g := p.scored.Rows[i]
		if g.Context != r.Context || g.Candidate != r.Candidate || g.Corrected != r.Corrected || g.RankAfter != r.RankAfter || !slices.Equal(g.Terms, r.Terms) {
			t.Fatalf("row %d: %+v, want %+v", i, g, r)
		}
	}
	if ref.Transfer == nil || ref.Transfer.InSample == 0 || *p.scored.Transfer != *ref.Transfer {
		t.Fatalf("transfer %+v, want %+v (in-sample)", p.scored.Transfer, ref.Transfer)
	}
	fr := frame(a)
	c := a.data.Context()
	for _, cand := range c.Candidates {
		r := ref.Rows[slices.IndexFunc(ref.Rows, func(r calib.ScoredRow) bool { return r.Context == c.ID && r.Candidate == cand.ID })]
		if line := paneRow(fr, 1, cand.ID+" "); !strings.Contains(line, calRowText(&r)) {
			t.Errorf("row of %s %q lacks %q", cand.ID, line, calRowText(&r))
		}
	}
	right := rightPane(fr)
	for _, s := range []string{transferText(ref.Transfer), inSampleText(ref.Transfer), "calibrator prism-calibrator-offline-prism.json · prism · γ"} {
		if !strings.Contains(right, s) {
			t.Errorf("the Data tab lacks %q:\n%s", s, fr)
		}
	}
	g := goldenFrames{}
	g.capture(a, "data")

	// Inspect: the terms of the candidate, largest |term| first.
	press(a, "right", "down", "enter")
	ins := a.insp.Inspection()
	if a.tab != tab.Inspect || ins == nil {
		t.Fatalf("inspect: screen %d, %v", a.tab, a.insp.Err())
	}
	r := p.row(ins.Context, ins.Cand)
	if r == nil {
		t.Fatalf("no applied row for %s/%s", ins.Context, ins.Cand)
	}
	a.Update(tea.WindowSizeMsg{Width: 160, Height: 60})
	fr = frame(a)
	n := p.ctxN[ins.Context]
	if s := fmt.Sprintf("corrected %.4f · rank %s → %s", r.Corrected, widgets.Rank(r.RankBefore, n), widgets.Rank(r.RankAfter, n)); !strings.Contains(fr, s) {
		t.Errorf("inspect lacks %q:\n%s", s, fr)
	}
	_, terms, ok := strings.Cut(fr, "│ unit ")
	if !ok {
		t.Fatalf("no calibrator terms on Inspect:\n%s", fr)
	}
	top, topAbs := "", -1.0
	for i, u := range p.scored.Units {
		if math.Abs(r.Terms[i]) > topAbs {
			top, topAbs = u, math.Abs(r.Terms[i])
		}
		if line := paneRow(terms, 1, u+" "); !strings.HasSuffix(line, " "+widgets.Fixed4(r.Terms[i])) {
			t.Errorf("term row of %s %q, want %s", u, line, widgets.Fixed4(r.Terms[i]))
		}
	}
	if first := strings.Fields(paneText(strings.SplitN(terms, "\n", 3)[1])); len(first) < 2 || first[len(first)-2] != top {
		t.Errorf("first term row %v, want the largest |term| %s", first, top)
	}
	g.capture(a, "inspect")
	g.check(t)

	// An edited file: refused, naming the file and the field; nothing changes.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "edited.json")
	edited := strings.Replace(string(data), `"method": "prism"`, `"method": "half"`, 1)
	if edited == string(data) {
		t.Fatal("no method field to edit")
	}
	if err := os.WriteFile(bad, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	loaded, applied := a.cal.cal, a.cal.app
	press(a, "esc", "L", "ctrl+u")
	typeText(a, bad)
	press(a, "enter")
	if a.cal.loadErr == nil || !strings.Contains(a.cal.loadErr.Error(), bad) || !strings.Contains(a.cal.loadErr.Error(), `field "checksum"`) {
		t.Fatalf("edited file: error %v", a.cal.loadErr)
	}
	if a.cal.cal != loaded || a.cal.app != applied || a.cal.path != path || a.data.Calibrated() == nil {
		t.Errorf("a refused file changed the loaded calibrator: %s", a.cal.path)
	}
	a.Update(tea.WindowSizeMsg{Width: 160, Height: 48}) // a long temporary path fits a line
	if right := rightPane(frame(a)); !strings.Contains(right, "calibrator not loaded: "+bad) || !strings.Contains(right, `field "checksum"`) {
		t.Errorf("the error is not shown:\n%s", frame(a))
	}

	// A calibrator of another judge configuration is applied, with a
	// warning naming the difference; one of a judge without answers here
	// says how to get them.
	for _, tc := range []struct {
		edit func(*calib.JudgeSnapshot)
		want []string
	}{
		{func(j *calib.JudgeSnapshot) { j.Model = "gpt-x"; j.Runs = 3 },
			[]string{"fitted on another judge configuration: model: gpt-x (calibrator) vs \"\"; runs: 3 (calibrator) vs 2", "transfer (spearman, 12 contexts)"}},
		{func(j *calib.JudgeSnapshot) { j.Name = "nobody" },
			[]string{"the workspace has no answers of judge nobody under the calibrator's bank", "prism score --calibrator "}},
	} {
		cp := *got
		js := *got.Judge
		tc.edit(&js)
		cp.Judge = &js
		data, err := cp.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		other := filepath.Join(t.TempDir(), "other.json")
		if err := os.WriteFile(other, data, 0o644); err != nil {
			t.Fatal(err)
		}
		press(a, "L", "ctrl+u")
		typeText(a, other)
		press(a, "enter")
		right := rightPane(frame(a))
		for _, w := range tc.want {
			if !strings.Contains(right, w) {
				t.Errorf("%s: the Data tab lacks %q:\n%s", js.Name, w, frame(a))
			}
		}
	}
}
