package order

import (
	"math"
	"math/bits"
	"math/rand/v2"

	"github.com/prism-eval/prism/calib"
)

// Positions is the decomposition of the order-induced variation of
// baseline scores (docs/protocol.md §14, "Position effects"; paper §B.6:
// the first-position shift and the share of additive position effects).
type Positions struct {
	Orders int `json:"orders"` // K orders used (repeat 0)
	// FirstShift is a(0), the mean deviation of a candidate shown first
	// from its call's mean and its own mean over the orders.
	FirstShift *float64    `json:"first_position_shift"`
	FirstCI    *[2]float64 `json:"first_position_ci95"`
	// Effects[p] is a(p) for every position p.
	Effects []float64 `json:"position_effects,omitempty"`
	// Shares of Σe² (they add up to 1): the whole call's shift, the
	// additive position effects and the order × candidate interaction.
	OrderShare       *float64    `json:"order_share"`
	PositionShare    *float64    `json:"position_share"`
	PositionShareCI  *[2]float64 `json:"position_share_ci95"`
	InteractionShare *float64    `json:"interaction_share"`
	InteractionCI    *[2]float64 `json:"interaction_share_ci95"`
	Contexts         int         `json:"contexts"`
	TooFew           string      `json:"too_few,omitempty"`
}

// posSums are one context's sufficient statistics of the decomposition.
type posSums struct {
	ssE, ssE1 float64   // Σe², Σe'²
	sum, n    []float64 // per position: Σe', count
}

func (s *posSums) add(o posSums) {
	s.ssE += o.ssE
	s.ssE1 += o.ssE1
	for len(s.sum) < len(o.sum) {
		s.sum, s.n = append(s.sum, 0), append(s.n, 0)
	}
	for p := range o.sum {
		s.sum[p] += o.sum[p]
		s.n[p] += o.n[p]
	}
}

// shares are (order, position, interaction) shares and a(0) of pooled sums.
func (s posSums) shares() (order, pos, inter, first float64, ok bool) {
	if s.ssE <= 0 || len(s.n) == 0 || s.n[0] == 0 {
		return 0, 0, 0, 0, false
	}
	var ssPos float64
	for p := range s.sum {
		if s.n[p] > 0 {
			a := s.sum[p] / s.n[p]
			ssPos += s.n[p] * a * a
		}
	}
	return (s.ssE - s.ssE1) / s.ssE, ssPos / s.ssE, (s.ssE1 - ssPos) / s.ssE, s.sum[0] / s.n[0], true
}

// contextPosSums computes, over the candidates scored in all K orders
// (repeat 0), e(k,i) = s^k(i) − mean_k s^k(i), m(k) = mean_i e(k,i),
// e'(k,i) = e(k,i) − m(k), and sums e' by position. ok is false when
// fewer than two candidates qualify or positions are unknown.
func contextPosSums(c *Context, K int) (posSums, bool) {
	n := len(c.Human)
	if K < 2 || len(c.Pos) < K || len(c.Base) < K {
		return posSums{}, false
	}
	var keep []int
	for i := range n {
		ok := true
		for k := range K {
			v := runAt(c.Base[k], 0)
			if v == nil || !calib.Finite(v[i]) || len(c.Pos[k]) != n {
				ok = false
				break
			}
		}
		if ok {
			keep = append(keep, i)
		}
	}
	if len(keep) < 2 {
		return posSums{}, false
	}
	s := posSums{sum: make([]float64, n), n: make([]float64, n)}
	mean := make([]float64, n)
	for _, i := range keep {
		for k := range K {
			mean[i] += c.Base[k][0][i]
		}
		mean[i] /= float64(K)
	}
	for k := range K {
		var m float64
		for _, i := range keep {
			m += c.Base[k][0][i] - mean[i]
		}
		m /= float64(len(keep))
		for _, i := range keep {
			e := c.Base[k][0][i] - mean[i]
			e1 := e - m
			s.ssE += e * e
			s.ssE1 += e1 * e1
			p := c.Pos[k][i]
			s.sum[p] += e1
			s.n[p]++
		}
	}
	return s, true
}

// positions computes Positions over K orders.
func (o orderCalc) positions(K int) Positions {
	out := Positions{Orders: K}
	var per []posSums
	var all posSums
	for ci := range o.d.Contexts {
		if s, ok := contextPosSums(&o.d.Contexts[ci], K); ok {
			per = append(per, s)
			all.add(s)
		}
	}
	out.Contexts = len(per)
	switch {
	case K < 2:
		out.TooFew = "needs at least 2 orders of a listwise study"
		return out
	case tooFewContexts(len(per), o.opts.MinContexts) != "":
		out.TooFew = tooFewContexts(len(per), o.opts.MinContexts)
		return out
	}
	order, pos, inter, first, ok := all.shares()
	if !ok {
		out.TooFew = "the scores do not vary across orders"
		return out
	}
	out.OrderShare, out.PositionShare, out.InteractionShare, out.FirstShift = &order, &pos, &inter, &first
	for p := range all.sum {
		if all.n[p] > 0 {
			out.Effects = append(out.Effects, all.sum[p]/all.n[p])
		}
	}
	g := rand.NewPCG(o.opts.Seed, 1)
	var fs, ps, is []float64
	n := uint64(len(per))
	for range o.opts.Bootstrap {
		var s posSums
		for range per {
			i, _ := bits.Mul64(g.Uint64(), n)
			s.add(per[i])
		}
		if _, p, in, f, ok := s.shares(); ok && !math.IsNaN(f) {
			fs, ps, is = append(fs, f), append(ps, p), append(is, in)
		}
	}
	if len(fs) > 0 {
		a, b, c := calib.PercentileInterval(fs), calib.PercentileInterval(ps), calib.PercentileInterval(is)
		out.FirstCI, out.PositionShareCI, out.InteractionCI = &a, &b, &c
	}
	return out
}
