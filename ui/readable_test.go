package ui

import (
	"fmt"
	"strings"
	"testing"

	runtab "github.com/prism-eval/prism/ui/tabs/run"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/prism-eval/prism/ui/tabs/compare"
	"github.com/prism-eval/prism/ui/widgets"
)

// Issue 17: truncation must not hide meaning. A name is cut in its
// middle, so its sign or suffix stays, and only when nothing else can
// give way.

func TestClipMiddle(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		s    string
		w    int
		want string
	}{
		{"accuracy:+", 8, "accu…y:+"},
		{"accuracy:+", 10, "accuracy:+"},
		{"accuracy:+", 20, "accuracy:+"},
		{"helpfulness:-", 5, "he…:-"},
		{"neutral:consistent", 13, "neutra…istent"},
		{"ab", 1, "…"},
		{"ab", 0, ""},
	} {
		got := widgets.ClipMiddle(tc.s, tc.w)
		if got != tc.want {
			t.Errorf("clipMiddle(%q, %d) = %q, want %q", tc.s, tc.w, got, tc.want)
		}
		if ansi.StringWidth(got) > max(tc.w, 0) {
			t.Errorf("clipMiddle(%q, %d) = %q is wider than %d", tc.s, tc.w, got, tc.w)
		}
	}
}

// headerLine is the second line of the frame: the study.
func headerLine(a *App) string { return strings.Split(frame(a), "\n")[1] }

// At 80×24 the header names the judge in full; the counts and the hash
// give way first. A name too long for any layout is cut in its middle and
// keeps its end.
func TestHeaderKeepsJudgeName(t *testing.T) {
	t.Parallel()
	a := demoApp(t, 80, 24)
	drive(a, a.Init())
	if h := headerLine(a); !strings.Contains(h, "judge offline (simulator)") || strings.Contains(h, "…") {
		t.Errorf("header at 80×24 cuts the judge: %q", h)
	}
	for _, size := range [][2]int{{120, 36}, {200, 50}} {
		a.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		if h := headerLine(a); !strings.Contains(h, "dataset demo · 12 contexts · 60 candidates · bank quality ") ||
			!strings.Contains(h, "judge offline (simulator)") {
			t.Errorf("header at %dx%d: %q", size[0], size[1], h)
		}
	}
	a.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	long := "a-judge-with-a-really-rather-long-name-of-its-own-expected"
	setFormField(t, a, runtab.FieldName, long)
	h := strings.TrimRight(headerLine(a), " ")
	if ansi.StringWidth(h) > 80 || !strings.Contains(h, "judge a-judge") || !strings.HasSuffix(h, "-expected (simulator)") {
		t.Errorf("header with a long judge name: %q", h)
	}
}

// At 80×24 every row of the latest responses shows its probe's sign: the
// context column gives way, and a probe name still too long is cut in
// its middle ("neutra…istent").
func TestRunTableKeepsProbeSign(t *testing.T) {
	t.Parallel()
	a := finishedRun(t, 80, 24)
	lr := a.run.Live()
	var rows []string
	for _, ln := range strings.Split(frame(a), "\n") {
		if parts := strings.Split(ln, "││"); len(parts) == 2 && strings.HasPrefix(parts[0], "│ ") {
			rows = append(rows, strings.TrimPrefix(parts[0], "│ "))
		}
	}
	if len(rows) < 3 || !strings.Contains(rows[1], "probe") {
		t.Fatalf("no table in the frame:\n%s", frame(a))
	}
	clipped := false
	for i, row := range rows[2:] {
		seq := lr.Applied() - 1 - i
		if !lr.Kept(seq) {
			break
		}
		p := lr.At(seq).Probe
		if strings.Contains(row, " "+p+" ") {
			continue
		}
		ok := false
		for _, field := range strings.Fields(row) {
			if head, tail, cut := strings.Cut(field, "…"); cut && len(tail) >= 3 &&
				strings.HasPrefix(p, head) && strings.HasSuffix(p, tail) {
				ok, clipped = true, true
			}
		}
		if !ok {
			t.Errorf("row %d %q hides the end of probe %q", i, row, p)
		}
	}
	if !clipped {
		t.Errorf("no probe name was middle-clipped; the test no longer covers it")
	}
}

// At 120×36 the Inspect tab shows every rank, however long, and the
// note on the fold in full.
func TestInspectKeepsRanks(t *testing.T) {
	t.Parallel()
	a := fixtureApp(t, fixtureScreened, 120, 36)
	press(a, "5", "f", "1", "down", "right", "down", "enter")
	ins := a.insp.Inspection()
	if ins == nil || ins.Fold == 0 {
		t.Fatalf("no inspection of a fitted candidate: %+v", ins)
	}
	ins.RankHuman, ins.RankBefore, ins.RankAfter = 4.5, 2.5, 3.5
	f := paneText(frame(a))
	for _, want := range []string{"human 4.5/5", "before 2.5/5", "after 3.5/5", "where this context was"} {
		if !strings.Contains(f, want) {
			t.Errorf("Inspect at 120×36 lacks %q:\n%s", want, frame(a))
		}
	}
	for _, ln := range strings.Split(frame(a), "\n") {
		if parts := strings.Split(ln, "││"); len(parts) == 2 && strings.Contains(parts[1], "…") {
			t.Errorf("Inspect at 120×36 cuts %q", parts[1])
		}
	}
}

// The Compare tab's method table gives a judge's column the width of
// its name when the row has room, and cuts a longer name in its middle.
func TestCompareKeepsJudgeNames(t *testing.T) {
	t.Parallel()
	a := twoJudgeDemo(t, 120, 36)
	press(a, "8", "c")
	if len(a.cmp.Fits()) != 2 {
		t.Fatalf("%d fits", len(a.cmp.Fits()))
	}
	const long = "gpt-4o-mini-2024-07-18-expected"
	a.cmp.Fits()[1].Judge = long
	if row := paneRow(frame(a), 0, "method "); !strings.Contains(row, "B "+long) {
		t.Errorf("method header at 120×36 cuts %q: %q", long, row)
	}
	a.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	row := paneRow(frame(a), 0, "method ")
	if !strings.Contains(row, "B gpt-4o-mini") || !strings.Contains(row, "…") || !strings.HasSuffix(row, "-expected") {
		t.Errorf("method header at 80×24: %q", row)
	}
}

// readableSizes are the sizes of the audit that the other goldens
// do not cover (80×24 is also theirs; 120×36 is the middle one).
var readableSizes = [][2]int{{80, 24}, {120, 36}}

// readableGolden compares the frame of a at every readable size with
// testdata/TestGoldenReadable/WxH/name.golden.
func readableGolden(t *testing.T, a *App, name string) {
	t.Helper()
	for _, size := range readableSizes {
		a.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		f := frame(a)
		t.Run(fmt.Sprintf("%dx%d/%s", size[0], size[1], name), func(t *testing.T) { golden.RequireEqual(t, f) })
	}
}

// Golden frames of the states issue 17 fixed, at 80×24 and 120×36: the
// header, latest responses and ratio panel of a finished run, and the
// Fit (γ sweep), Profiles (detail), Inspect, Compare and Bank (screening
// bars) screens on the two-judge fixture.
func TestGoldenReadable(t *testing.T) {
	t.Parallel()
	t.Run("run", func(t *testing.T) {
		a := finishedRun(t, 80, 24)
		freezeClock(a)
		readableGolden(t, a, "run-finished")
	})
	t.Run("judges", func(t *testing.T) {
		a := twoJudgeDemo(t, 80, 24)
		press(a, "5", "f")
		readableGolden(t, a, "fit")
		press(a, "6")
		readableGolden(t, a, "profiles")
		press(a, "1", "down", "right", "down", "enter")
		readableGolden(t, a, "inspect")
		press(a, "8", "c")
		readableGolden(t, a, "compare")
		press(a, "2")
		readableGolden(t, a, "bank-screened")
	})
}

// The Compare tab shows each judge's profile numbers beside the marks:
// under each attribute, per judge, a_k and e_k as the mean over the outer
// folds with the fold range; the sign columns say "agree" or "oppose",
// never "shared", which is e_k's own name.
func TestCompareShowsProfileNumbers(t *testing.T) {
	t.Parallel()
	a := twoJudgeDemo(t, 120, 36)
	press(a, "8", "c")
	if len(a.cmp.Fits()) != 2 {
		t.Fatalf("%d fits", len(a.cmp.Fits()))
	}
	a.Update(tea.WindowSizeMsg{Width: 120, Height: 200}) // every row on screen
	f := frame(a)
	for i, jf := range a.cmp.Fits() {
		for attr, p := range jf.Rep.Profiles {
			want := fmt.Sprintf("%c %s %s %s", compare.JudgeMark(i), jf.Label(),
				widgets.FoldRange(p.A.Mean, p.A.Min, p.A.Max), widgets.FoldRange(p.E.Mean, p.E.Min, p.E.Max))
			found := false
			for _, ln := range strings.Split(f, "\n") {
				if strings.Join(strings.Fields(strings.Trim(ln, "│")), " ") == want {
					found = true
				}
			}
			if !found {
				t.Errorf("%s: no row %q:\n%s", attr, want, f)
			}
		}
	}
	if strings.Contains(f, "shared") {
		t.Errorf("Compare still says \"shared\":\n%s", f)
	}
}

func TestFixed4(t *testing.T) {
	t.Parallel()
	for f, want := range map[float64]string{
		0.0414: "+0.0414", -2.034e-05: "+0.0000", 5.327e-06: "+0.0000", -0.00941: "-0.0094", 0: "+0.0000",
	} {
		if got := widgets.Fixed4(f); got != want {
			t.Errorf("fixed4(%g) = %q, want %q", f, got, want)
		}
	}
}

// A ratio of 12.8 (as the expected-score mode gives) lies within the Run
// panel's axis, and its bar keeps a space from its number.
func TestRunRatioAxisCoversValues(t *testing.T) {
	t.Parallel()
	a := finishedRun(t, 120, 36)
	r := &runSignal(a).Rows[0]
	r.Ratio, r.Lo, r.Hi, r.HasSignal, r.TooFew = 12.8, 11.9, 12.8, true, false
	f := frame(a)
	if !strings.Contains(f, "ratio 0…13, │ = 1") {
		t.Errorf("the axis does not reach 12.8:\n%s", f)
	}
	row := paneRow(f, 1, r.Name+" ")
	bar, _, ok := strings.Cut(row, "12.80")
	if !ok || !strings.HasSuffix(bar, " ") {
		t.Errorf("row %q: the bar runs into the number", row)
	}
	if ax := widgets.RatioAxis(12.8); ax < 12.8 {
		t.Errorf("ratioAxis(12.8) = %g", ax)
	}
}

// The Bank tab's screening bars have an axis: labelled ticks under
// the bars, the 1 over the bars' │ marker.
func TestBankScreeningAxis(t *testing.T) {
	t.Parallel()
	a := fixtureApp(t, fixtureScreened, 120, 36)
	press(a, "2")
	f := frame(a)
	var bar, ticks string
	for _, ln := range strings.Split(f, "\n") {
		parts := strings.Split(ln, "││")
		if len(parts) != 2 {
			continue
		}
		switch right := []rune(parts[1]); {
		case strings.HasPrefix(parts[1], " pooled "):
			bar = string(right)
		case bar != "" && ticks == "":
			ticks = string(right)
		}
	}
	one := strings.IndexRune(bar, '│')
	if one < 0 || !strings.Contains(ticks, " 0 ") || !strings.Contains(ticks, " 2") {
		t.Fatalf("no axis under the pooled bar %q: %q\n%s", bar, ticks, f)
	}
	if i := len([]rune(bar[:one])); len([]rune(ticks)) <= i || []rune(ticks)[i] != '1' {
		t.Errorf("the tick 1 is not over the marker:\n%s\n%s", bar, ticks)
	}
}

// The profile detail shows every number in one precision, without
// e-notation, and the γ sweep labels its right-hand number.
func TestProfileDetailOnePrecision(t *testing.T) {
	t.Parallel()
	a := fixtureApp(t, fixtureScreened, 120, 36)
	press(a, "5", "f")
	if row := paneRow(frame(a), 1, "γ    "); !strings.HasSuffix(row, " PRISM") {
		t.Errorf("the γ sweep's right-hand number has no label:\n%s", frame(a))
	}
	press(a, "6")
	for _, size := range readableSizes {
		a.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		for i, attr := range a.prof.Attrs() {
			a.prof.Select(i)
			f := frame(a)
			for _, word := range strings.Fields(paneText(f)) {
				if strings.ContainsAny(word, "0123456789") && strings.Contains(word, "e-") {
					t.Errorf("%s at %dx%d: e-notation %q:\n%s", attr, size[0], size[1], word, f)
				}
				if word == "-0.0000" {
					t.Errorf("%s at %dx%d: negative zero", attr, size[0], size[1])
				}
			}
			p := a.prof.Report().Profiles[attr]
			if !strings.Contains(paneText(f), "a_k mean "+widgets.Fixed4(p.A.Mean)+" min "+widgets.Fixed4(p.A.Min)) {
				t.Errorf("%s: detail lacks a_k in fixed decimals:\n%s", attr, f)
			}
		}
	}
}
