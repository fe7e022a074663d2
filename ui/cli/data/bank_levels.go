package data

import (
	"strings"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/model"
)

// showLevels prints a bank's graded wordings, worded controls and joint
// instructions (docs/banks.md) for prism bank show, and returns how many
// conditions they add (0, printing nothing, for a bank without them).
func showLevels(p func(string, ...any), b *banks.Bank) int {
	n := len(b.Conditions()) - 1 - len(b.Neutrals) - len(b.ContextProbes)
	for _, a := range b.Attributes {
		n -= len(a.Wordings(b.Templates, true)) + len(a.Wordings(b.Templates, false))
	}
	if n == 0 {
		return 0
	}
	l := b.Levels
	if b.HasLevels() {
		p("\ngraded wordings and worded controls ([clause] per attribute; probes ATTR:LEVEL):\n")
		for _, lv := range []struct {
			name string
			ts   []string
		}{{model.LevelControl, l.Control}, {model.LevelSlightlyPlus, l.SlightlyPlus}, {model.LevelSlightlyMinus, l.SlightlyMinus},
			{model.LevelMuchPlus, l.MuchPlus}, {model.LevelMuchMinus, l.MuchMinus}} {
			for i, t := range lv.ts {
				p("  %-9s w%d  %s\n", lv.name, i, t)
			}
		}
	}
	if len(b.Joint.Pairs) > 0 {
		p("\njoint instructions (probes joint:A/B:++, +-, -+, --):\n")
		for _, t := range b.Joint.Templates {
			p("  %s\n", t)
		}
		pairs := make([]string, len(b.Joint.Pairs))
		for i, pr := range b.Joint.Pairs {
			pairs[i] = strings.Join(pr, "/")
		}
		p("  pairs (%d): %s\n", len(pairs), strings.Join(pairs, ", "))
	}
	return n
}
