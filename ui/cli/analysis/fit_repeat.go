package analysis

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

// checkRepeat refuses a --repeat-cv that cannot run: K < 1, a given π
// (--order: one permutation, it cannot be repeated), and the confirm
// protocol (no π folds to repeat).
func (f *fitFlags) checkRepeat() error {
	k := *f.repeatCV
	switch {
	case k < 1:
		return clikit.UsageErr(fitUsage, "--repeat-cv %d: want at least 1", k)
	case k == 1:
		return nil
	case *f.order != "":
		return clikit.UsageErr(fitUsage, "--repeat-cv %d draws %d fold permutations from the seed: not with --order (a given π cannot be repeated)", k, k)
	case *f.confirm.protocol == protocolConfirm:
		return clikit.UsageErr(fitUsage, "--repeat-cv repeats the nested CV's fold permutations: not with --protocol confirm")
	}
	return nil
}

// printRepeatCV prints the summary of repeated nested CV, if any: per
// method the out-of-fold mean over the fold permutations with its range,
// and the gain over Vanilla with how often its interval excludes 0.
func printRepeatCV(w io.Writer, r *calib.Report, methods []methodLabel) {
	rc := r.RepeatCV
	if rc == nil {
		return
	}
	k := rc.Permutations
	fmt.Fprintf(w, "\nrepeated CV: %d fold permutations (seeds %d…%d); the table above is the first's\n", k, rc.Seeds[0], rc.Seeds[1])
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "method\tmean\t[min, max]\tΔ vs Vanilla\t[min, max]\tCI > 0\tCI < 0\t")
	for _, ml := range methods {
		rm := rc.Methods[ml.m.String()]
		if rm == nil {
			continue
		}
		fmt.Fprintf(tw, "%s\t%.4f\t[%.4f, %.4f]\t", ml.label, rm.Mean, rm.Min, rm.Max)
		if g := rm.Gain; g != nil {
			fmt.Fprintf(tw, "%+.4f\t[%+.4f, %+.4f]\t%d/%d\t%d/%d\t", g.Mean, g.Min, g.Max, g.Above, k, g.Below, k)
		} else {
			fmt.Fprint(tw, "\t\t\t\t")
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}
