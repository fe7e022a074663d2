package budget

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/prism-eval/prism/calib"

	"github.com/prism-eval/prism/calib/internal/calibtest"

	"github.com/prism-eval/prism/model"
)

// synthWordings is synth with every probe row asked in two wordings, the
// second with its own call noise.
func synthWordings(nctx, ncand, K int, seed uint64) ([]model.ScoreRow, []model.Label) {
	rows, labels := calibtest.Synth(nctx, ncand, K, seed)
	rng := rand.New(rand.NewPCG(seed, 11))
	var out []model.ScoreRow
	for _, r := range rows {
		if r.Probe == model.ProbeBaseline {
			out = append(out, r)
			continue
		}
		for w := 0; w < 2; w++ {
			c := r
			c.Wording = strconv.Itoa(w)
			if w == 1 {
				c.Score += 0.1 * rng.NormFloat64()
			}
			out = append(out, c)
		}
	}
	return out, labels
}

func budgetOf(t testing.TB, rows []model.ScoreRow, labels []model.Label, opts Options) *Report {
	t.Helper()
	r, _, err := Evaluate(context.Background(), rows, labels, opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func pointOf(r *Report, family string, tau float64) *Point {
	for i := range r.Points {
		p := &r.Points[i]
		if p.Family == family && (p.Tau == nil || *p.Tau == tau) {
			return p
		}
	}
	return nil
}

// TestBudgetEnds: the full bank and Vanilla are Fit's PRISM and Vanilla
// means; the adaptive policy that never stops early is the full bank, and
// one that always stops after the baseline is Vanilla, with their calls.
func TestBudgetEnds(t *testing.T) {
	rows, labels := synthWordings(30, 6, 3, 3)
	opts := DefaultOptions()
	opts.Bootstrap = 50
	opts.Taus = []float64{0, 1e9}
	fit, _, err := calib.Fit(context.Background(), rows, labels, opts.Options)
	if err != nil {
		t.Fatal(err)
	}
	r := budgetOf(t, rows, labels, opts)
	full, van := pointOf(r, FamilyFull, 0), pointOf(r, FamilyVanilla, 0)
	if !calibtest.Near(full.Mean, fit.Methods.PRISM.Mean, 1e-12) || !calibtest.Near(van.Mean, fit.Methods.Vanilla.Mean, 1e-12) {
		t.Errorf("full %.15f vanilla %.15f; fit PRISM %.15f vanilla %.15f", full.Mean, van.Mean, fit.Methods.PRISM.Mean, fit.Methods.Vanilla.Mean)
	}
	// 1 baseline call, 3 attributes × 2 signs × 2 wordings.
	if r.BaseCalls != 1 || r.FullCalls != 13 || full.Calls != 13 || van.Calls != 1 || full.ProbeCalls != 12 {
		t.Errorf("calls: base %v full %v; points full %v vanilla %v", r.BaseCalls, r.FullCalls, full.Calls, van.Calls)
	}
	never, always := pointOf(r, FamilyAdaptive, 0), pointOf(r, FamilyAdaptive, 1e9)
	// τ = 0 stops only a candidate whose risk underflows to 0 (its order
	// against every other is settled beyond doubt), so it ranks as the
	// full bank.
	if !calibtest.Near(never.Mean, full.Mean, 1e-12) || never.Calls > 13 || never.Calls < 1 {
		t.Errorf("τ=0: mean %.15f calls %v; full %.15f", never.Mean, never.Calls, full.Mean)
	}
	if !calibtest.Near(always.Mean, van.Mean, 1e-12) || always.Calls != 1 {
		t.Errorf("τ=∞: mean %.15f calls %v; vanilla %.15f", always.Mean, always.Calls, van.Mean)
	}
	if full.VsFull != 0 || full.VsFullCI != [2]float64{} {
		t.Errorf("full vs itself: %v %v", full.VsFull, full.VsFullCI)
	}
	if !r.Wordings || pointOf(r, FamilyOneWording, 0) == nil {
		t.Fatal("no one-wording points")
	}
	// The first wording of the full bank costs 1 + 6 calls.
	var ow *Point
	for i := range r.Points {
		if p := &r.Points[i]; p.Family == FamilyOneWording && p.Size == 6 {
			ow = p
		}
	}
	if ow == nil || ow.Calls != 7 {
		t.Fatalf("one-wording full bank: %+v", ow)
	}
}

// TestBudgetTrainingOnly: each fold's policy is learned from its training
// contexts alone, so changing the human scores of fold 0's test contexts
// leaves fold 0's policy bit-identical (and changes fold 1's).
func TestBudgetTrainingOnly(t *testing.T) {
	rows, labels := calibtest.Synth(30, 6, 3, 9)
	opts := DefaultOptions()
	opts.Bootstrap = 20
	opts.Taus = []float64{0.1}
	a := budgetOf(t, rows, labels, opts)
	test := map[string]bool{}
	for _, c := range a.Order[:a.FoldSizes[0]] {
		test[c] = true
	}
	changed := append([]model.Label(nil), labels...)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range changed {
		if test[changed[i].Context] {
			changed[i].Human = rng.NormFloat64()
		}
	}
	b := budgetOf(t, rows, changed, opts)
	ja, _ := json.Marshal(a.Policies[0])
	jb, _ := json.Marshal(b.Policies[0])
	if string(ja) != string(jb) {
		t.Errorf("fold 0's policy changed with its test labels")
	}
	j1a, _ := json.Marshal(a.Policies[1])
	j1b, _ := json.Marshal(b.Policies[1])
	if string(j1a) == string(j1b) {
		t.Errorf("fold 1's policy ignored its training labels")
	}
}

// TestBudgetDeterministic: equal inputs give byte-equal reports.
func TestBudgetDeterministic(t *testing.T) {
	rows, labels := synthWordings(20, 5, 3, 4)
	opts := DefaultOptions()
	opts.Bootstrap = 30
	a, _ := json.Marshal(budgetOf(t, rows, labels, opts))
	b, _ := json.Marshal(budgetOf(t, rows, labels, opts))
	if string(a) != string(b) {
		t.Error("two evaluations differ")
	}
}
