package acquire

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"github.com/prism-eval/prism/calib/signal"

	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

func init() {
	clikit.Register("screen", "signal screen of a probe bank on a sample of contexts: probe vs neutral and repeat RMS, pass/fail per unit", runScreen)
}

const screenUsage = `prism screen [--bank BANK] [--dataset NAME] [--contexts N] [--repeats R] [--sample-seed S]
          [--bootstrap B] [--per-wording] [--json] [--backend offline|openai] [--judge NAME]
          [--dry-run] [--max-cost USD] [--max-requests N] [--confirm-above USD] [--yes]
          [--workspace FILE] [judge and run flags as for prism run]

Runs the bank on a seeded sample of N contexts (default 20) with R runs
(default 2, so that the repeat reference exists) through the same engine and
cache as prism run: answered requests are reused, and what the screen sends is
reused by a later full run. Then prints the signal diagnostics of docs/protocol.md §8:
per unit (attribute, both signs pooled; context probe) the RMS of its
displacements from the same run's baseline, its ratio to the neutral clauses'
RMS and to the Vanilla repeat reference with 95% context-bootstrap intervals,
the reproducible RMS and across-run correlation, and the screen: a unit
passes when the 2.5% bound of its ratio to neutral exceeds 1. A sign's
wordings (and same-run repeats) are averaged before the displacement is
taken, as the protocol defines s(x; p); --per-wording pools each wording's
displacement separately instead. A unit with displacements from fewer than
5 contexts (signal.MinContexts), or a neutral reference from fewer,
gets no verdict ("too few").
Without --bank, the first built-in bank for the dataset's task.
The sample is the first N context ids of the seeded shuffle that orders
the folds (calib.Permutation with --sample-seed), in dataset order.`

// screenJSON is the document of prism screen --json.
type screenJSON struct {
	Dataset  string         `json:"dataset"`
	Bank     string         `json:"bank"`
	BankHash string         `json:"bank_hash"`
	Judge    string         `json:"judge"`
	Contexts []string       `json:"contexts"` // the sampled context ids, dataset order
	Study    *model.Study   `json:"study"`    // what the screen read: the sample, runs 0…R−1
	Signal   *signal.Report `json:"signal"`
}

func runScreen(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	s := newStudyFlags("prism screen", screenUsage, stderr)
	nctx := s.fs.Int("contexts", 20, "contexts in the sample (0: all)")
	repeats := s.repeatsDefault(2, "runs per condition, each a separate request (≥ 2 for the repeat reference)")
	sampleSeed := s.fs.Uint64("sample-seed", 42, "seed of the context sample")
	boot := s.fs.Int("bootstrap", signal.DefaultOptions().Bootstrap, "context-bootstrap resamples")
	perWording := s.fs.Bool("per-wording", false, "pool each wording's displacement separately instead of averaging a sign's wordings")
	asJSON := s.fs.Bool("json", false, "print the diagnostics as JSON (progress goes to stderr)")
	spend := clikit.AddSpendFlags(s.fs)
	pos, help, err := s.fs.ParseArgs(args, stdout)
	if err != nil || help {
		return err
	}
	if err := clikit.NoArgs(screenUsage, pos); err != nil {
		return err
	}
	runs, err := repeats.value()
	if err != nil {
		return err
	}
	switch {
	case *nctx < 0:
		return clikit.UsageErr(screenUsage, "--contexts %d: want ≥ 0", *nctx)
	case runs < 1:
		return clikit.UsageErr(screenUsage, "--repeats %d: want at least 1", runs)
	case *boot < 1:
		return clikit.UsageErr(screenUsage, "--bootstrap %d: want at least 1", *boot)
	}
	st, spec, err := s.spec(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	spec.Repeats, spec.Diagnostic = runs, "screen"
	spec.Dataset = signal.ScreenSample(spec.Dataset, *nctx, *sampleSeed)
	info := stdout
	if *asJSON {
		info = stderr
	}
	fmt.Fprintf(info, "screen: %d of the dataset's contexts (sample seed %d)\n", len(spec.Dataset.Contexts), *sampleSeed)
	plan, err := engine.NewPlan(ctx, st, spec)
	if err != nil {
		return err
	}
	clikit.PrintEstimate(info, plan)
	if send, err := spend.Check(plan.Estimate, spec.Config.Backend, info, stderr); !send {
		return err
	}
	if plan.Estimate.Send+plan.Estimate.CacheHits > 0 {
		if err := runPlan(ctx, st, plan, info, stderr); err != nil {
			return err
		}
	}
	data, err := study.ReadRuns(ctx, st, spec.Dataset.Name, spec.JudgeName, plan.BankHash, runs, contextIDs(spec.Dataset))
	if err != nil {
		return err
	}
	rows := data.Rows
	opts := signal.DefaultOptions()
	opts.Bootstrap = *boot
	opts.ScoresFile = st.Path()
	opts.PerWording = *perWording
	rep, err := signal.Signal(ctx, rows, opts)
	if err != nil {
		return err
	}
	if *asJSON {
		doc := screenJSON{Dataset: spec.Dataset.Name, Bank: spec.Bank.Name, BankHash: plan.BankHash, Judge: spec.JudgeName,
			Contexts: contextIDs(spec.Dataset), Study: &data.Study, Signal: rep}
		return clikit.WriteJSON(stdout, doc)
	}
	var buf bytes.Buffer
	fmt.Fprintln(&buf)
	clikit.PrintStudy(&buf, &data.Study)
	printSignalReport(&buf, rep)
	return clikit.WriteTrimmed(stdout, buf.String())
}

// defaultBankFor names the first built-in bank with the task of the
// dataset the flags select.
func defaultBankFor(ctx context.Context, s *studyFlags) (string, error) {
	st, err := clikit.OpenWorkspace(ctx, *s.fs.Workspace, false)
	if err != nil {
		return "", err
	}
	defer st.Close()
	ds, err := clikit.PickDataset(ctx, st, *s.dataset, s.fs.UsageDoc)
	if err != nil {
		return "", err
	}
	d, err := st.Dataset(ctx, ds)
	if err != nil {
		return "", err
	}
	task := *s.task
	if task == "" {
		task = d.Task
	}
	b, err := pickBank("", task)
	if err != nil {
		return "", err
	}
	return b.Name, nil
}

// runPlan sends a plan's pending requests; an interrupted screen is an
// error that says how to resume.
func runPlan(ctx context.Context, st *store.Store, plan *engine.Plan, info, stderr io.Writer) error {
	sum, err := clikit.SendPlan(ctx, st, plan, info, stderr)
	if err != nil {
		return err
	}
	if sum.Canceled {
		return fmt.Errorf("interrupted: %d answers stored; rerun the same command to resume", sum.Stored)
	}
	return nil
}

// contextIDs are d's context ids, in dataset order.
func contextIDs(d *model.Dataset) []string {
	out := make([]string, len(d.Contexts))
	for i, c := range d.Contexts {
		out[i] = c.ID
	}
	return out
}

// printSignalReport writes the diagnostics table (paper Fig. 2a / Fig. 5)
// and the reproducibility summary.
func printSignalReport(w io.Writer, r *signal.Report) {
	fmt.Fprintf(w, "%d contexts, %d runs; %d context-bootstrap resamples, seed %d\n", r.Contexts, r.Runs, r.Bootstrap, r.Seed)
	fmt.Fprintf(w, "neutral RMS %s (N %d)", clikit.Num(r.Neutral.RMS), r.Neutral.N)
	if r.Runs >= 2 {
		fmt.Fprintf(w, "; repeat RMS %s (N %d); neutral/repeat %s %s", clikit.Num(r.RepeatRMS), r.RepeatN, clikit.Num(r.Neutral.RatioVsRepeat), clikit.Interval(r.Neutral.CIVsRepeat))
	} else {
		fmt.Fprint(w, "; one run: no repeat reference or reproducibility (use --repeats 2)")
	}
	fmt.Fprintln(w)

	fmt.Fprintln(w, "\nsignal screen: a unit passes when the 2.5% bound of RMS/RMS_neutral exceeds 1")
	fmt.Fprintf(w, "displacements: %s; no verdict (too few) below %d contexts\n", poolingText(r.Pooling), r.MinContexts)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "unit\tN\tRMS\tvs neutral\t95% CI\tvs repeat\t95% CI\trepro RMS\trun corr\tscreen\t")
	passed, tooFew := 0, 0
	for _, u := range append(slices.Clone(r.Units), r.Pooled) {
		verdict, ci := "fail", clikit.Interval(u.CI)
		switch {
		case u.N == 0:
			verdict = "no data"
		case u.TooFew:
			verdict, ci = tooFewText(u, r.Neutral), "—"
			if u.Name != "pooled" {
				tooFew++
			}
		case u.Pass:
			verdict = "pass"
			if u.Name != "pooled" {
				passed++
			}
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", u.Name, u.N, clikit.Num(u.RMS), clikit.Num(u.Ratio), ci,
			clikit.Num(u.RatioVsRepeat), clikit.Interval(u.CIVsRepeat), clikit.Num(u.ReproRMS), clikit.Num(u.RunCorr), verdict)
	}
	tw.Flush()
	fmt.Fprintf(w, "%d of %d units pass", passed, len(r.Units))
	if tooFew > 0 {
		fmt.Fprintf(w, "; %d too few to judge", tooFew)
	}
	fmt.Fprintln(w)

	if r.Runs < 2 {
		return
	}
	fmt.Fprintf(w, "\nmean across-run correlation of displacements: probes %s, neutral clauses %s\n", clikit.Num(r.ProbeRunCorrMean), clikit.Num(r.NeutralRunCorrMean))
	if len(r.Components) > 0 {
		fmt.Fprintln(w, "\ncomponents across runs: O = (s+ − s−)/2 directional, E = (s+ + s−)/2 − s0 shared")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "attribute\trepro RMS O\trepro RMS E\trun corr O\trun corr E\tcorr(O,E)\t")
		for _, c := range r.Components {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t\n", c.Attribute, clikit.Num(c.ReproO), clikit.Num(c.ReproE), clikit.Num(c.RunCorrO), clikit.Num(c.RunCorrE), clikit.Num(c.CorrOE))
		}
		tw.Flush()
	}
	if len(r.Neutrals) > 0 {
		fmt.Fprintln(w, "\nneutral clauses across runs")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "clause\tN\tRMS\trepro RMS\trun corr\t")
		for _, n := range r.Neutrals {
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t\n", n.Name, n.N, clikit.Num(n.RMS), clikit.Num(n.ReproRMS), clikit.Num(n.RunCorr))
		}
		tw.Flush()
	}
}

// poolingText says how a report formed its displacements.
func poolingText(pooling string) string {
	if pooling == signal.PoolingPerWording {
		return "each wording separately (--per-wording)"
	}
	return "wordings averaged within sign and run (docs/protocol.md §8)"
}

// tooFewText is the verdict of a unit with too few contexts: its own
// count of contributing contexts, or the neutral reference's when that is
// what falls short.
func tooFewText(u, neutral signal.Unit) string {
	if u.Contexts >= signal.MinContexts {
		return fmt.Sprintf("too few (neutral: %d contexts)", neutral.Contexts)
	}
	return fmt.Sprintf("too few (%d contexts)", u.Contexts)
}
