package calib

import (
	"context"
	"testing"

	"github.com/prism-eval/prism/calib/internal/calibtest"

	"github.com/prism-eval/prism/model/synthstudy"
)

var sinkReport *Report

// BenchmarkFit times one complete fit on a SummEval-sized study: 100
// contexts × 16 candidates × 16 attributes (32 columns), three methods,
// nested CV over the 7-value grid, 2,000 bootstrap resamples, profiles.
func BenchmarkFit(b *testing.B) {
	rows, labels := calibtest.Synth(100, 16, 16, 1)
	opts := DefaultOptions()
	b.ReportAllocs()
	for b.Loop() {
		r, _, err := Fit(context.Background(), rows, labels, opts)
		if err != nil {
			b.Fatal(err)
		}
		sinkReport = r
	}
}

// BenchmarkFitDesign is BenchmarkFit without reading the score rows.
func BenchmarkFitDesign(b *testing.B) {
	rows, labels := calibtest.Synth(100, 16, 16, 1)
	d, _, err := BuildDesign(rows, labels, BuildOptions{})
	if err != nil {
		b.Fatal(err)
	}
	opts := DefaultOptions()
	b.ReportAllocs()
	for b.Loop() {
		r, _, err := FitDesign(context.Background(), d, opts)
		if err != nil {
			b.Fatal(err)
		}
		sinkReport = r
	}
}

// BenchmarkFitTaylor is BenchmarkFit with the opt-in Taylor method.
func BenchmarkFitTaylor(b *testing.B) {
	rows, labels := calibtest.Synth(100, 16, 16, 1)
	opts := DefaultOptions()
	opts.Taylor = true
	b.ReportAllocs()
	for b.Loop() {
		r, _, err := Fit(context.Background(), rows, labels, opts)
		if err != nil {
			b.Fatal(err)
		}
		sinkReport = r
	}
}

var sinkDesign *Design

// BenchmarkBuildDesign times reading 52,800 score rows into a design.
func BenchmarkBuildDesign(b *testing.B) {
	rows, labels := calibtest.Synth(100, 16, 16, 1)
	b.ReportAllocs()
	for b.Loop() {
		d, _, err := BuildDesign(rows, labels, BuildOptions{})
		if err != nil {
			b.Fatal(err)
		}
		sinkDesign = d
	}
}

// BenchmarkFitStudy1k fits synthgen's default study at 1,000 contexts:
// 16 candidates × 8 attributes (272,000 score rows), default options.
func BenchmarkFitStudy1k(b *testing.B) { benchFitStudy(b, 1000) }

// BenchmarkFitStudy5k is BenchmarkFitStudy1k at 5,000 contexts
// (1,360,000 score rows): time and allocation grow with the contexts.
func BenchmarkFitStudy5k(b *testing.B) { benchFitStudy(b, 5000) }

func benchFitStudy(b *testing.B, nctx int) {
	rows, labels := synthstudy.Scores(nctx, 16, 8, 1, 1)
	opts := DefaultOptions()
	b.ReportAllocs()
	for b.Loop() {
		r, _, err := Fit(context.Background(), rows, labels, opts)
		if err != nil {
			b.Fatal(err)
		}
		sinkReport = r
	}
}
