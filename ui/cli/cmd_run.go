package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
)

func init() {
	register("run", "acquire judge scores: dataset × bank × judge × repeats, resumable, rate-limited", runRun)
}

const runUsage = `prism run [--bank BANK | --rubric RUBRIC [--prompts DIR] [--samples N]] [--dataset NAME]
          [--backend offline|openai] [--model M] [--base-url U]
          [--judge NAME] [--concurrency N] [--rpm N] [--tpm N] [--repeats N] [--prices FILE]
          [--probes P,P,…] [--batched [--orders K] [--order-seed S]] [--workspace FILE] [judge flags]
          [--dry-run] [--max-cost USD] [--max-requests N] [--confirm-above USD] [--yes]

Sends every request of the study that the workspace has no answer for and
stores each answer as it comes. A run stopped at any moment (ctrl+c, a crash,
kill -9) resumes by running the same command: answered requests are never
sent again (after a kill -9, at most the --concurrency requests in flight at
the kill are). One run per study: a second run on the same dataset, judge
name and bank is refused, and the dataset cannot be replaced or removed
while the run holds it. --rubric RUBRIC (a built-in rubric: saja-broad,
saja-granular, geval-summeval, or a rubric file) acquires a rubric baseline
instead of a bank's probes (docs/rubrics.md): one SAJA call per candidate, or
one G-Eval request per criterion per candidate (the mean of --samples N
sampled ratings at temperature 1, default 20; one call read by its logprobs
in --mode expected); each criterion's rating is stored as the score of probe
rubric:RUBRIC/CRITERION under the same judge. --prompts DIR reads G-Eval
prompt files (the official ones: coh_detailed.txt, …). --dry-run prints
the estimate (requests, tokens, cost, time) and sends nothing. --max-cost
USD and --max-requests N refuse a run whose estimate exceeds them before
anything is sent; on a terminal, a priced run estimated above
--confirm-above USD (default 5) asks first, unless --yes. --repeats N
sends each condition N times as separate requests (run labels 0…N-1). --backend says what answers (offline: the simulator;
openai: any OpenAI-compatible server); --judge NAME is the stored judge the
answers go under (default: the backend for offline, else the model;
"-expected" is appended in expected mode), the name prism fit, select and
export take. Without --bank, the first built-in bank with the dataset's task
(as for prism screen); --dataset may be left out when the workspace holds one.
--probes P,… acquires only those probes' conditions (every wording of each;
the answers are the full bank's study, as prism score's).
--batched scores all candidates of a context in one call per presentation
order (--orders K, default 8: cyclic shifts of a seeded random order and of
its reversal, docs/protocol.md §14), each candidate's score stored as its own
answer under run label o<k> (o<k>r<r> for repeats), under judge NAME-batched
by default; prism diagnose order reads them.
The API key comes from $OPENAI_API_KEY (or --api-key-env, or the
--judge-config file) and is never stored.`

// study is what run, screen and batch export share: a plan's spec and the
// workspace it reads.
type studyFlags struct {
	fs       workspaceFlags
	jf       *judge.Flags
	stderr   io.Writer
	dataset  *string
	bank     *string
	name     *string // --judge: the stored judge name
	oldName  *string // --name: the deprecated spelling of --judge
	task     *string
	prices   *string
	conc     *int
	rpm, tpm *int
	scale    *string // --scale MIN-MAX: the task's score scale (cmd_scale.go)
	resolved bool

	// prism run and batch export only: a rubric study instead of a
	// bank's (nil elsewhere).
	rubric, prompts *string
	samples         *int
}

func newStudyFlags(name, usage string, stderr io.Writer) *studyFlags {
	fs := newWorkspaceFlags(name, stderr, usage)
	s := &studyFlags{fs: fs, jf: judge.AddFlags(fs.FlagSet), stderr: stderr}
	s.dataset = fs.String("dataset", "", "dataset `NAME` in the workspace (default: the only one)")
	s.bank = fs.String("bank", "", "probe `BANK`: a built-in name, a TOML file, or a bank hash in the workspace (default: the first built-in bank with the dataset's task)")
	s.name = fs.String("judge", "", "the stored judge `NAME` the answers go under (default: the backend for offline, else the model; -expected appended in expected mode)")
	s.oldName = fs.String("name", "", "deprecated spelling of --judge")
	fs.hide("name")
	s.task = fs.String("task", "", "task prompt of the bank (default: the dataset's task)")
	s.prices = fs.String("prices", "", "price table `FILE` (TOML, USD per 1M tokens)")
	s.conc = fs.Int("concurrency", 8, "requests in flight at once")
	s.rpm = fs.Int("rpm", 0, "requests per minute (0: unlimited)")
	s.tpm = fs.Int("tpm", 0, "tokens per minute, estimated input + output (0: unlimited)")
	s.scale = fs.String("scale", "", "score scale `MIN-MAX` of the task prompt instead of the bank's (e.g. 0-100; anchors follow; another bank hash)")
	// The engine sends each repeat as its own stored request.
	fs.Lookup("repeats").Usage = "runs per condition, each a separate request stored with run label 0…N-1"
	return s
}

// resolveJudge applies the deprecated spellings of one release: --name for
// --judge, and --judge offline|openai (a backend where a stored judge name
// is now expected) for --backend. Each prints a note on stderr.
func (s *studyFlags) resolveJudge() error {
	if s.resolved {
		return nil
	}
	s.resolved = true
	set := map[string]bool{}
	s.fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	prog := s.fs.Name()
	if set["name"] {
		if set["judge"] {
			return usageErr(s.fs.usage, "--name is the deprecated spelling of --judge: give only --judge")
		}
		fmt.Fprintf(s.stderr, "%s: --name is deprecated: use --judge %s (--judge now names the stored judge)\n", prog, *s.oldName)
		*s.name = *s.oldName
		return nil
	}
	if v := *s.name; set["judge"] && !set["backend"] && (v == judge.BackendOffline || v == judge.BackendOpenAI) {
		fmt.Fprintf(s.stderr, "%s: --judge %s is deprecated: use --backend %s (--judge now names the stored judge)\n", prog, v, v)
		if err := s.fs.Set("backend", v); err != nil {
			return usageErr(s.fs.usage, "%v", err)
		}
		*s.name = ""
	}
	return nil
}

// spec resolves the flags into an engine spec; it opens the workspace,
// which the caller closes.
func (s *studyFlags) spec(ctx context.Context) (*store.Store, engine.Spec, error) {
	var spec engine.Spec
	if err := s.resolveJudge(); err != nil {
		return nil, spec, err
	}
	cfg, err := s.jf.Config(os.Getenv)
	if err != nil {
		return nil, spec, err
	}
	if *s.conc < 1 || *s.rpm < 0 || *s.tpm < 0 {
		return nil, spec, usageErr(s.fs.usage, "--concurrency must be ≥ 1 and --rpm, --tpm ≥ 0")
	}
	prices, err := readPrices(*s.prices)
	if err != nil {
		return nil, spec, err
	}
	var b *banks.Bank
	var rub *banks.Rubric
	var source string
	if s.rubric != nil && *s.rubric != "" {
		if *s.bank != "" {
			return nil, spec, usageErr(s.fs.usage, "give --bank or --rubric, not both")
		}
		if rub, source, err = resolveRubric(*s.rubric, *s.prompts); err != nil {
			return nil, spec, err
		}
	} else {
		if s.prompts != nil && (*s.prompts != "" || *s.samples != 0) {
			return nil, spec, usageErr(s.fs.usage, "--prompts and --samples are for a rubric study (--rubric)")
		}
		if *s.bank == "" {
			name, err := defaultBankFor(ctx, s)
			if err != nil {
				return nil, spec, err
			}
			*s.bank = name
		}
		if b, _, err = resolveBank(ctx, *s.bank, s.fs); err != nil {
			return nil, spec, err
		}
		source = *s.bank // a file
		if _, err := os.Stat(*s.bank); err != nil {
			source = "workspace:" + *s.bank
			if _, err := banks.Builtin(*s.bank); err == nil {
				source = "builtin:" + *s.bank
			}
		}
	}
	st, err := openWorkspace(ctx, *s.fs.workspace, false)
	if err != nil {
		return nil, spec, err
	}
	if cfg.APIKey != "" {
		st.AddSecret(string(cfg.APIKey))
	}
	dsName, err := pickDataset(ctx, st, *s.dataset, s.fs.usage)
	if err != nil {
		st.Close()
		return nil, spec, err
	}
	d, rev, err := st.DatasetAt(ctx, dsName)
	if err != nil {
		st.Close()
		return nil, spec, err
	}
	if b, source, err = s.rescaled(b, source, d.Task); err != nil {
		st.Close()
		return nil, spec, err
	}
	name := *s.name
	if name == "" {
		name = engine.DefaultJudgeName(cfg)
	}
	spec = engine.Spec{Dataset: d, DatasetRev: rev, Bank: b, BankSource: source, Task: *s.task, JudgeName: name,
		Config: cfg, Repeats: cfg.Repeats, Prices: prices,
		Limits: engine.Limits{Concurrency: *s.conc, RPM: *s.rpm, TPM: *s.tpm}}
	if rub != nil {
		spec.Bank, spec.BankSource = nil, ""
		spec.Rubric, spec.RubricSource, spec.Samples = rub, source, *s.samples
	}
	return st, spec, nil
}

// resolveRubric reads RUBRIC: a built-in rubric's name or a rubric file,
// with G-Eval prompt files from prompts when not empty. source says where
// it came from, for its stored snapshot.
func resolveRubric(ref, prompts string) (*banks.Rubric, string, error) {
	var r *banks.Rubric
	source := ref
	looksLikeFile := strings.ContainsRune(ref, '/') || strings.HasSuffix(ref, ".toml")
	if b, err := banks.BuiltinRubric(ref); err == nil && !looksLikeFile {
		r, source = b, "builtin:"+ref
	} else if _, serr := os.Stat(ref); serr == nil || looksLikeFile {
		if r, err = banks.ReadRubricFile(ref); err != nil {
			return nil, "", err
		}
	} else {
		names := make([]string, 0, 3)
		for _, b := range banks.BuiltinRubrics() {
			names = append(names, b.Name)
		}
		return nil, "", fmt.Errorf("rubric %q: no built-in rubric of that name (%s) and no such file", ref, strings.Join(names, ", "))
	}
	if prompts != "" {
		var err error
		if r, err = r.LoadPrompts(prompts); err != nil {
			return nil, "", err
		}
		source += " with prompts from " + prompts
	}
	return r, source, nil
}

// readPrices reads a --prices table; "" is the default table.
func readPrices(path string) (engine.Prices, error) {
	if path == "" {
		return engine.DefaultPrices(), nil
	}
	data, err := model.ReadFileLimited(path, 1<<20, "a price table (TOML)")
	if err != nil {
		return nil, err
	}
	return engine.ParsePrices(data, path)
}

// pickDataset returns name, or the workspace's only dataset; several
// datasets and no --dataset is a usage error with the command's usage.
func pickDataset(ctx context.Context, st *store.Store, name, usage string) (string, error) {
	infos, err := st.Datasets(ctx)
	if err != nil {
		return "", err
	}
	if name != "" {
		if !hasDataset(infos, name) {
			return "", fmt.Errorf("%s: dataset %q: %w", st.Path(), name, store.ErrNotFound)
		}
		return name, nil
	}
	names := make([]string, len(infos))
	for i, in := range infos {
		names[i] = in.Name
	}
	switch len(names) {
	case 1:
		return names[0], nil
	case 0:
		return "", fmt.Errorf("%s holds no dataset; import one with prism data import", st.Path())
	}
	return "", usageErr(usage, "%s holds %d datasets (%s); choose one with --dataset", st.Path(), len(names), strings.Join(names, ", "))
}

// addRubricFlags adds --rubric, --prompts and --samples (prism run and
// prism batch export).
func (s *studyFlags) addRubricFlags() {
	s.rubric = s.fs.String("rubric", "", "acquire a rubric baseline instead of a bank: a built-in `RUBRIC` (saja-broad, saja-granular, geval-summeval) or a rubric file (docs/rubrics.md)")
	s.prompts = s.fs.String("prompts", "", "G-Eval prompt files `DIR` (one per criterion: NAME.txt or the official coh_detailed.txt, …)")
	s.samples = s.fs.Int("samples", 0, "G-Eval: sampled ratings averaged per request in integer mode (0: 20)")
}

func runRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	s := newStudyFlags("prism run", runUsage, stderr)
	spend := addSpendFlags(s.fs)
	s.addRubricFlags()
	bf := addBatchedFlags(s)
	pos, help, err := s.fs.parse(args, stdout)
	if err != nil || help {
		return err
	}
	if err := noArgs(runUsage, pos); err != nil {
		return err
	}
	st, spec, err := s.spec(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := bf.apply(s, &spec); err != nil {
		return err
	}
	if *spend.dry {
		// The estimate alone, a candidate at a time: no request is held,
		// whatever the study's size.
		plan, err := engine.EstimatePlan(ctx, st, spec)
		if err != nil {
			return err
		}
		printEstimate(stdout, plan)
		if n := plan.Estimate.Requests; plan.IsBatched() && n > engine.MaxPlanRequests {
			fmt.Fprintf(stdout, "note: a run of %d requests is refused (one plan holds at most %d); use fewer runs (--repeats) or split the dataset\n", n, engine.MaxPlanRequests)
		}
		_, err = spend.check(plan.Estimate, spec.Config.Backend, stdout, stderr)
		return err
	}
	// A pointwise study streams: its requests are made while it runs,
	// so neither the plan nor the run grows with the study.
	plan, err := engine.NewRunPlan(ctx, st, spec)
	if err != nil {
		return err
	}
	printEstimate(stdout, plan)
	if plan.Estimate.Send+plan.Estimate.CacheHits == 0 {
		// Nothing to send (a screen answered it all, say): the study's
		// plan is still this run's.
		if err := st.PlanStudy(ctx, plan.StudyPlan()); err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		if plan.IsRubric() {
			return printRubricCounts(ctx, stdout, st, plan)
		}
		return nil
	}
	if _, err := spend.check(plan.Estimate, spec.Config.Backend, stdout, stderr); err != nil {
		return err
	}
	sum, err := sendPlan(ctx, st, plan, stdout, stderr)
	if err != nil {
		return err
	}
	if plan.IsRubric() {
		if err := printRubricCounts(ctx, stdout, st, plan); err != nil {
			return err
		}
	}
	if sum.Canceled {
		left := plan.Estimate.Requests - sum.Study.Answered
		fmt.Fprintf(stderr, "interrupted: %d answers stored by this run, %d requests of the study left; rerun the same command to resume:\n  prism run %s\n",
			sum.Stored, left, shellJoin(args))
		return fmt.Errorf("interrupted")
	}
	return nil
}

// sendPlan sends a plan's pending requests with a progress bar on stderr and
// prints the run's summary to info. A run error says that what was answered
// is stored; a cancel is not an error here (callers say how to resume).
func sendPlan(ctx context.Context, st *store.Store, plan *engine.Plan, info, stderr io.Writer) (engine.Summary, error) {
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
	printSummary(info, plan, sum, time.Since(start))
	if runErr != nil {
		return sum, fmt.Errorf("%w\n%d answers of this run are stored; fix the cause and rerun the same command to resume", runErr, sum.Stored)
	}
	return sum, nil
}

func printEstimate(w io.Writer, p *engine.Plan) {
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
		fmt.Fprintf(w, "batched: %d order(s) per context and condition (order seed %d); one call scores every candidate of a context\n", sp.Orders, sp.OrderSeed)
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

func printSummary(w io.Writer, p *engine.Plan, s engine.Summary, wall time.Duration) {
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
		s.Done, s.Total, what, wall.Round(time.Millisecond), s.Answered, s.CacheHits, missing, lost, s.Failed, errorsText(s.Errors))
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

func errorsText(m map[string]int) string {
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
		bar, p.Done, p.Total, 100*frac, p.Rate, eta, humanCount(p.PromptTokens), humanCount(p.CompletionTokens), cost, p.Failed, errorsText(p.Errors), state)
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
