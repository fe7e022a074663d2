package study

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/model/store"
)

// KindFit is the kind of a stored fit report.
const KindFit = "fit"

// Remember stores rep, a fit of its study, in the workspace with a hash
// of what went in (the study as read, generation included, and the
// report's options), so prism ls lists it and the TUI reopens on it. A
// report without a study (scores from files) is not stored.
func Remember(ctx context.Context, st *store.Store, rep *calib.Report) (int64, error) {
	if rep.Study == nil {
		return 0, nil
	}
	body, err := json.Marshal(rep)
	if err != nil {
		return 0, err
	}
	s := rep.Study
	return st.PutReport(ctx, store.StoredReport{Kind: KindFit, Dataset: s.Dataset, Judge: s.Judge, BankHash: s.BankHash,
		Runs: s.Runs, Generation: s.Generation, Inputs: inputsHash(rep), Body: body})
}

// inputsHash hashes what decides a fit: its study as read and its
// options (metric, seed, bootstrap, mode, order and γ grid).
func inputsHash(rep *calib.Report) string {
	h := sha256.New()
	enc := json.NewEncoder(h)
	enc.Encode(rep.Study)
	enc.Encode([]any{rep.Metric, rep.Seed, rep.Bootstrap, rep.Global, rep.GammaGrid, rep.Order, rep.Columns})
	return hex.EncodeToString(h.Sum(nil))
}

// Stored is a fit kept in the workspace, and whether the study's answers
// changed since it was fitted.
type Stored struct {
	ID     int64
	Report *calib.Report
	Stale  bool
}

// Latest is the newest stored fit of the study (dataset, judge, bank
// hash), or nil when there is none.
func Latest(ctx context.Context, st *store.Store, dataset, judge, bankHash string) (*Stored, error) {
	reps, err := st.Reports(ctx, KindFit, dataset, true)
	if err != nil {
		return nil, err
	}
	for _, r := range reps {
		if r.Judge != judge || r.BankHash != bankHash {
			continue
		}
		var rep calib.Report
		if err := json.Unmarshal(r.Body, &rep); err != nil {
			return nil, fmt.Errorf("stored fit %d: %w", r.ID, err)
		}
		gen, err := st.Generation(ctx, dataset, judge, bankHash)
		if err != nil {
			return nil, err
		}
		return &Stored{ID: r.ID, Report: &rep, Stale: gen != r.Generation}, nil
	}
	return nil, nil
}
