package analysis

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"path/filepath"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/figures"
	"github.com/prism-eval/prism/calib/signal"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
)

// SignalResamples is the bootstrap of the exported signal figure:
// docs/protocol.md §8's 2,000, as the Bank tab's final ratio panel.
const SignalResamples = 2000

// Table2File is the export's Table 2, written when the report has
// rubric baselines.
const Table2File = "table2.csv"

// Export writes rep, and the signal diagnostics of key's stored answers,
// as files for a paper into dir (package figures); sigErr says why the
// signal figure was left out.
func Export(ctx context.Context, st *store.Store, key study.Key, rep *calib.Report, dir string) (paths []string, sigErr, err error) {
	var sig *signal.Report
	rows, sigErr := st.Scores(ctx, key.Dataset, key.Judge, key.BankHash)
	if sigErr == nil && len(rows) > 0 {
		// Without neutral answers there is no ratio: the figure is left out.
		sig, sigErr = signal.Signal(ctx, rows, signal.Options{Bootstrap: SignalResamples, Seed: 42})
	}
	paths, err = figures.Export(dir, rep, sig)
	if err == nil && len(rep.Baselines) > 0 {
		var p string
		p, err = writeTable2(dir, rep)
		if err == nil {
			paths = append(paths, p)
		}
	}
	return paths, sigErr, err
}

// writeTable2 writes rep's Table 2 (Table2CSV) as table2.csv into dir.
func writeTable2(dir string, rep *calib.Report) (string, error) {
	p := filepath.Join(dir, Table2File)
	err := model.WriteFileAtomic(p, func(w io.Writer) error {
		cw := csv.NewWriter(w)
		if err := cw.WriteAll(Table2CSV(rep)); err != nil {
			return err
		}
		return cw.Error()
	})
	if err != nil {
		return p, fmt.Errorf("%s: %w", p, err)
	}
	return p, nil
}
