package signal

import (
	"context"
	"fmt"
	"testing"

	"github.com/prism-eval/prism/calib/internal/calibtest"
	"github.com/prism-eval/prism/calib/selection"

	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/model/datasets"
	"github.com/prism-eval/prism/model/shareddata"
)

func logSignal(t *testing.T, title string, r *Report) {
	t.Helper()
	t.Logf("%s: %d runs, %d contexts; neutral RMS %.4f, repeat RMS %.4f, neutral/repeat %.3f %s",
		title, r.Runs, r.Contexts, r.Neutral.RMS, r.RepeatRMS, r.Neutral.RatioVsRepeat, ci(r.Neutral.CIVsRepeat))
	for _, u := range append(r.Units, r.Pooled) {
		t.Logf("  %-12s N %5d  RMS %.4f  ratio %6.3f %s  vs repeat %6.3f  repro %.4f  run corr %.3f  pass %v",
			u.Name, u.N, u.RMS, u.Ratio, ci(u.CI), u.RatioVsRepeat, u.ReproRMS, u.RunCorr, u.Pass)
	}
	t.Logf("  mean run correlation: probes %.3f, neutrals %.3f", r.ProbeRunCorrMean, r.NeutralRunCorrMean)
}

func ci(c [2]float64) string { return fmt.Sprintf("[%.3f, %.3f]", c[0], c[1]) }

// TestSignalOfflineDemo: on the demo study the offline judge's named
// features move scores beyond its neutral clauses; the pooled ratio
// passes the screen, and so does every attribute whose feature varies
// within the demo's contexts (safety does not: every demo summary is
// safe, so its probe only shifts whole contexts, which centering removes).
func TestSignalOfflineDemo(t *testing.T) {
	rows, _ := calibtest.OfflineStudy(t, datasets.Demo(), "quality", 2, judge.ModeExpected)
	r := signalOf(t, rows)
	logSignal(t, "demo, quality bank, offline (expected)", r)
	if !r.Pooled.Pass || !(r.Pooled.Ratio > 2) {
		t.Errorf("pooled ratio %.3f %v pass %v; the simulator's probes should move scores well beyond neutral", r.Pooled.Ratio, r.Pooled.CI, r.Pooled.Pass)
	}
	for _, u := range r.Units {
		if u.Name != "safety" && !u.Pass {
			t.Errorf("%s fails the screen: ratio %.3f %v", u.Name, u.Ratio, u.CI)
		}
	}
	if !(r.ProbeRunCorrMean > r.NeutralRunCorrMean) {
		t.Errorf("probe run correlation %.3f not above neutral %.3f", r.ProbeRunCorrMean, r.NeutralRunCorrMean)
	}
}

// TestSummEvalOfflineScreenAndSelect runs the signal screen (2 runs) and
// the probe selection on the real SummEval data (../shared/data) with the
// offline judge, for the quality and style8 banks, and logs the figures
// reported in the documentation. Asserted: the pooled ratio passes, most
// units pass, the subset curve is complete and its 10–90% band orders,
// and the full bank beats Vanilla.
func TestSummEvalOfflineScreenAndSelect(t *testing.T) {
	if testing.Short() || calibtest.RaceEnabled {
		t.Skip("scores SummEval with the simulator, about 250,000 calls: not in -short or -race runs (TestSignalOfflineDemo runs the same code on the demo)")
	}
	d, err := datasets.Load("summeval", shareddata.Path(t, "summeval/data.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, bank := range []string{"quality", "style8"} {
		rows, labels := calibtest.OfflineStudy(t, d, bank, 2, judge.ModeExpected)
		r := signalOf(t, rows)
		logSignal(t, "SummEval, "+bank+" bank, offline (expected)", r)
		passed := 0
		for _, u := range r.Units {
			if u.Pass {
				passed++
			}
		}
		if !r.Pooled.Pass || passed < len(r.Units)/2 {
			t.Errorf("%s: pooled pass %v, %d/%d units pass", bank, r.Pooled.Pass, passed, len(r.Units))
		}

		opts := selection.DefaultOptions()
		s, _, err := selection.Select(context.Background(), rows, labels, opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s selection: Vanilla %.4f, full bank %.4f (gain %+.4f), omission range [%.4f, %.4f]",
			bank, s.Vanilla, s.Full.Mean, s.Full.Gain, s.OmissionRange[0], s.OmissionRange[1])
		for _, c := range s.Curve {
			t.Logf("  size %d (%3d subsets): median gain %+.4f [p10 %+.4f, p90 %+.4f], %d above Vanilla", c.Size, c.Subsets, c.Median, c.P10, c.P90, c.AboveVanilla)
		}
		for _, o := range s.Omission {
			t.Logf("  without %-12s %.4f (%+.4f)", o.Unit, o.Mean, o.Change)
		}
		for _, f := range s.Forward {
			t.Logf("  forward + %-12s %.4f (%+.4f)", f.Added, f.Mean, f.Improvement)
		}
		t.Logf("  forward stop: %s", s.ForwardStop)
		if len(s.Curve) != len(s.Units) || len(s.Subsets) != 1<<len(s.Units)-1 {
			t.Errorf("%s: %d curve rows, %d subsets for %d units", bank, len(s.Curve), len(s.Subsets), len(s.Units))
		}
		for _, c := range s.Curve {
			if !(c.P10 <= c.Median && c.Median <= c.P90) {
				t.Errorf("%s: curve row %+v out of order", bank, c)
			}
		}
		if !(s.Full.Gain > 0) {
			t.Errorf("%s: full bank gain %+.4f, want PRISM above Vanilla", bank, s.Full.Gain)
		}
	}
}
