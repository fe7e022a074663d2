package acquire

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/prism-eval/prism/calib/diag"
)

func init() {
	registerDiagnosis("joint", "joint instructions: main effects projected onto the single-probe half-differences and the interaction RMS per attribute pair (paper §B.5, Fig. 7)", runDiagnoseJoint)
}

const diagnoseJointUsage = "prism diagnose joint" + ladderSynopsis + `

Joint instructions (docs/protocol.md §15.2, docs/diagnostics.md): for each
attribute pair of the bank's [joint] table, the main effects M_a, M_b of
the four joint instructions (++, +−, −+, −−) projected onto the attributes'
single-probe standard half-differences (1: the same projected effect as
alone), and the interaction's reproducible RMS relative to the main
effects', per pair and pooled over pairs (second moments summed), with
95% context-bootstrap intervals. Default bank: the built-in ladder (15
pairs of six style properties). The bank's conditions are acquired through
the engine first (answers already stored are reused; --stored sends
nothing; --dry-run prints the estimate and stops). Needs ≥ 2 runs and,
per pair, 5 contexts with 2 or more candidates answered under its joint
and single probes in every run; less is reported as "too few", never as
a number.`

// jointJSON is the document of prism diagnose joint --json.
type jointJSON struct {
	diagData
	Joint *diag.JointReport `json:"joint"`
}

func runDiagnoseJoint(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runLadderDiagnosis(ctx, "prism diagnose joint", diagnoseJointUsage, args, stdout, stderr, diag.Joint,
		func(dd diagData, r *diag.JointReport) any { return jointJSON{dd, r} }, printJoint)
}

func printJoint(w io.Writer, dd *diagData, r *diag.JointReport) {
	if !printLadderHead(w, "joint instructions", dd, r.Runs, r.Bootstrap, r.Seed, r.TooFew, r.PooledPairs, len(r.Pairs)) {
		return
	}
	fmt.Fprintln(w, "\nmain effects projected onto the single-probe half-differences (1: as alone); interaction RMS / main-effect RMS")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "pair\tM_a onto O_a\tM_b onto O_b\tinteraction / main\t")
	for _, p := range r.Pairs {
		if p.TooFew != "" {
			fmt.Fprintf(tw, "%s/%s\ttoo few: %s\t\t\t\n", p.A, p.B, p.TooFew)
			continue
		}
		fmt.Fprintf(tw, "%s/%s\t%s\t%s\t%s\t\n", p.A, p.B, est(p.ProjectionA), est(p.ProjectionB), est(p.Interaction))
	}
	if r.PooledPairs > 0 {
		fmt.Fprintf(tw, "pooled (%d pairs)\t%s\t\t%s\t\n", r.PooledPairs, est(r.PooledProjection), est(r.PooledInteraction))
	}
	tw.Flush()
}
