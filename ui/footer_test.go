package ui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
)

// footerSizes are the sizes TestGoldenTabsFooter draws every tab at: the
// smallest supported terminal and a large one.
var footerSizes = [][2]int{{80, 24}, {200, 60}}

// Every tab of the demo, after the README's walkthrough (a screen, a
// selection, a fit, a comparison), ends its help bar with "? more keys"
// and "q quit" at 80×24 as at 200×60: the bar drops the tab's own
// entries first. The frames are golden too.
func TestGoldenTabsFooter(t *testing.T) {
	t.Parallel()
	a := walkthroughDemo(t, 80, 24)
	press(a, "2", "s", "4", "r", "5", "f", "8", "c", "1", "down", "right", "down", "enter")
	tabs := []struct{ key, name string }{{"1", "data"}, {"2", "bank"}, {"3", "run"}, {"4", "select"},
		{"5", "fit"}, {"6", "profiles"}, {"7", "inspect"}, {"8", "compare"}}
	for _, size := range footerSizes {
		a.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			for _, tb := range tabs {
				press(a, tb.key)
				f := frame(a)
				lines := strings.Split(f, "\n")
				bar := lines[len(lines)-1]
				if !strings.HasSuffix(strings.TrimRight(bar, " "), "? more keys • q quit") {
					t.Errorf("%s: help bar %q lacks ? and q at its end", tb.name, bar)
				}
				if len(lines) != size[1] {
					t.Errorf("%s: %d lines, want %d", tb.name, len(lines), size[1])
				}
				t.Run(tb.name, func(t *testing.T) { golden.RequireEqual(t, f) })
			}
		})
	}
}

// At 80×24 the parts of the Select and Fit tabs below the fold are
// reachable by scrolling: the forward selection's last step (the right
// pane, G) with the pane's title still on top, and the Fit tab's γ sweep.
func TestSmallTabsScroll(t *testing.T) {
	t.Parallel()
	a := walkthroughDemo(t, 80, 24)
	press(a, "2", "s", "4", "r")
	rep := a.sel.Report()
	if rep == nil || len(rep.Forward) == 0 {
		t.Fatal("no selection")
	}
	press(a, "right", "G")
	f := frame(a)
	last := rep.Forward[len(rep.Forward)-1]
	if !strings.Contains(f, "Omission · forward selection") || !strings.Contains(f, last.Added) {
		t.Errorf("Select at 80×24, G on the right pane: no title or last forward step %q:\n%s", last.Added, f)
	}
	press(a, "5", "f", "G")
	if f := frame(a); !strings.Contains(f, "γ sweep") || !strings.Contains(f, "Fit · spearman") {
		t.Errorf("Fit at 80×24, G: no γ sweep under the title:\n%s", f)
	}
}

// However narrow the terminal (down to the smallest the App draws, 60
// wide), the help bar keeps "? more keys" and "q quit" at its end and
// fits the width.
func TestHelpBarKeepsHelpAndQuit(t *testing.T) {
	t.Parallel()
	a := demoApp(t, 60, 24)
	drive(a, a.Init())
	for _, k := range []string{"1", "2", "3", "4", "5", "6", "7", "8"} {
		press(a, k)
		for _, w := range []int{minWidth, 64, 72} {
			a.Update(tea.WindowSizeMsg{Width: w, Height: 24})
			bar := ansi.Strip(a.helpView())
			if !strings.HasSuffix(bar, "? more keys • q quit") || ansi.StringWidth(bar) > w {
				t.Errorf("tab %s at width %d: help bar %q", k, w, bar)
			}
		}
	}
}
