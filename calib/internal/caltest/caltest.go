// Package caltest holds test helpers that build on calib's exported API,
// for the tests of calib's sub-packages (calib's own tests keep their
// in-package copies, since calib cannot import its importers).
package caltest

import (
	"context"
	"strings"
	"testing"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/internal/calibtest"
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

// bankCalibrator is a calibrator on two attributes of the built-in answer
// bank, with that bank embedded.
// BankCalibrator is a PRISM calibrator of a synthetic study with the
// built-in answer bank and a judge snapshot, and the rows and labels it
// was fitted on.
func BankCalibrator(t testing.TB) (*calib.Calibrator, []model.ScoreRow, []model.Label) {
	t.Helper()
	rows, labels := calibtest.Synth(20, 5, 2, 3)
	for i := range rows {
		rows[i].Probe = strings.NewReplacer("a00", "length", "a01", "steps").Replace(rows[i].Probe)
	}
	opts := calib.DefaultOptions()
	opts.Bootstrap = 20
	d, rep := FitForCalibrator(t, rows, labels, opts)
	c := NewCal(t, d, rep, opts, calib.PRISM)
	b, err := banks.Builtin("answer")
	if err != nil {
		t.Fatal(err)
	}
	text, err := b.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	c.Bank = &calib.BankSnapshot{Name: b.Name, Hash: b.Hash(), Source: "builtin:answer", TOML: string(text)}
	temp := 0.0
	c.Judge = &calib.JudgeSnapshot{Name: "m", Backend: "openai", Model: "m", BaseURL: "https://user:pw@example.com/v1?key=sk-secret", Temperature: &temp, Runs: 1, Orders: 1}
	c.PrismVersion = "test"
	return c, rows, labels
}
