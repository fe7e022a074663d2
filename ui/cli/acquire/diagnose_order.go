package acquire

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/prism-eval/prism/calib/order"

	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

func init() {
	registerDiagnosis("order", "presentation order of listwise scoring: averaged-order response correlation, Kendall τ reversed vs repeat, Spearman vs pointwise", runDiagnoseOrder)
}

const diagnoseOrderUsage = `prism diagnose order [--dataset NAME] [--judge LISTWISE] [--pointwise JUDGE] [--bank BANK]
          [--probes P,P,…] [--bootstrap B] [--boot-seed S] [--min-contexts N] [--json] [--workspace FILE]

Presentation-order diagnostics of listwise scoring (docs/protocol.md
§14, docs/diagnostics.md "Presentation order"), computed from stored answers
only: it sends nothing, so it has no --stored (wording, joint and
resolution acquire first). It needs a prior listwise run and, for the
references and the Spearman comparison, a pointwise run of the same bank:

  prism run --bank BANK --repeats 2                           # pointwise, 2 runs
  prism run --bank BANK --listwise --orders 8 --repeats 2     # listwise, 8 orders, 2 runs

Reports the probe-response correlation between disjoint sets of M averaged
orders (M = 1, 2, 4, … up to half the orders), with the references of two
repeats of one order and two pointwise runs; the within-context Kendall τ_b of
baseline scores between an order and its reversal and between two repeats of
one order; and the uncalibrated mean within-context Spearman with the human
targets of pointwise scoring and of listwise scoring averaged over 1, 2, 4, …
orders, with paired gains over pointwise and 95% context-bootstrap intervals.
An estimate from fewer than --min-contexts contexts (default 5), or without the
data it needs, says "too few" and what to run instead of giving a number.
--judge defaults to the only listwise judge on the dataset, --pointwise to that
name without "-batched" (the stored suffix of a listwise judge), --bank to the
only bank the listwise judge was run with.`

// orderJSON is the document of prism diagnose order --json
// (docs/diagnostics.md, "Presentation order").
type orderJSON struct {
	Dataset   string        `json:"dataset"`
	Listwise  string        `json:"batched_judge"` // the key keeps the former word
	Pointwise string        `json:"pointwise_judge"`
	BankHash  string        `json:"bank_hash"`
	OrderSeed int64         `json:"order_seed"`
	Report    *order.Report `json:"order"`
}

func runDiagnoseOrder(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := clikit.NewWorkspaceFlags("prism diagnose order", stderr, diagnoseOrderUsage)
	dataset := fs.String("dataset", "", "dataset `NAME` in the workspace (default: the only one)")
	bj := fs.String("judge", "", "the listwise study's judge `NAME` (default: the only listwise judge on the dataset)")
	pj := fs.String("pointwise", "", "the pointwise study's judge `NAME` (default: --judge without -batched, when stored)")
	bank := fs.String("bank", "", "the `BANK` (built-in name, TOML file or workspace hash prefix; default: the listwise judge's only one)")
	probes := fs.String("probes", "", "comma-separated probes whose responses are correlated (default: every attribute and context probe)")
	opts := order.DefaultOptions()
	boot := fs.Int("bootstrap", opts.Bootstrap, "context-bootstrap resamples")
	seed := fs.Uint64("boot-seed", opts.Seed, "bootstrap seed")
	minCtx := fs.Int("min-contexts", opts.MinContexts, "fewest contexts an estimate is given from")
	asJSON := fs.Bool("json", false, "print the documented JSON report")
	pos, help, err := fs.ParseArgs(args, stdout)
	if err != nil || help {
		return err
	}
	if err := clikit.NoArgs(diagnoseOrderUsage, pos); err != nil {
		return err
	}
	switch {
	case *boot < 1:
		return clikit.UsageErr(diagnoseOrderUsage, "--bootstrap %d: want at least 1", *boot)
	case *minCtx < 1:
		return clikit.UsageErr(diagnoseOrderUsage, "--min-contexts %d: want at least 1", *minCtx)
	}
	st, err := clikit.OpenWorkspaceRO(ctx, *fs.Workspace)
	if err != nil {
		return err
	}
	defer st.Close()
	ds, err := clikit.PickDataset(ctx, st, *dataset, diagnoseOrderUsage)
	if err != nil {
		return err
	}
	d, err := st.Dataset(ctx, ds)
	if err != nil {
		return err
	}
	s := study.OrderStudy{Dataset: ds, Batched: *bj, Pointwise: *pj}
	if *bank != "" {
		b, _, err := clikit.ResolveBank(ctx, *bank, fs)
		if err != nil {
			return err
		}
		s.BankHash = b.Hash()
	}
	if *probes != "" {
		for _, p := range strings.Split(*probes, ",") {
			if p = strings.TrimSpace(p); p != "" {
				s.Probes = append(s.Probes, p)
			}
		}
	}
	if s, err = study.FindOrderStudy(ctx, st, s); err != nil {
		return err
	}
	data, err := study.OrderDataOf(ctx, st, d, s)
	if err != nil {
		return err
	}
	rep, err := order.Diagnostics(data, order.Options{Bootstrap: *boot, Seed: *seed, MinContexts: *minCtx})
	if err != nil {
		return err
	}
	j, err := st.Judge(ctx, s.Batched)
	if err != nil {
		return err
	}
	orderSeed, _ := j.OrderSeed()
	if *asJSON {
		return clikit.WriteJSON(stdout, orderJSON{Dataset: ds, Listwise: s.Batched, Pointwise: s.Pointwise, BankHash: s.BankHash, OrderSeed: orderSeed, Report: rep})
	}
	var buf bytes.Buffer
	pw := s.Pointwise
	if pw == "" {
		pw = "none"
	}
	fmt.Fprintf(&buf, "dataset %s, bank %.12s: listwise judge %s (order seed %d), pointwise judge %s\n", ds, s.BankHash, s.Batched, orderSeed, pw)
	printOrderReport(&buf, rep)
	return clikit.WriteTrimmed(stdout, buf.String())
}

// orderValueText is an estimate with its interval, or why it is missing.
func orderValueText(v order.Stat) string {
	if v.Value == nil {
		return v.TooFew
	}
	s := clikit.Num(*v.Value)
	if v.CI != nil {
		s += " " + clikit.Interval(*v.CI)
	}
	return s
}

// printOrderReport writes the three diagnostics as tables.
func printOrderReport(w io.Writer, r *order.Report) {
	fmt.Fprintf(w, "%d contexts; %d orders, up to %d repeats; %d pointwise runs; units %s; %d context-bootstrap resamples, seed %d; estimates need %d contexts\n",
		r.Contexts, r.Orders, r.Repeats, r.PointRuns, strings.Join(r.Units, " "), r.Bootstrap, r.Seed, r.MinCtx)
	fmt.Fprintln(w, "\nprobe-response correlation between disjoint sets of averaged orders (95% CI)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "orders averaged\tcorrelation\tcontexts\t")
	for _, p := range r.Curve {
		fmt.Fprintf(tw, "%d\t%s\t%d\t\n", p.Orders, orderValueText(p.Stat), p.Contexts)
	}
	fmt.Fprintf(tw, "repeat of one order\t%s\t%d\t\n", orderValueText(r.RepeatRef), r.RepeatRef.Contexts)
	fmt.Fprintf(tw, "pointwise repeat\t%s\t%d\t\n", orderValueText(r.PointRef), r.PointRef.Contexts)
	tw.Flush()
	fmt.Fprintln(w, "\nwithin-context Kendall τ_b of baseline scores (95% CI)")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "reversed order\t%s\t%d contexts\t\n", orderValueText(r.KendallRev), r.KendallRev.Contexts)
	fmt.Fprintf(tw, "unchanged-order repeat\t%s\t%d contexts\t\n", orderValueText(r.KendallRep), r.KendallRep.Contexts)
	fmt.Fprintf(tw, "reversed − repeat\t%s\t%d contexts\t\n", orderValueText(r.KendallGap), r.KendallGap.Contexts)
	tw.Flush()
	fmt.Fprintln(w, "\norder-induced variation of baseline scores (95% CI)")
	if p := r.Positions; p.FirstShift == nil {
		fmt.Fprintf(w, "  %s\n", p.TooFew)
	} else {
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "first-position shift\t%s %s\t\n", clikit.Num(*p.FirstShift), clikit.Interval(*p.FirstCI))
		fmt.Fprintf(tw, "share: shift of the whole call\t%s\t\n", clikit.Num(*p.OrderShare))
		fmt.Fprintf(tw, "share: additive position effects\t%s %s\t\n", clikit.Num(*p.PositionShare), clikit.Interval(*p.PositionShareCI))
		fmt.Fprintf(tw, "share: order × candidate interaction\t%s %s\t\n", clikit.Num(*p.InteractionShare), clikit.Interval(*p.InteractionCI))
		tw.Flush()
	}
	fmt.Fprintln(w, "\nuncalibrated mean within-context Spearman with the human targets (95% CI; gain paired over pointwise)")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "format\tcalls per context\tSpearman\tgain vs pointwise\t")
	for _, s := range r.Spearman {
		name := "pointwise (run 0)"
		if s.Format == "batched" { // the stored format name, kept
			name = fmt.Sprintf("listwise, %d order(s)", s.Orders)
		}
		if s.Spearman == nil {
			fmt.Fprintf(tw, "%s\t%s\t%s\t\t\n", name, clikit.Num(s.CallsPerCtx), s.TooFew)
			continue
		}
		gain := "—"
		if s.GainVsPoint != nil {
			gain = clikit.Num(*s.GainVsPoint) + " " + clikit.Interval(*s.GainCI)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s %s\t%s\t\n", name, clikit.Num(s.CallsPerCtx), clikit.Num(*s.Spearman), clikit.Interval(*s.CI), gain)
	}
	tw.Flush()
	fmt.Fprintln(w, "\ncalls per context are per condition and run: pointwise one per candidate, listwise one per order")
}
