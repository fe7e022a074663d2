package widgets

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
)

func TestDeltaHist(t *testing.T) {
	h := NewDeltaHist(4) // bins of 0.25 over [−4, 4]: 33 bins
	if len(h.bins) != 33 {
		t.Fatalf("%d bins, want 33", len(h.bins))
	}
	for _, d := range []float64{-1, 0, 0, 1, 1, 1, 9, math.NaN(), math.Inf(1)} {
		h.Add(d)
	}
	// NaN and +Inf are ignored; 9 is clamped into the last bin but its
	// value still counts in the mean: (−1+0+0+1+1+1+9)/7 = 11/7.
	if h.N() != 7 {
		t.Fatalf("n = %d, want 7", h.n)
	}
	if got, want := h.Mean(), 11.0/7; math.Abs(got-want) > 1e-12 {
		t.Errorf("mean %g, want %g", got, want)
	}
	if h.bins[32] != 1 || h.bins[16] != 2 || h.bins[20] != 3 {
		t.Errorf("bins: %v", h.bins)
	}
	if h.absMax != 9 {
		t.Errorf("absMax %g, want 9", h.absMax)
	}
}

func TestSpark(t *testing.T) {
	for _, tc := range []struct {
		name string
		add  []float64
		w    int
		r    float64
		want string
	}{
		// Integer Δ on ±2 in 7 cells: one cell per value −2…2, centred
		// (one pad each side). Counts −1:1, 0:2, +1:4 → levels
		// (c·8−1)/4 = 1, 3, 7 → ▂ ▄ █.
		{"integers", []float64{-1, 0, 0, 1, 1, 1, 1}, 7, 2, "  ▂▄█  "},
		// Non-integer values spread over w cells on [−1, 1]: −0.75 → cell
		// ⌊0.125·4⌋ = 0, 0.5 → ⌊0.75·4⌋ = 3; one count each → █.
		{"fractions", []float64{-0.75, 0.5}, 4, 1, "█  █"},
		{"empty", nil, 5, 3, "·····"},
	} {
		h := NewDeltaHist(5)
		for _, d := range tc.add {
			h.Add(d)
		}
		if got := h.Spark(tc.w, tc.r); got != tc.want {
			t.Errorf("%s: Spark = %q, want %q", tc.name, got, tc.want)
		}
		if got := ansi.StringWidth(h.Spark(tc.w, tc.r)); got != tc.w {
			t.Errorf("%s: width %d, want %d", tc.name, got, tc.w)
		}
	}
}

func TestRatioBar(t *testing.T) {
	for _, tc := range []struct {
		ratio, lo, hi, axis float64
		w                   int
		want                string
	}{
		// Axis [0, 2] in 8 cells of 0.25: the marker is cell ⌊1/0.25⌋ = 4.
		// Ratio 1.5 in [1.2, 1.8]: midpoints 0.125…1.125 < 1.2 → █ (cell 4
		// is the marker), 1.375 ∈ [1.2, 1.5) → ▓, 1.625 ∈ [1.5, 1.8) → ░,
		// 1.875 → space.
		{1.5, 1.2, 1.8, 2, 8, "████│▓░ "},
		// Ratio 0.5 in [0.3, 0.7]: 0.125 → █, 0.375 → ▓, 0.625 → ░.
		{0.5, 0.3, 0.7, 2, 8, "█▓░ │   "},
		{math.NaN(), math.NaN(), math.NaN(), 2, 4, "  │ "},
	} {
		if got := RatioBar(tc.ratio, tc.lo, tc.hi, tc.axis, tc.w); got != tc.want {
			t.Errorf("ratioBar(%g [%g,%g]) = %q, want %q", tc.ratio, tc.lo, tc.hi, got, tc.want)
		}
	}
	if got := RatioAxis(0.4, 1.3); got != 2 {
		t.Errorf("axis of small ratios %g, want 2", got)
	}
	if got := RatioAxis(2.3, math.NaN(), math.Inf(1)); got != 2.5 {
		t.Errorf("axis of 2.3 %g, want 2.5", got)
	}
	// The axis covers every value (issue 17: expected mode reached 12.8
	// on an axis capped at 6).
	for v, want := range map[float64]float64{5.8: 6, 12.8: 13, 40: 40, 42: 45, 123: 130} {
		if got := RatioAxis(v, 1.1); got != want || got < v {
			t.Errorf("axis of %g: %g, want %g", v, got, want)
		}
	}
	for _, tc := range []struct {
		axis float64
		w    int
		want string
	}{
		{2, 8, "0   1  2"},
		{13, 26, "0 1                     13"},
		{2, 3, "0 2"}, // no room for 1 between them
	} {
		if got := RatioTicks(tc.axis, tc.w); got != tc.want {
			t.Errorf("ratioTicks(%g, %d) = %q, want %q", tc.axis, tc.w, got, tc.want)
		}
	}
}

func ExampleRatioBar() {
	// A probe that moves scores 1.5× as much as a neutral clause, with a
	// 95% interval [1.2, 1.8], on an axis from 0 to 2 in 16 cells of
	// 0.125: the marker is cell 8; cells whose midpoints (i+½)/8 lie
	// below 1.2 (i ≤ 9) are full, in [1.2, 1.5) (i = 10, 11) half, in
	// [1.5, 1.8) (i = 12, 13) light.
	fmt.Printf("[%s]\n", RatioBar(1.5, 1.2, 1.8, 2, 16))
	// Output:
	// [████████│█▓▓░░  ]
}

func TestFormat(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{HumanCount(999), "999"}, {HumanCount(1500), "1.5k"}, {HumanCount(2_500_000), "2.5M"},
		{ShortDuration(0), "0s"}, {ShortDuration(850 * time.Millisecond), "850ms"},
		{ShortDuration(42 * time.Second), "42s"}, {ShortDuration(185 * time.Second), "3m05s"},
		{ShortDuration(130 * time.Minute), "2h10m"},
		{Signed(1, true), "+1"}, {Signed(-0.5, true), "-0.5"}, {Signed(0.01, true), "0"}, {Signed(1, false), ""},
		{Compact(7), "7"}, {Compact(6.5), "6.5"}, {Compact(math.NaN()), "—"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func TestWrapSpaces(t *testing.T) {
	for _, tc := range []struct {
		s    string
		w    int
		want []string
	}{
		// A minus sign stays with its number; the spaces at a break go.
		{"folds -0.1  -0.25", 8, []string{"folds", "-0.1", "-0.25"}},
		{"a_k mean -0.04  min -0.08", 14, []string{"a_k mean -0.04", "min -0.08"}},
		{"a  b", 4, []string{"a  b"}},
		{"a  b", 3, []string{"a", "b"}},
		{"abcdefgh x", 4, []string{"abc…", "x"}},
		{"", 5, []string{""}},
	} {
		if got := WrapSpaces(tc.s, tc.w); !slices.Equal(got, tc.want) {
			t.Errorf("wrapSpaces(%q, %d) = %q, want %q", tc.s, tc.w, got, tc.want)
		}
	}
}

func TestDotRow(t *testing.T) {
	// Axis [0, 10] in 10 cells of width 1: cell i covers [i, i+1).
	for _, tc := range []struct {
		name  string
		vals  []float64
		marks []rune
		ref   float64
		want  string
	}{
		{"marks and ref", []float64{2.5, 7}, []rune("PH"), 5, "··P··│·H··"},
		// A later mark covers an earlier one and the ref.
		{"overlap", []float64{5.2, 5.9}, []rune("PH"), 5, "·····H····"},
		// Values past the axis go to the end cells.
		{"clamped", []float64{-3, 30}, []rune("PH"), math.NaN(), "P········H"},
		{"nan value", []float64{math.NaN()}, []rune("P"), 0, "│·········"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := DotRow(tc.vals, tc.marks, tc.ref, 0, 10, 10, 0); got != tc.want {
				t.Errorf("dotRow = %q, want %q", got, tc.want)
			}
		})
	}
	if got := DotRow(nil, nil, 0, 1, 1, 5, '*'); got != "" {
		t.Errorf("empty axis: %q, want \"\"", got)
	}
	// With an overlap mark, a cell shared by different marks shows it; a
	// mark repeated in its own cell and a mark over the ref stay as they are.
	for _, tc := range []struct {
		vals  []float64
		marks []rune
		want  string
	}{
		{[]float64{5.2, 5.9}, []rune("AB"), "·····*····"},
		{[]float64{5.2, 5.9, 1}, []rune("ABA"), "·A···*····"},
		{[]float64{5.2, 5.9}, []rune("AA"), "·····A····"},
		{[]float64{5.5, 8}, []rune("AB"), "·····A··B·"},
		{[]float64{5.2, 5.5, 5.9}, []rune("ABC"), "·····*····"},
	} {
		if got := DotRow(tc.vals, tc.marks, 5, 0, 10, 10, '*'); got != tc.want {
			t.Errorf("dotRow(%v, %q) = %q, want %q", tc.vals, string(tc.marks), got, tc.want)
		}
	}
}

func TestGainBar(t *testing.T) {
	// Axis [-1, 9] in 10 cells of width 1: cell i covers [i-1, i).
	for _, tc := range []struct {
		name             string
		median, p10, p90 float64
		lo, hi           float64
		w                int
		want             string
	}{
		// 0 is in cell 1, the band [1.5, 4.5] covers cells 2…5, 3 is in cell 4.
		{"band right of zero", 3, 1.5, 4.5, -1, 9, 10, " │──●─    "},
		// The median on 0 hides the marker.
		{"median at zero", 0, -0.5, 2.5, -1, 9, 10, "─●──      "},
		// Values past the axis are drawn in the end cells.
		{"clamped", 20, -5, 30, -1, 9, 10, "─│───────●"},
		{"no median", math.NaN(), 1, 2, -1, 9, 10, " │        "},
		// Axis [1, 3] in 4 cells of 0.5: the band [1.5, 2.5] covers cells
		// 1…3, the median 2 is in cell 2, and 0 is off the axis.
		{"zero off axis", 2, 1.5, 2.5, 1, 3, 4, " ─●─"},
		{"empty width", 1, 0, 2, -1, 9, 0, ""},
		{"empty axis", 1, 0, 2, 1, 1, 5, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := GainBar(tc.median, tc.p10, tc.p90, tc.lo, tc.hi, tc.w); got != tc.want {
				t.Errorf("gainBar = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestGainAxis(t *testing.T) {
	const tol = 1e-12
	for _, tc := range []struct {
		vals   []float64
		lo, hi float64
	}{
		// Span 0.1 - (-0.1) = 0.2, padded by 0.01 each side.
		{[]float64{-0.1, 0.05, 0.1}, -0.11, 0.11},
		// 0 is always on the axis: span 0.2 - 0 = 0.2.
		{[]float64{0.1, 0.2, math.NaN(), math.Inf(1)}, -0.01, 0.21},
		{[]float64{0, 0}, -0.01, 0.01},
	} {
		lo, hi := GainAxis(tc.vals...)
		if math.Abs(lo-tc.lo) > tol || math.Abs(hi-tc.hi) > tol {
			t.Errorf("gainAxis(%v) = [%g, %g], want [%g, %g]", tc.vals, lo, hi, tc.lo, tc.hi)
		}
	}
}
