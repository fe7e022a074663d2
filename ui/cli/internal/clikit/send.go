package clikit

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
)

// ReadPrices reads a --prices table; "" is the default table.
func ReadPrices(path string) (engine.Prices, error) {
	if path == "" {
		return engine.DefaultPrices(), nil
	}
	data, err := model.ReadFileLimited(path, 1<<20, "a price table (TOML)")
	if err != nil {
		return nil, err
	}
	return engine.ParsePrices(data, path)
}

// SendPlan sends a plan's pending requests with a progress bar on stderr and
// prints the run's summary to info. A run error says that what was answered
// is stored; a cancel is not an error here (callers say how to resume).
func SendPlan(ctx context.Context, st *store.Store, plan *engine.Plan, info, stderr io.Writer) (engine.Summary, error) {
	spec := plan.Spec
	lim := engine.NewLimiter(spec.Limits)
	judges, err := engine.PlanJudges(plan, lim)
	if err != nil {
		return engine.Summary{}, err
	}
	start := time.Now()
	r, err := engine.Start(ctx, st, judges, plan, engine.Options{Limiter: lim, ProgressOnly: true}) // the progress line reads no results
	if err != nil {
		return engine.Summary{}, err
	}
	bar := newProgressBar(stderr)
	for ev := range r.Events() {
		bar.update(ev.Progress, false)
	}
	sum, runErr := r.Wait()
	bar.update(sum.Progress, true)
	PrintSummary(info, plan, sum, time.Since(start))
	if runErr != nil {
		return sum, fmt.Errorf("%w\n%d answers of this run are stored; fix the cause and rerun the same command to resume", runErr, sum.Stored)
	}
	return sum, nil
}

func PrintEstimate(w io.Writer, p *engine.Plan) {
	if p.IsRubric() {
		printRubricEstimate(w, p)
		return
	}
	e := p.Estimate
	sp := p.Spec
	conds := fmt.Sprintf("%d conditions", p.Conditions())
	if all := len(sp.Bank.Conditions()); p.Conditions() < all {
		// Spec.Probes: only some of the bank's conditions are asked.
		conds = fmt.Sprintf("%d of its %d conditions: %d probes", p.Conditions(), all, len(sp.Probes))
		if len(sp.Probes) <= 5 {
			conds += " " + strings.Join(sp.Probes, " ")
		}
	}
	fmt.Fprintf(w, "study: dataset %s (%d candidates) × bank %s (%s, %s) × %d run(s) → judge %q\n",
		sp.Dataset.Name, sp.Dataset.NumCandidates(), sp.Bank.Name, conds, model.ShortHash(p.BankHash), sp.Repeats, sp.JudgeName)
	if sp.Config.Backend == judge.BackendOffline {
		// The simulator is labelled wherever it appears (docs/judge.md).
		fmt.Fprintln(w, "judge: offline (simulator): a deterministic text-feature scorer, not an LLM")
	}
	if p.IsBatched() {
		fmt.Fprintf(w, "listwise: %d order(s) per context and condition (order seed %d); one call scores every candidate of a context\n", sp.Orders, sp.OrderSeed)
		fmt.Fprintf(w, "scores: %d in all, %d answered, %d from cache; calls: %d to send\n", e.Requests, e.Answered, e.CacheHits, e.Send)
		printCostLine(w, e, sp.Limits)
		return
	}
	fmt.Fprintf(w, "requests: %d in all, %d answered, %d from cache, %d to send\n", e.Requests, e.Answered, e.CacheHits, e.Send)
	printCostLine(w, e, sp.Limits)
}

func limitsText(l engine.Limits) string {
	parts := []string{fmt.Sprintf("concurrency %d", max(1, l.Concurrency))}
	if l.RPM > 0 {
		parts = append(parts, fmt.Sprintf("%d rpm", l.RPM))
	}
	if l.TPM > 0 {
		parts = append(parts, fmt.Sprintf("%d tpm", l.TPM))
	}
	return strings.Join(parts, ", ")
}

func PrintSummary(w io.Writer, p *engine.Plan, s engine.Summary, wall time.Duration) {
	lost := ""
	if s.Stored < s.Answered {
		// The store failed mid-run (a full disk): say how few of the
		// answers it holds, on the line that counts them.
		lost = fmt.Sprintf(", only %d of them stored", s.Stored)
	}
	what := "requests"
	if p.IsRubric() {
		what = "ratings"
	}
	missing := ""
	if s.Missing > 0 {
		missing = fmt.Sprintf(" (%d of them missing cells: a criterion the reply did not rate validly)", s.Missing)
	}
	fmt.Fprintf(w, "done: %d of %d %s in %s: %d answered (%d from cache)%s%s, %d failed%s\n",
		s.Done, s.Total, what, wall.Round(time.Millisecond), s.Answered, s.CacheHits, missing, lost, s.Failed, ErrorsText(s.Errors))
	fmt.Fprintf(w, "tokens: %s prompt (%s cached) + %s completion", humanCount(s.PromptTokens), humanCount(s.CachedTokens), humanCount(s.CompletionTokens))
	if s.Priced {
		fmt.Fprintf(w, ", cost $%.4f\n", s.Cost)
	} else {
		fmt.Fprintf(w, ", cost unknown (no price for %q)\n", p.Estimate.PriceModel)
	}
	if s.UsageEstimated > 0 {
		fmt.Fprintf(w, "usage: %d calls reported implausible token counts (negative, or beyond the request's size); their counts and cost are estimates\n", s.UsageEstimated)
	}
	// What is stored, read back from the workspace: the only count that
	// survives a full disk or a store error mid-run.
	if s.StudyErr != nil {
		fmt.Fprintf(w, "stored: %d answers by this run (reading the study back failed: %v)\n", s.Stored, s.StudyErr)
	} else {
		if p.Spec.Bank != nil && p.Conditions() < len(p.Spec.Bank.Conditions()) || s.Study.Answered > p.Estimate.Requests {
			// A plan of some of the bank's conditions or runs (more
			// repeats were stored before): the workspace counts answers
			// under every condition and run of the bank.
			fmt.Fprintf(w, "stored: %d answers by this run; the workspace holds %d answers of judge %q under bank %s (all its conditions and runs)\n",
				s.Stored, s.Study.Answered, p.Spec.JudgeName, model.ShortHash(p.BankHash))
		} else {
			fmt.Fprintf(w, "stored: %d answers by this run; the workspace holds answers to %d of the study's %d requests\n",
				s.Stored, s.Study.Answered, p.Estimate.Requests)
		}
	}
	if s.Failed > 0 {
		fmt.Fprintf(w, "failed requests are missing cells for the fit; rerun the same command to retry them\n")
	}
}

func ErrorsText(m map[string]int) string {
	if len(m) == 0 {
		return ""
	}
	kinds := make([]string, 0, len(m))
	for k := range m {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func humanCount(n int64) string {
	switch {
	case n >= 10_000_000:
		return fmt.Sprintf("%.0fM", float64(n)/1e6)
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%.0fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

// progressBar draws run progress on stderr: one line redrawn in place at
// most 10 times a second on a terminal, else a plain line every 5 s.
type progressBar struct {
	w     io.Writer
	tty   bool
	last  time.Time
	every time.Duration
	width int
}

func newProgressBar(w io.Writer) *progressBar {
	b := &progressBar{w: w, every: 5 * time.Second}
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			b.tty, b.every = true, 100*time.Millisecond
		}
	}
	return b
}

func (b *progressBar) update(p engine.Progress, final bool) {
	now := time.Now()
	if !final && now.Sub(b.last) < b.every {
		return
	}
	b.last = now
	line := progressLine(p)
	if b.tty {
		pad := max(0, b.width-len(line))
		b.width = len(line)
		fmt.Fprintf(b.w, "\r%s%s", line, strings.Repeat(" ", pad))
		if final {
			fmt.Fprintln(b.w)
		}
		return
	}
	fmt.Fprintln(b.w, line)
}

func progressLine(p engine.Progress) string {
	const cells = 24
	frac := 1.0
	if p.Total > 0 {
		frac = float64(p.Done) / float64(p.Total)
	}
	n := int(frac * cells)
	bar := strings.Repeat("█", n) + strings.Repeat("░", cells-n)
	eta := "—"
	if p.ETA > 0 {
		eta = p.ETA.Round(time.Second).String()
	}
	cost := "$?"
	if p.Priced {
		cost = fmt.Sprintf("$%.4f", p.Cost)
	}
	state := ""
	if p.Paused {
		state = " paused"
	}
	if why := p.Why(p.At); why != "" {
		state = " — " + why
	}
	return fmt.Sprintf("%s %d/%d %5.1f%% %6.1f req/s ETA %s tokens %s/%s %s errors %d%s%s",
		bar, p.Done, p.Total, 100*frac, p.Rate, eta, humanCount(p.PromptTokens), humanCount(p.CompletionTokens), cost, p.Failed, ErrorsText(p.Errors), state)
}

// printCostLine prints an estimate's tokens, cost and time, the last line
// of prism run's estimate for a bank or a rubric study.
func printCostLine(w io.Writer, e engine.Estimate, lim engine.Limits) {
	fmt.Fprintf(w, "estimate: %s input + %s output tokens (≈4 characters per token)", humanCount(e.InputTokens), humanCount(e.OutputTokens))
	if e.Priced {
		fmt.Fprintf(w, ", cost $%.2f (price table: %s; no prompt caching assumed)", e.Cost, e.PriceModel)
	} else {
		fmt.Fprintf(w, ", cost unknown (no price for %q; pass --prices FILE)", e.PriceModel)
	}
	fmt.Fprintf(w, ", time ≈ %s at %s\n", e.Time.Round(time.Second), limitsText(lim))
}

// printRubricEstimate is printEstimate for a rubric study: the study, the
// budget per candidate (calls and estimated tokens, which differ between
// methods: docs/rubrics.md) and the ratings to acquire.
func printRubricEstimate(w io.Writer, p *engine.Plan) {
	e := p.Estimate
	sp := p.Spec
	r := sp.Rubric
	fmt.Fprintf(w, "study: dataset %s (%d candidates) × rubric %s (%s, %d criteria, %s) × %d run(s) → judge %q\n",
		sp.Dataset.Name, sp.Dataset.NumCandidates(), r.Name, r.Kind, len(r.Criteria), model.ShortHash(p.BankHash), sp.Repeats, sp.JudgeName)
	if sp.Config.Backend == judge.BackendOffline || sp.Config.Backend == "" {
		fmt.Fprintln(w, "judge: offline (simulator): a deterministic text-feature scorer, not an LLM")
	}
	cands := max(1, sp.Dataset.NumCandidates())
	b := p.CandidateBudget()
	fmt.Fprintf(w, "budget per candidate: %d call(s) (%s), ≈ %s input + %s output tokens\n", b.Calls, b.How, humanCount(b.InTokens), humanCount(b.OutTokens))
	fmt.Fprintf(w, "ratings: %d in all (%d candidates × %d criteria × %d run(s)), %d answered, %d from cache; %d request(s) to send, %d call(s)\n",
		e.Requests, cands, len(r.Criteria), sp.Repeats, e.Answered, e.CacheHits, e.Send, e.Calls)
	printCostLine(w, e, sp.Limits)
}

func TaskOf(s engine.Spec) string {
	if s.Task != "" {
		return s.Task
	}
	return s.Dataset.Task
}
