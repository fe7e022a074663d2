package clikit

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/model"
)

// ReadLabels reads a labels CSV: its human column, or with a target the
// column of that criterion (criterionLabelsCSV). The file is opened as
// every score and label file is (readFile: size limits, errors naming it).
func ReadLabels(path, target string) ([]model.Label, error) {
	if target == "" {
		return ReadFile(path, model.ReadLabelsCSV)
	}
	return ReadFile(path, criterionLabelsCSV(target))
}

// criterionLabelsCSV reads the labels of one criterion from a label CSV
// with several criterion columns: a header naming context, candidate and
// target, one row per candidate; an empty cell is a candidate without that
// criterion's label. Errors name the file, line and field.
func criterionLabelsCSV(target string) func(io.Reader, string) ([]model.Label, error) {
	return func(f io.Reader, path string) ([]model.Label, error) {
		r := csv.NewReader(f)
		col, err := ReadCSVHeader(r, path, []string{"context", "candidate", target}, func(_ string, head []string) string {
			return fmt.Sprintf("--target %s names a criterion column; the header has %s", target, strings.Join(head, ","))
		})
		if err != nil {
			return nil, err
		}
		var out []model.Label
		for line := 2; ; line++ {
			rec, err := r.Read()
			if err == io.EOF {
				return out, nil
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			l := model.Label{Context: strings.TrimSpace(rec[col["context"]]), Candidate: strings.TrimSpace(rec[col["candidate"]]), Line: line}
			if l.Context == "" || l.Candidate == "" {
				return nil, fmt.Errorf("%s: line %d: field \"context\"/\"candidate\": empty id", path, line)
			}
			cell := strings.TrimSpace(rec[col[target]])
			if cell == "" {
				continue
			}
			if l.Human, err = strconv.ParseFloat(cell, 64); err != nil || math.IsNaN(l.Human) || math.IsInf(l.Human, 0) {
				return nil, fmt.Errorf("%s: line %d: field %q: %q is not a finite number", path, line, target, cell)
			}
			out = append(out, l)
		}
	}
}

// AddTargetFlag defines --target, shared by the commands that read labels
// (fit, select, budget, score; agree words its own).
func AddTargetFlag(fs WorkspaceFlags) *string {
	return fs.String("target", "", "calibrate toward one `CRITERION` of the labels instead of the overall label: a column of the --labels file, or a criterion of the workspace dataset (e.g. SummEval's coherence)")
}

// WarnTarget warns when prism score's transfer check measures against
// another criterion than the calibrator was fitted toward (its training
// study's target; a calibrator from files records none).
func WarnTarget(stderr io.Writer, cal *calib.Calibrator, target string) {
	if cal.Training.Study == nil || cal.Training.Study.Target == target {
		return
	}
	fitted := cal.Training.Study.Target
	name := func(t string) string {
		if t == "" {
			return "the overall label"
		}
		return "criterion " + t
	}
	fmt.Fprintf(stderr, "prism score: warning: the calibrator was fitted toward %s; the transfer check measures against %s (--target chooses)\n", name(fitted), name(target))
}
