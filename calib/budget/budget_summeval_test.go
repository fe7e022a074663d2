package budget

import (
	"context"
	"testing"

	"github.com/prism-eval/prism/calib/internal/calibtest"
	"github.com/prism-eval/prism/calib/selection"

	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/model/datasets"
	"github.com/prism-eval/prism/model/shareddata"
)

// logBudget logs a report's curve and reach table.
func logBudget(t *testing.T, title string, r *Report) {
	t.Logf("%s: %d contexts × %d candidates; calls per candidate: baseline %.0f, full bank %.0f", title, r.NContexts, r.NCandidates, r.BaseCalls, r.FullCalls)
	for _, p := range r.Points {
		t.Logf("  %-26s calls %6.2f (probe %5.1f%%)  mean %.4f [%.4f, %.4f]  vs full %+.4f [%+.4f, %+.4f]  folds [%.3f, %.3f]",
			p.Label(), p.Calls, 100*p.Fraction, p.Mean, p.CI[0], p.CI[1], p.VsFull, p.VsFullCI[0], p.VsFullCI[1], minOf(p.FoldMeans), maxOf(p.FoldMeans))
	}
	for _, c := range r.Reach {
		if c.Point < 0 {
			t.Logf("  reach %-22s never within %.3f", c.Family, r.Tolerance)
			continue
		}
		t.Logf("  reach %-22s %s: probe calls %.2f (%.1f%%), mean %.4f, at most half: %v", c.Family, r.Points[c.Point].Label(), c.ProbeCalls, 100*c.Fraction, c.Mean, c.HalfOrLess)
	}
}

func minOf(x []float64) float64 {
	m := x[0]
	for _, v := range x {
		m = min(m, v)
	}
	return m
}

func maxOf(x []float64) float64 {
	m := x[0]
	for _, v := range x {
		m = max(m, v)
	}
	return m
}

// TestSummEvalOfflineBudget evaluates the budget curve on the real
// SummEval labels with the offline judge (quality bank, one run, two
// wordings per sign) in expected and integer modes and logs it (the
// figures of docs/budget.md). Asserted: the ends are Vanilla and the
// full bank as prism select computes them, the adaptive points spend
// fewer calls as τ grows, and every adaptive point spends less than the
// full bank.
func TestSummEvalOfflineBudget(t *testing.T) {
	if testing.Short() || calibtest.RaceEnabled {
		t.Skip("scores SummEval with the simulator; run without -short and -race")
	}
	d, err := datasets.Load("summeval", shareddata.Path(t, "summeval/data.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []judge.Mode{judge.ModeExpected, judge.ModeInteger} {
		rows, labels := calibtest.OfflineStudy(t, d, "quality", 1, mode)
		opts := DefaultOptions()
		r, _, err := Evaluate(context.Background(), rows, labels, opts)
		if err != nil {
			t.Fatal(err)
		}
		logBudget(t, "SummEval, quality bank, offline ("+string(mode)+")", r)
		sel, _, err := selection.Select(context.Background(), rows, labels, selection.Options{Options: opts.Options})
		if err != nil {
			t.Fatal(err)
		}
		if full := pointOf(r, FamilyFull, 0); !calibtest.Near(full.Mean, sel.Full.Mean, 1e-12) {
			t.Errorf("%s: full %.15f, select %.15f", mode, full.Mean, sel.Full.Mean)
		}
		last := r.FullCalls
		for _, p := range r.Points {
			if p.Family != FamilyAdaptive {
				continue
			}
			if p.Calls > last {
				t.Errorf("%s: %s spends %.3f calls, more than the smaller τ before it (%.3f)", mode, p.Label(), p.Calls, last)
			}
			last = p.Calls
		}
	}
}

// TestTopicalChatOfflineBudget is TestSummEvalOfflineBudget on USR
// Topical-Chat (60 dialogues × 6 responses, target Overall) with the
// dialogue bank.
func TestTopicalChatOfflineBudget(t *testing.T) {
	if testing.Short() || calibtest.RaceEnabled {
		t.Skip("scores Topical-Chat with the simulator; run without -short and -race")
	}
	d, err := datasets.Load("topicalchat", shareddata.Path(t, "usr_topicalchat/topical_chat.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []judge.Mode{judge.ModeExpected, judge.ModeInteger} {
		rows, labels := calibtest.OfflineStudy(t, d, "dialogue", 1, mode)
		r, _, err := Evaluate(context.Background(), rows, labels, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		logBudget(t, "Topical-Chat, dialogue bank, offline ("+string(mode)+")", r)
		if r.Points[1].Family != FamilyFull || len(r.Reach) == 0 {
			t.Errorf("%s: points %v", mode, r.Points[:2])
		}
	}
}
