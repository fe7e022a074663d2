package diag

import (
	"context"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/prism-eval/prism/model"
)

// ladderRows makes score rows from per-probe, per-candidate, per-run scores.
func ladderRows(ctx string, scores map[string]map[string][]float64) []model.ScoreRow {
	var out []model.ScoreRow
	for p, byCand := range scores {
		for cand, runs := range byCand {
			for r, s := range runs {
				out = append(out, model.ScoreRow{Context: ctx, Candidate: cand, Probe: p, Run: strconv.Itoa(r), Wording: "0", Score: s})
			}
		}
	}
	return out
}

// TestWordingHand: one context, two candidates x and y, two runs, scores
// chosen so that every quantity is computed by hand. Centered within the
// context, each candidate is ±(x − y)/2:
//
//	baseline 5,5 | 3,3 → ±1, ±1      control 6,6 | 3,3 → ±1.5, ±1.5
//	a:+ 8,10 | 3,3 → ±2.5, ±3.5      a:- 4,4 | 3,3 → ±0.5, ±0.5
//
// For x: O = (1, 1.5), E^c = (0, 0.5), Z = (0.5, 0.5), E^base = (0.5, 1),
// D⁺ = (1, 2), D⁻ = (−1, −1); y is the negative. With R = 2 each candidate
// has Σ_{r≠r′} U^r V^r′ = U⁰V¹ + U¹V⁰ and the denominator is n·R(R−1) = 4:
//
//	Q(O,O) = 2·2·1.5/4 = 1.5           (the same-run mean would be 1.625)
//	Q(E^c,E^c) = 0                      Q(E^base,E^base) = 2·2·0.5/4 = 0.5
//	Q(D⁺,O) = 2·(1·1.5 + 2·1)/4 = 1.75  → projection 1.75/1.5
//	Q(D⁻,O) = 2·(−1.5 − 1)/4 = −1.25    → −1.25/1.5
//	Q(Z,Z) = 0.25, Q(Z,O) = 2·(0.75 + 0.5)/4 = 0.625 → 0.625/1.5
func TestWordingHand(t *testing.T) {
	rows := ladderRows("c", map[string]map[string][]float64{
		"baseline":  {"x": {5, 5}, "y": {3, 3}},
		"a:control": {"x": {6, 6}, "y": {3, 3}},
		"a:+":       {"x": {8, 10}, "y": {3, 3}},
		"a:-":       {"x": {4, 4}, "y": {3, 3}},
	})
	opts := Options{Bootstrap: 10, Seed: 1, MinContexts: 1}
	rep, err := Wording(context.Background(), rows, opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.TooFew != "" || len(rep.Attributes) != 1 || len(rep.Attributes[0].Levels) != 1 {
		t.Fatalf("report %+v", rep)
	}
	a := rep.Attributes[0]
	l := a.Levels[0]
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"o_rms", l.ORMS.Value, math.Sqrt(1.5)},
		{"ec_rms", l.EcRMS.Value, 0},
		{"ebase_rms", l.EbaseRMS.Value, math.Sqrt(0.5)},
		{"plus_projection", l.PlusProjection.Value, 1.75 / 1.5},
		{"minus_projection", l.MinusProjection.Value, -1.25 / 1.5},
		// s⁺ − s0 = D⁺ + Z = (1.5, 2.5): 2·(1.5·1.5 + 2.5·1)/4 = 2.375.
		{"plus_projection_vs_baseline", l.PlusProjectionBase.Value, 2.375 / 1.5},
		{"z_rms", a.ZRMS.Value, 0.5},
		{"control_projection", a.ControlProjection.Value, 0.625 / 1.5},
		{"pooled o_rms", rep.Pooled[0].ORMS.Value, math.Sqrt(1.5)},
		{"pooled ebase/o", rep.Pooled[0].EbaseOverO.Value, math.Sqrt(0.5) / math.Sqrt(1.5)},
	} {
		if math.Abs(c.got-c.want) > 1e-12 {
			t.Errorf("%s = %.15g, want %.15g", c.name, c.got, c.want)
		}
	}
	if a.Contexts != 1 || a.Candidates != 2 {
		t.Errorf("contexts %d candidates %d, want 1, 2", a.Contexts, a.Candidates)
	}
	// One context resampled: every draw is the data, so the interval is
	// the point.
	if l.ORMS.CI != [2]float64{l.ORMS.Value, l.ORMS.Value} {
		t.Errorf("o_rms interval %v, want the point %v", l.ORMS.CI, l.ORMS.Value)
	}
}

// TestWordingTooFew: one run, no control, or fewer contexts than the
// minimum give "too few", not numbers.
func TestWordingTooFew(t *testing.T) {
	base := map[string]map[string][]float64{
		"baseline":  {"x": {5, 5}, "y": {3, 3}},
		"a:control": {"x": {6, 6}, "y": {3, 3}},
		"a:+":       {"x": {8, 10}, "y": {3, 3}},
		"a:-":       {"x": {4, 4}, "y": {3, 3}},
	}
	ctx := context.Background()
	rep, err := Wording(ctx, ladderRows("c", base), Options{Bootstrap: 5})
	if err != nil || rep.Attributes[0].TooFew == "" || len(rep.Pooled) != 0 || rep.TooFew == "" {
		t.Errorf("one context of 5 needed: %+v, %v", rep, err)
	}
	oneRun := map[string]map[string][]float64{}
	for p, m := range base {
		oneRun[p] = map[string][]float64{"x": m["x"][:1], "y": m["y"][:1]}
	}
	rep, err = Wording(ctx, ladderRows("c", oneRun), Options{Bootstrap: 5, MinContexts: 1})
	if err != nil || rep.TooFew == "" || len(rep.Attributes) != 0 {
		t.Errorf("one run: %+v, %v", rep, err)
	}
	delete(base, "a:control")
	rep, err = Wording(ctx, ladderRows("c", base), Options{Bootstrap: 5, MinContexts: 1})
	if err != nil || rep.TooFew == "" {
		t.Errorf("no control: %+v, %v", rep, err)
	}
}

// TestWordingReference compares every point estimate with a direct
// transcription of the definitions (explicit r ≠ r′ double loop, centering
// by hand) on random data with 3 runs, two attributes, all levels, some
// candidates missing a condition in one run (they are left out).
func TestWordingReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	const R, nctx, ncand = 3, 6, 4
	probes := []string{"baseline"}
	for _, a := range []string{"a", "b"} {
		probes = append(probes, a+":control", a+":+", a+":-", a+":slightly+", a+":slightly-", a+":much+", a+":much-")
	}
	var rows []model.ScoreRow
	for c := 0; c < nctx; c++ {
		for i := 0; i < ncand; i++ {
			for pi, p := range probes {
				signal := float64((i*7+pi*3+c)%5) - 2 // the same in every run: reproducible
				for r := 0; r < R; r++ {
					if c == 2 && i == 1 && r == 2 && p == "b:much-" {
						continue // candidate 1 of context 2 drops out of b only
					}
					for w := 0; w < 2; w++ { // two wordings: their mean is s
						rows = append(rows, model.ScoreRow{Context: "c" + strconv.Itoa(c), Candidate: "k" + strconv.Itoa(i), Probe: p,
							Run: strconv.Itoa(r), Wording: strconv.Itoa(w), Score: signal + math.Round(rng.NormFloat64()*10)/10})
					}
				}
			}
		}
	}
	rep, err := Wording(context.Background(), rows, Options{Bootstrap: 20, Seed: 3, MinContexts: 2})
	if err != nil {
		t.Fatal(err)
	}
	// Reference: s[probe][ctx][cand][run].
	s := map[string]map[int]map[int]map[int]float64{}
	cnt := map[string]map[int]map[int]map[int]int{}
	for _, r := range rows {
		c, _ := strconv.Atoi(r.Context[1:])
		i, _ := strconv.Atoi(r.Candidate[1:])
		run, _ := strconv.Atoi(r.Run)
		if s[r.Probe] == nil {
			s[r.Probe], cnt[r.Probe] = map[int]map[int]map[int]float64{}, map[int]map[int]map[int]int{}
		}
		if s[r.Probe][c] == nil {
			s[r.Probe][c], cnt[r.Probe][c] = map[int]map[int]float64{}, map[int]map[int]int{}
		}
		if s[r.Probe][c][i] == nil {
			s[r.Probe][c][i], cnt[r.Probe][c][i] = map[int]float64{}, map[int]int{}
		}
		s[r.Probe][c][i][run] += r.Score
		cnt[r.Probe][c][i][run]++
	}
	refQ := func(attr string, u, v func(get func(p string) float64) float64) float64 {
		var num, den float64
		need := []string{"baseline"}
		for _, p := range probes {
			if len(p) > len(attr) && p[:len(attr)+1] == attr+":" {
				need = append(need, p)
			}
		}
		for c := 0; c < nctx; c++ {
			var usable []int
			for i := 0; i < ncand; i++ {
				ok := true
				for _, p := range need {
					for r := 0; r < R; r++ {
						_, has := s[p][c][i][r]
						ok = ok && has
					}
				}
				if ok {
					usable = append(usable, i)
				}
			}
			if len(usable) < 2 {
				continue
			}
			cen := func(p string, i, r int) float64 {
				m := 0.0
				for _, j := range usable {
					m += s[p][c][j][r] / float64(cnt[p][c][j][r])
				}
				return s[p][c][i][r]/float64(cnt[p][c][i][r]) - m/float64(len(usable))
			}
			for _, i := range usable {
				for r := 0; r < R; r++ {
					for r2 := 0; r2 < R; r2++ {
						if r == r2 {
							continue
						}
						num += u(func(p string) float64 { return cen(p, i, r) }) * v(func(p string) float64 { return cen(p, i, r2) })
					}
				}
				den += R * (R - 1)
			}
		}
		return num / den
	}
	lv := map[string][2]string{"slightly": {":slightly+", ":slightly-"}, "standard": {":+", ":-"}, "much": {":much+", ":much-"}}
	pooledO := map[string]float64{}
	for _, a := range rep.Attributes {
		at := a.Name
		oStd := func(g func(string) float64) float64 { return (g(at+":+") - g(at+":-")) / 2 }
		qOO := refQ(at, oStd, oStd)
		for _, l := range a.Levels {
			p, m := at+lv[l.Level][0], at+lv[l.Level][1]
			o := func(g func(string) float64) float64 { return (g(p) - g(m)) / 2 }
			ec := func(g func(string) float64) float64 { return (g(p)+g(m))/2 - g(at+":control") }
			dp := func(g func(string) float64) float64 { return g(p) - g(at+":control") }
			q := refQ(at, o, o)
			pooledO[l.Level] += q / 2
			for _, c := range []struct {
				name      string
				got, want float64
			}{
				{"o_rms", l.ORMS.Value, math.Sqrt(math.Max(q, 0))},
				{"ec_rms", l.EcRMS.Value, math.Sqrt(math.Max(refQ(at, ec, ec), 0))},
				{"plus_projection", l.PlusProjection.Value, refQ(at, dp, oStd) / qOO},
			} {
				if math.Abs(c.got-c.want) > 1e-9 {
					t.Errorf("%s %s %s = %.15g, reference %.15g", at, l.Level, c.name, c.got, c.want)
				}
			}
		}
	}
	for _, p := range rep.Pooled {
		if w := math.Sqrt(math.Max(pooledO[p.Level], 0)); math.Abs(p.ORMS.Value-w) > 1e-9 {
			t.Errorf("pooled %s o_rms %g, reference %g", p.Level, p.ORMS.Value, w)
		}
		if !(p.ORMS.CI[0] <= p.ORMS.CI[1]) {
			t.Errorf("pooled %s interval %v", p.Level, p.ORMS.CI)
		}
	}
	if len(rep.Pooled) != 3 || len(rep.Attributes) != 2 {
		t.Fatalf("%d pooled levels, %d attributes", len(rep.Pooled), len(rep.Attributes))
	}
	// Equal inputs, bitwise-equal reports.
	rep2, _ := Wording(context.Background(), rows, Options{Bootstrap: 20, Seed: 3, MinContexts: 2})
	if e, e2 := rep.Pooled[1].EcOverO, rep2.Pooled[1].EcOverO; math.Float64bits(e.Value) != math.Float64bits(e2.Value) || math.Float64bits(e.CI[0]) != math.Float64bits(e2.CI[0]) {
		t.Errorf("rerun differs: %+v vs %+v", rep2.Pooled[1].EcOverO, rep.Pooled[1].EcOverO)
	}
}
