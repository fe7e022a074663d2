package calib

import (
	"context"
	"testing"
)

var sinkReport *Report

// BenchmarkFit times one complete fit on a SummEval-sized study: 100
// contexts × 16 candidates × 16 attributes (32 columns), three methods,
// nested CV over the 7-value grid, 2,000 bootstrap resamples, profiles.
func BenchmarkFit(b *testing.B) {
	rows, labels := synth(100, 16, 16, 1)
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
	rows, labels := synth(100, 16, 16, 1)
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
	rows, labels := synth(100, 16, 16, 1)
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
	rows, labels := synth(100, 16, 16, 1)
	b.ReportAllocs()
	for b.Loop() {
		d, _, err := BuildDesign(rows, labels, BuildOptions{})
		if err != nil {
			b.Fatal(err)
		}
		sinkDesign = d
	}
}
