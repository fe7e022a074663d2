package offline

import (
	"context"
	"math"
	"sort"
	"testing"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/datasets"
	"github.com/prism-eval/prism/model/shareddata"
)

// ranks returns average ranks (ties get mid-ranks).
func ranks(x []float64) []float64 {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return x[idx[a]] < x[idx[b]] })
	r := make([]float64, len(x))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && x[idx[j+1]] == x[idx[i]] {
			j++
		}
		for k := i; k <= j; k++ {
			r[idx[k]] = float64(i+j)/2 + 1
		}
		i = j + 1
	}
	return r
}

func spearman(a, b []float64) float64 {
	ra, rb := ranks(a), ranks(b)
	var ma, mb float64
	for i := range ra {
		ma += ra[i]
		mb += rb[i]
	}
	ma /= float64(len(ra))
	mb /= float64(len(rb))
	var sab, saa, sbb float64
	for i := range ra {
		sab += (ra[i] - ma) * (rb[i] - mb)
		saa += (ra[i] - ma) * (ra[i] - ma)
		sbb += (rb[i] - mb) * (rb[i] - mb)
	}
	if saa == 0 || sbb == 0 {
		return 0
	}
	return sab / math.Sqrt(saa*sbb)
}

func loadSummEval(t testing.TB) *model.Dataset {
	p := shareddata.Path(t, "summeval/data.json")
	d, err := datasets.Load("summeval", p)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestSummEvalSignal checks on the real SummEval data that the simulator's
// baseline carries some, but far from all, of the human ranking signal
// (so that there is something to correct), and that a coverage probe
// moves scores by clearly more than a neutral clause.
func TestSummEvalSignal(t *testing.T) {
	d := loadSummEval(t)
	j, _ := New(judge.Config{Mode: judge.ModeExpected})
	ctx := context.Background()
	sc := banks.Scale{Min: 1, Max: 10}
	score := func(c model.Context, cand model.Candidate, instr string) float64 {
		r, err := j.Score(ctx, banks.Request{Source: c.Source, CandidateText: cand.Text, Scale: sc, Instruction: instr})
		if err != nil {
			t.Fatal(err)
		}
		return r.Score
	}
	var rho, probeSS, neutralSS float64
	n := 0
	for _, c := range d.Contexts {
		s0 := make([]float64, len(c.Candidates))
		y := make([]float64, len(c.Candidates))
		var dp, dn []float64
		for i, cand := range c.Candidates {
			s0[i] = score(c, cand, "")
			y[i] = cand.Human
			dp = append(dp, score(c, cand, "When you assign the score, weight how much of the article's important content the summary includes more heavily than you normally would.")-s0[i])
			dn = append(dn, score(c, cand, "Take your time and weigh each candidate fairly.")-s0[i])
		}
		rho += spearman(s0, y)
		probeSS += centeredSS(dp)
		neutralSS += centeredSS(dn)
		n += len(c.Candidates)
	}
	rho /= float64(len(d.Contexts))
	ratio := math.Sqrt(probeSS / neutralSS)
	t.Logf("SummEval offline baseline: mean within-document Spearman %.3f; coverage probe/neutral RMS ratio %.2f", rho, ratio)
	if rho < 0.05 || rho > 0.8 {
		t.Errorf("baseline Spearman %.3f outside (0.05, 0.8): the simulator should carry some but not all human signal", rho)
	}
	if ratio < 2 {
		t.Errorf("probe/neutral RMS ratio %.2f, want ≥ 2", ratio)
	}
}

func centeredSS(x []float64) float64 {
	var m float64
	for _, v := range x {
		m += v
	}
	m /= float64(len(x))
	var ss float64
	for _, v := range x {
		ss += (v - m) * (v - m)
	}
	return ss
}
