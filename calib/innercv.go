package calib

// innerValues runs the inner cross-validation loop shared by the
// within-context and global fits (PROTOCOL §5): the training units train,
// in π order, are split into folds parts (SplitParts); for each non-empty
// part [lo, hi), fitOthers fits every method on the training units
// outside it, and value scores each unit of the part under every γ's
// (α, β). vals, laid out [(method·len(gammas) + γ)·len(train) + i], gets
// the value of train[i]. beta is the β scratch the paths solve into.
func innerValues(train []int, folds int, gammas, vals, beta []float64,
	fitOthers func(lo, hi int) ([]*methodPath, error),
	value func(unit int, alpha float64, beta []float64) float64) error {
	G, nt := len(gammas), len(train)
	bounds := SplitParts(nt, folds)
	for p := range folds {
		lo, hi := bounds[p], bounds[p+1]
		if lo == hi {
			continue
		}
		ps, err := fitOthers(lo, hi)
		if err != nil {
			return err
		}
		for mi, mp := range ps {
			for gi, gam := range gammas {
				alpha := mp.at(gam, beta)
				for i := lo; i < hi; i++ {
					vals[(mi*G+gi)*nt+i] = value(train[i], alpha, beta)
				}
			}
		}
	}
	return nil
}

// bestGamma is the index of the highest CV score in cv (one per γ of
// gammas); among exactly equal scores (bitwise, no tolerance) the largest
// γ wins (PROTOCOL §5).
func bestGamma(cv, gammas []float64) int {
	best := -1
	for gi, s := range cv {
		if best < 0 || s > cv[best] || (s == cv[best] && gammas[gi] > gammas[best]) {
			best = gi
		}
	}
	return best
}
