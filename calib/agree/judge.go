package agree

import "math"

// judgeMetrics holds what one judge's metrics need of the table and
// evaluates them on a set of contexts (the whole table or a resample).
type judgeMetrics struct {
	names   []string
	within  [3][]float64 // Spearman, Kendall, pairwise per context (NaN: undefined)
	pred    [][]float64
	human   [][]float64
	shared  bool // bias, MAE, α
	integer bool // κ too
	defined [3]int
	nCand   int
}

func newJudgeMetrics(t *Table, j int, opts Options) *judgeMetrics {
	s := &judgeMetrics{names: []string{KeySpearman, KeyKendall, KeyPairwise, KeyPearsonGlobal, KeySpearmanGlobal, KeyKendallGlobal},
		pred: t.Pred[j], human: t.Human, nCand: t.Candidates()}
	s.shared = j < len(opts.Shared) && opts.Shared[j]
	if s.shared {
		s.names = append(s.names, KeyBias, KeyMAE, KeyAlphaInterval, KeyAlphaOrdinal)
		s.integer = integral(s.pred) && integral(s.human)
		if s.integer {
			s.names = append(s.names, KeyKappa)
		}
	}
	fns := [3]func(p, h []float64, skip bool) float64{WithinSpearman, WithinKendall, WithinPairwise}
	for m, f := range fns {
		s.within[m] = make([]float64, len(t.Contexts))
		for c := range t.Contexts {
			v := f(s.pred[c], s.human[c], opts.SkipConstant)
			s.within[m][c] = v
			if !math.IsNaN(v) {
				s.defined[m]++
			}
		}
	}
	return s
}

func integral(xs [][]float64) bool {
	for _, x := range xs {
		for _, v := range x {
			if v != math.Trunc(v) {
				return false
			}
		}
	}
	return true
}

// count is the N of metric m on the whole table.
func (s *judgeMetrics) count(m int) int {
	if m < 3 {
		return s.defined[m]
	}
	return s.nCand
}

// eval is every metric on the contexts draw (indices, repeats allowed),
// in the order of s.names.
func (s *judgeMetrics) eval(draw []int) []float64 {
	out := make([]float64, len(s.names))
	for m := range s.within {
		var sum float64
		k := 0
		for _, c := range draw {
			if v := s.within[m][c]; !math.IsNaN(v) {
				sum += v
				k++
			}
		}
		out[m] = math.NaN()
		if k > 0 {
			out[m] = sum / float64(k)
		}
	}
	var p, h []float64
	for _, c := range draw {
		p = append(p, s.pred[c]...)
		h = append(h, s.human[c]...)
	}
	out[3], out[4], out[5] = Pearson(p, h), SpearmanGlobal(p, h), KendallGlobal(p, h)
	if s.shared {
		out[6], out[7], out[8], out[9] = Bias(p, h), MAE(p, h), AlphaInterval(p, h), AlphaOrdinal(p, h)
		if s.integer {
			out[10] = QuadraticKappa(p, h)
		}
	}
	return out
}
