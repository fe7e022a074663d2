package acquire

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/prism-eval/prism/calib/diag"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

func init() {
	registerDiagnosis("wording", "wording strength: slightly/standard/much responses projected onto the standard half-difference; reproducible RMS of O, E^c, E^base per level (paper §2.2, Fig. 3)", runDiagnoseWording)
}

const diagnoseWordingUsage = "prism diagnose wording" + ladderSynopsis + `

Wording strength (docs/protocol.md §15.1, docs/diagnostics.md): for each
attribute with a worded control (ATTR:control) and the standard probes,
the projection of each wording level's responses (slightly, standard, much
more/less, about the control and about the Vanilla baseline) onto the
attribute's standard half-difference, and the reproducible RMS (Q across
runs) of O, E^c = (s⁺ + s⁻)/2 − s(p⁰) and E^base = E^c + Z at each level,
pooled over attributes by averaging second moments, with 95%
context-bootstrap intervals. Default bank: the built-in ladder (six style
properties with every level). The bank's conditions are acquired through
the engine first (answers already stored are reused; --stored sends
nothing; --dry-run prints the estimate and stops). Needs ≥ 2 runs and,
per attribute, 5 contexts with 2 or more candidates answered under every
ladder condition in every run; less is reported as "too few", never as a
number.`

// wordingJSON is the document of prism diagnose wording --json.
type wordingJSON struct {
	diagData
	Wording *diag.WordingReport `json:"wording"`
}

func runDiagnoseWording(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runLadderDiagnosis(ctx, "prism diagnose wording", diagnoseWordingUsage, args, stdout, stderr, diag.Wording,
		func(dd diagData, r *diag.WordingReport) any { return wordingJSON{dd, r} }, printWording)
}

// printWording writes the wording report as tables: per attribute and
// level the projections (Fig. 3a), then the pooled RMS (Fig. 3b).
func printWording(w io.Writer, dd *diagData, r *diag.WordingReport) {
	if !printLadderHead(w, "wording strength", dd, r.Runs, r.Bootstrap, r.Seed, r.TooFew, len(r.Pooled), len(r.Attributes)) {
		return
	}
	fmt.Fprintln(w, "\nprojection onto the standard half-difference Q(D, O_std)/Q(O_std, O_std); D about the worded control (control = 0)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "attribute\tlevel\tmore\t95% CI\tless\t95% CI\tmore vs s0\tless vs s0\t")
	for _, a := range r.Attributes {
		if a.TooFew != "" {
			fmt.Fprintf(tw, "%s\ttoo few: %s\t\t\t\t\t\t\t\n", a.Name, a.TooFew)
			continue
		}
		fmt.Fprintf(tw, "%s\tcontrol\t0\t\t0\t\t%s\t%s\t\n", a.Name, clikit.Num(a.ControlProjection.Value), clikit.Num(a.ControlProjection.Value))
		for _, l := range a.Levels {
			fmt.Fprintf(tw, "\t%s (±%d)\t%s\t%s\t%s\t%s\t%s\t%s\t\n", l.Level, l.Strength, clikit.Num(l.PlusProjection.Value), clikit.Interval(l.PlusProjection.CI),
				clikit.Num(l.MinusProjection.Value), clikit.Interval(l.MinusProjection.CI), clikit.Num(l.PlusProjectionBase.Value), clikit.Num(l.MinusProjectionBase.Value))
		}
	}
	tw.Flush()
	fmt.Fprintln(w, "\nreproducible RMS pooled over attributes (mean of Q before the square root)")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "level\tattributes\tO\tE^c\tE^base\tE^c/O\tE^base/O\t")
	for _, p := range r.Pooled {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t\n", p.Level, len(p.Attributes), est(p.ORMS), est(p.EcRMS), est(p.EbaseRMS), est(p.EcOverO), est(p.EbaseOverO))
	}
	tw.Flush()
	var few []string
	for _, a := range r.Attributes {
		if a.TooFew != "" {
			few = append(few, a.Name)
		}
	}
	if len(few) > 0 {
		fmt.Fprintf(w, "left out of the pooled rows (too few): %s\n", strings.Join(few, ", "))
	}
}
