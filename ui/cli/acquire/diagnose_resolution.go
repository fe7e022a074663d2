package acquire

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/prism-eval/prism/calib/diag"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

func init() {
	registerDiagnosis("resolution", "score resolution: tied candidate pairs and zero probe responses on two scales (1–10 vs 0–100) for the same items (paper §D.6)", runDiagnoseResolution)
}

const diagnoseResolutionUsage = `prism diagnose resolution [--scales A,B] [--bank BANK] [--dataset NAME] [--repeats R] [--contexts N]
          [--sample-seed S] [--bootstrap B] [--boot-seed S] [--stored] [--json] [--backend offline|openai]
          [--judge NAME] [--dry-run] [--max-cost USD] [--max-requests N] [--confirm-above USD] [--yes]
          [--workspace FILE] [judge and run flags as for prism run]

Score resolution (docs/protocol.md §15.3, docs/diagnostics.md): the judge
scores the same items under the bank on two scales (--scales, default
"bank,0-100": the bank's own scale and 0–100; each MIN-MAX, anchors
mapped onto it, each scale its own bank hash, as prism run --scale
acquires it). The conditions of both scales are acquired through the
engine first (answers already stored are reused; --stored sends nothing;
--dry-run prints both estimates and stops; --max-cost and --max-requests
apply to the two scales' sends together).
Per scale: the share of tied candidate pairs within contexts (baseline
scores, per run) and the share of zero probe responses (J's columns
ATTR:± and ctx:NAME, wordings averaged within the run); then how both
change from A to B, with 95% context-bootstrap intervals. Only
items answered on both scales count. Needs 1 run (default 1) and 5
contexts with a candidate pair on both scales; less is reported as "too
few", never as a number.`

// resolutionJSON is the document of prism diagnose resolution --json.
type resolutionJSON struct {
	A          diagData               `json:"a"`
	B          diagData               `json:"b"`
	Resolution *diag.ResolutionReport `json:"resolution"`
}

func runDiagnoseResolution(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	d := newDiagStudy("prism diagnose resolution", diagnoseResolutionUsage, stderr)
	d.s.fs.Hide("scale")
	scales := d.s.fs.String("scales", "bank,0-100", "the two scales `A,B`, each MIN-MAX or bank (the bank's own)")
	d.repeats.setDefault(1, "runs per condition, each a separate request")
	if help, err := d.parse(args, stdout); err != nil || help {
		return err
	}
	if *d.s.scale != "" {
		return clikit.UsageErr(diagnoseResolutionUsage, "prism diagnose resolution takes --scales A,B, not --scale")
	}
	parts := strings.Split(*scales, ",")
	if len(parts) != 2 {
		return clikit.UsageErr(diagnoseResolutionUsage, "--scales %q: want two scales A,B", *scales)
	}
	edits := make([]func(*banks.Bank, string) error, 2)
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if p == "bank" {
			continue
		}
		lo, hi, err := banks.ParseScale(p)
		if err != nil {
			return clikit.UsageErr(diagnoseResolutionUsage, "--scales: %v", err)
		}
		edits[i] = func(b *banks.Bank, task string) error { return b.Rescale(task, lo, hi) }
	}
	data, err := d.loadScales(ctx, parts, edits, d.info(stdout, stderr), stderr)
	if err != nil || data[0] == nil { // nil: a dry run
		return err
	}
	if data[0].BankHash == data[1].BankHash {
		return clikit.UsageErr(diagnoseResolutionUsage, "--scales %q: the two scales are the same (%s)", *scales, data[0].Scale)
	}
	rep, err := diag.Resolution(ctx, data[0].rows, data[1].rows, data[0].Scale, data[1].Scale, d.options(*d.s.fs.Workspace))
	if err != nil {
		return err
	}
	if *d.asJSON {
		return clikit.WriteJSON(stdout, resolutionJSON{*data[0], *data[1], rep})
	}
	var buf bytes.Buffer
	fmt.Fprintln(&buf)
	clikit.PrintStudy(&buf, data[0].Study)
	clikit.PrintStudy(&buf, data[1].Study)
	printResolution(&buf, data[0], rep)
	return clikit.WriteTrimmed(stdout, buf.String())
}

// loadScales plans the study on both scales, checks their estimates
// together against the spend flags (so a refusal sends nothing on either),
// then acquires both. A dry run returns no data and no error.
func (d *diagStudy) loadScales(ctx context.Context, parts []string, edits []func(*banks.Bank, string) error, info, stderr io.Writer) ([2]*diagData, error) {
	var data [2]*diagData
	var plans [2]*diagPlan
	defer func() {
		for _, p := range plans {
			if p != nil {
				p.st.Close()
			}
		}
	}()
	for i := range plans {
		fmt.Fprintf(info, "scale %s:\n", strings.TrimSpace(parts[i]))
		p, err := d.plan(ctx, "", edits[i], info)
		if err != nil {
			return data, err
		}
		plans[i] = p
	}
	e := clikit.SumEstimates(plans[0].plan.Estimate, plans[1].plan.Estimate)
	if send, err := d.check(e, plans[0].spec.Config.Backend, info, stderr); !send {
		return data, err
	}
	for i, p := range plans {
		plans[i] = nil // acquire closes it on an error, the data holds it else
		dd, err := d.acquire(ctx, p, info, stderr)
		if err != nil {
			return [2]*diagData{}, err
		}
		dd.st.Close()
		data[i] = dd
	}
	return data, nil
}

func printResolution(w io.Writer, dd *diagData, r *diag.ResolutionReport) {
	fmt.Fprintf(w, "score resolution: %s, judge %s, bank %s, scales %s and %s; %d run(s), %d contexts, %d candidates\n",
		dd.Dataset, dd.Judge, dd.Bank, r.A.Scale, r.B.Scale, r.Runs, r.Contexts, r.Candidates)
	if r.TooFew != "" {
		fmt.Fprintf(w, "too few: %s\n", r.TooFew)
		return
	}
	fmt.Fprintf(w, "%d candidate pairs and %d probe responses compared on both scales; %d context-bootstrap resamples, seed %d\n\n", r.Pairs, r.Responses, r.Bootstrap, r.Seed)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "share\t%s\t%s\tchange (B − A)\t\n", r.A.Scale, r.B.Scale)
	fmt.Fprintf(tw, "tied pairs\t%s\t%s\t%s\t\n", pct(r.A.TiedShare), pct(r.B.TiedShare), pct(r.TiedChange))
	fmt.Fprintf(tw, "zero responses\t%s\t%s\t%s\t\n", pct(r.A.ZeroShare), pct(r.B.ZeroShare), pct(r.ZeroChange))
	tw.Flush()
}

// pct prints a share as a percentage with its interval.
func pct(e diag.Est) string {
	p := func(x float64) string { return strconv.FormatFloat(100*x, 'f', 1, 64) + "%" }
	if e.Value != e.Value {
		return "—"
	}
	if e.CI[0] != e.CI[0] {
		return p(e.Value)
	}
	return fmt.Sprintf("%s [%s, %s]", p(e.Value), p(e.CI[0]), p(e.CI[1]))
}
