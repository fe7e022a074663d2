package ui

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	runtab "github.com/prism-eval/prism/ui/tabs/run"

	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/ui/tab"
	"github.com/prism-eval/prism/ui/tabs/inspect"
	"github.com/prism-eval/prism/ui/widgets"
)

// The Inspect tab's numbers, recomputed here from the stored scores
// without calib's design: s0 and s± are means over wordings and runs, the
// terms use Δ centered in the context and the PRISM β of the fold that
// tested the context, ŷ = s0 − Σ terms, and the ranks are mid-ranks.
func TestInspectMatchesStoredScores(t *testing.T) {
	t.Parallel()
	a, rep := fittedDemo(t, 160, 48)
	for c, n := range rep.Imputed {
		if n > 0 {
			t.Fatalf("the demo screen left imputed cells: %s %d", c, n)
		}
	}
	press(a, "1", "down", "right", "down", "enter")
	if a.tab != tab.Inspect || a.insp.Busy() || a.insp.Err() != nil {
		t.Fatalf("inspect: screen %d, busy %v, err %v", a.tab, a.insp.Busy(), a.insp.Err())
	}
	c, cand := a.data.Context(), a.data.Candidate()
	k, _ := a.currentKey()
	rows, err := a.study.Store.Scores(context.Background(), k.Dataset, k.Judge, k.BankHash)
	if err != nil {
		t.Fatal(err)
	}
	// Means per candidate and probe within the context.
	sum, cnt := map[[2]string]float64{}, map[[2]string]int{}
	for _, r := range rows {
		if r.Context == c.ID && !r.Missing {
			sum[[2]string{r.Candidate, r.Probe}] += r.Score
			cnt[[2]string{r.Candidate, r.Probe}]++
		}
	}
	mean := func(cand, probe string) float64 {
		return sum[[2]string{cand, probe}] / float64(cnt[[2]string{cand, probe}])
	}
	var fold int
	var beta map[string]float64
	for _, f := range rep.Folds {
		if slices.Contains(f.TestContexts, c.ID) {
			fold, beta = f.Fold, f.PRISM.Beta
		}
	}
	// Column values J (Δ+ = s+ − s0, Δ− = s0 − s−) per candidate, then
	// centered over the context's candidates.
	colVal := func(cand, col string) float64 {
		s0 := mean(cand, "baseline")
		if strings.HasSuffix(col, ":+") {
			return mean(cand, col) - s0
		}
		return s0 - mean(cand, col)
	}
	yhat := map[string]float64{}
	var s0s, yhats, humans []float64
	for _, o := range c.Candidates {
		y := mean(o.ID, "baseline")
		for _, col := range rep.Columns {
			m := 0.0
			for _, p := range c.Candidates {
				m += colVal(p.ID, col)
			}
			m /= float64(len(c.Candidates))
			y -= (colVal(o.ID, col) - m) * beta[col]
		}
		yhat[o.ID] = y
		s0s, yhats, humans = append(s0s, mean(o.ID, "baseline")), append(yhats, y), append(humans, o.Human)
	}
	i := slices.IndexFunc(c.Candidates, func(o model.Candidate) bool { return o.ID == cand.ID })
	n := len(c.Candidates)
	f := frame(a)
	for _, want := range []string{
		fmt.Sprintf("human %s · s0 %s · PRISM ŷ %s", widgets.Num(cand.Human), widgets.Num(mean(cand.ID, "baseline")), widgets.Num(yhat[cand.ID])),
		fmt.Sprintf("rank in context: human %s · before %s · after %s",
			widgets.Rank(inspect.MidRankDesc(humans, i), n), widgets.Rank(inspect.MidRankDesc(s0s, i), n), widgets.Rank(inspect.MidRankDesc(yhats, i), n)),
		fmt.Sprintf("outer fold %d,", fold),
	} {
		if !strings.Contains(f, want) {
			t.Errorf("inspect lacks %q:\n%s", want, f)
		}
	}
	for _, attr := range rep.Attributes {
		s0 := mean(cand.ID, "baseline")
		want := fmt.Sprintf("%s %s %s %s", widgets.Num(mean(cand.ID, attr+":+")), widgets.Num(mean(cand.ID, attr+":-")),
			widgets.SignedNum(mean(cand.ID, attr+":+")-s0), widgets.SignedNum(s0-mean(cand.ID, attr+":-")))
		if line := strings.Join(strings.Fields(paneRow(f, 1, attr+" ")), " "); !strings.HasPrefix(line, attr+" "+want+" ") {
			t.Errorf("row of %s %q, want %q", attr, line, want)
		}
	}
	press(a, "esc")
	if a.tab != tab.Data {
		t.Errorf("esc went to screen %d, want the Data tab", a.tab)
	}
}

// Golden frames of the Inspect tab on a candidate of the screened,
// fitted demo.
func TestGoldenInspect(t *testing.T) {
	t.Parallel()
	a := fixtureApp(t, fixtureScreened, goldenSizes[0][0], goldenSizes[0][1])
	press(a, "5", "f", "1", "down", "right", "down", "enter")
	g := goldenFrames{}
	g.capture(a, "")
	g.check(t)
}

// ] and [ step the Inspect tab through the candidates of the context,
// the Data tab following; at either end they stay, and esc still
// returns to where Inspect was opened.
func TestInspectStep(t *testing.T) {
	t.Parallel()
	a, _ := fittedDemo(t, 100, 30)
	press(a, "1", "down", "right", "down", "enter")
	c := a.data.Context()
	for _, tc := range []struct {
		key  string
		want int
	}{{"]", 2}, {"[", 1}, {"[", 0}, {"[", 0}, {"]", 1}} {
		press(a, tc.key)
		want := c.Candidates[tc.want].ID
		if ins := a.insp.Inspection(); ins == nil || ins.Context != c.ID || ins.Cand != want || a.insp.Busy() {
			t.Fatalf("after %s: inspecting %+v, want %s/%s", tc.key, ins, c.ID, want)
		}
		if a.data.Candidate().ID != want {
			t.Errorf("after %s: Data tab on %s, want %s", tc.key, a.data.Candidate().ID, want)
		}
		if !strings.Contains(frame(a), "Inspect · "+c.ID+" / "+want) {
			t.Errorf("after %s: frame lacks the candidate", tc.key)
		}
	}
	last := len(c.Candidates) - 1
	press(a, "G") // scroll, not step
	for range last + 2 {
		press(a, "]")
	}
	if a.insp.Inspection().Cand != c.Candidates[last].ID {
		t.Errorf("] past the end: %s, want the last %s", a.insp.Inspection().Cand, c.Candidates[last].ID)
	}
	press(a, "esc")
	if a.tab != tab.Data {
		t.Errorf("esc went to screen %d, want Data", a.tab)
	}
}

// Inspect never silently shows another study's fit: when the Run form
// names another judge it is marked stale, and f fits that judge and
// inspects the same candidate on it; new answers mark it stale too.
func TestInspectFollowsTheStudy(t *testing.T) {
	t.Parallel()
	a := twoJudgeDemo(t, 120, 40)
	press(a, "5", "f", "1", "down", "right", "down", "enter")
	ins := a.insp.Inspection()
	if ins == nil || ins.Key.Judge != "offline" || !ins.Fitted || a.insp.Stale() != "" {
		t.Fatalf("inspection %+v, stale %q", ins, a.insp.Stale())
	}
	if f := frame(a); !strings.Contains(f, "judge offline · bank") {
		t.Errorf("the Inspect tab does not name its judge:\n%s", f)
	}
	setFormField(t, a, runtab.FieldName, "swapped")
	press(a, "7")
	if f := paneText(frame(a)); !strings.Contains(f, "the study is now judge swapped") {
		t.Errorf("Inspect of judge offline not marked stale after the study named judge swapped:\n%s", f)
	}
	press(a, "f")
	ins = a.insp.Inspection()
	if ins == nil || ins.Key.Judge != "swapped" || !ins.Fitted || ins.Fold == 0 || a.fit.Key().Judge != "swapped" {
		t.Fatalf("after f on Inspect: inspection %+v, fit of %q", ins, a.fit.Key().Judge)
	}
	if f := frame(a); strings.Contains(f, "the study is now") || !strings.Contains(f, "judge swapped · bank") {
		t.Errorf("after f, Inspect does not show the swapped judge's fit, fresh:\n%s", f)
	}
	// The swapped judge's Δ+ is the first judge's −Δ−.
	if len(ins.Attrs) == 0 {
		t.Fatal("no attributes inspected")
	}
	// A fit on the Fit tab of the other judge brings Inspect along.
	setFormField(t, a, runtab.FieldName, "")
	press(a, "5", "f", "7")
	if ins := a.insp.Inspection(); ins == nil || ins.Key.Judge != "offline" || a.insp.Stale() != "" {
		t.Errorf("after fitting judge offline on the Fit tab, Inspect shows %+v (stale %q)", ins, a.insp.Stale())
	}
}

// Inspect's arithmetic visibly adds up (issue 46): s± = s0 ± Δ± in the
// two decimals s0 is printed in, and the printed terms sum to the printed
// Σ, and s0 − Σ to ŷ, within the last of the four decimals printed.
func TestInspectArithmeticAddsUp(t *testing.T) {
	t.Parallel()
	a, _ := fittedDemo(t, 160, 48)
	press(a, "1", "down", "right", "down", "enter")
	var cells []string
	for _, ln := range strings.Split(frame(a), "\n") {
		if parts := strings.Split(ln, "││"); len(parts) > 1 {
			cells = append(cells, strings.TrimSpace(strings.Trim(parts[1], "│")))
		}
	}
	num := func(s string) float64 {
		t.Helper()
		var f float64
		if _, err := fmt.Sscan(strings.ReplaceAll(s, "−", "-"), &f); err != nil {
			t.Fatalf("not a number %q: %v", s, err)
		}
		return f
	}
	var s0, terms, sum, yhat float64
	rows, inTerms := 0, false
	for _, c := range cells {
		f := strings.Fields(c)
		switch {
		case strings.HasPrefix(c, "human ") && len(f) >= 5:
			s0 = num(f[4])
		case strings.HasPrefix(c, "attr "):
			inTerms = true
		case strings.HasPrefix(c, "ŷ = s0"):
			// ŷ = s0 − Σ term = S0 − (SUM) = YHAT
			if len(f) < 12 {
				t.Fatalf("the sum line %q", c)
			}
			if got := num(f[7]); math.Abs(got-s0) > 0.005+1e-9 {
				t.Errorf("the sum's s0 %s is not the s0 printed above, %.2f", f[7], s0)
			}
			s0, sum, yhat = num(f[7]), num(strings.Trim(f[9], "()")), num(f[11])
			inTerms = false
		case inTerms && len(f) == 6: // attr s+ s− Δ+ Δ− term
			if d := math.Abs(s0 + num(f[3]) - num(f[1])); d > 0.01+1e-9 {
				t.Errorf("%s: s0 %.2f + Δ+ %s ≠ s+ %s", f[0], s0, f[3], f[1])
			}
			if d := math.Abs(s0 - num(f[4]) - num(f[2])); d > 0.01+1e-9 {
				t.Errorf("%s: s0 %.2f − Δ− %s ≠ s− %s", f[0], s0, f[4], f[2])
			}
			terms += num(f[5])
			rows++
		case inTerms && len(f) == 2: // a context column's term
			terms += num(f[1])
			rows++
		}
	}
	if rows == 0 {
		t.Fatalf("no terms:\n%s", strings.Join(cells, "\n"))
	}
	if d := math.Abs(terms - sum); d > 1e-4+1e-9 {
		t.Errorf("the %d printed terms sum to %.4f, the printed Σ is %.4f", rows, terms, sum)
	}
	if d := math.Abs(s0 - sum - yhat); d > 1e-4+1e-9 {
		t.Errorf("printed s0 %.4f − Σ %.4f ≠ printed ŷ %.4f", s0, sum, yhat)
	}
}

// Inspect opened by its key shows the Data tab's candidate (issue 46):
// the first of the dataset on a fresh start, the one selected after
// moving; ] and [ step from there, and esc returns to the Data tab.
func TestInspectOpensOnSelection(t *testing.T) {
	t.Parallel()
	a, _ := fittedDemo(t, 100, 30)
	first := a.study.Dataset.Contexts[0]
	press(a, "7")
	if ins := a.insp.Inspection(); ins == nil || a.insp.Busy() || ins.Context != first.ID || ins.Cand != first.Candidates[0].ID {
		t.Fatalf("7 on a fresh start: inspecting %+v, err %v, want %s/%s", ins, a.insp.Err(), first.ID, first.Candidates[0].ID)
	}
	press(a, "1", "down", "right", "down", "7")
	c, cand := a.data.Context(), a.data.Candidate()
	if ins := a.insp.Inspection(); ins == nil || ins.Context != c.ID || ins.Cand != cand.ID {
		t.Fatalf("7 after selecting %s/%s: inspecting %+v", c.ID, cand.ID, ins)
	}
	if !strings.Contains(frame(a), "Inspect · "+c.ID+" / "+cand.ID) {
		t.Errorf("the frame lacks the candidate:\n%s", frame(a))
	}
	press(a, "]")
	if ins := a.insp.Inspection(); ins == nil || ins.Cand != c.Candidates[2].ID {
		t.Errorf("] from %s: inspecting %+v, want %s", cand.ID, ins, c.Candidates[2].ID)
	}
	press(a, "esc")
	if a.tab != tab.Data || a.data.Candidate().ID != c.Candidates[2].ID {
		t.Errorf("esc went to screen %d on %s", a.tab, a.data.Candidate().ID)
	}
}
