// Package caltest holds test helpers that build on calib's exported API,
// for the tests of calib's sub-packages (calib's own tests keep their
// in-package copies, since calib cannot import its importers).
package caltest

import (
	"context"
	"testing"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/model"
)

// fitForCalibrator builds the design and report a calibrator is made from.
// FitForCalibrator builds the design of rows and labels and fits it.
func FitForCalibrator(t testing.TB, rows []model.ScoreRow, labels []model.Label, opts calib.Options) (*calib.Design, *calib.Report) {
	t.Helper()
	d, _, err := calib.BuildDesign(rows, labels, calib.BuildOptions{Global: opts.Global})
	if err != nil {
		t.Fatal(err)
	}
	rep, _, err := calib.FitDesign(context.Background(), d, opts)
	if err != nil {
		t.Fatal(err)
	}
	return d, rep
}

// NewCal is calib.NewCalibrator, failing t on an error.
func NewCal(t testing.TB, d *calib.Design, rep *calib.Report, opts calib.Options, m calib.Method) *calib.Calibrator {
	t.Helper()
	c, err := calib.NewCalibrator(context.Background(), d, rep, opts, m)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
