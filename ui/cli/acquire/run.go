package acquire

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

func init() {
	clikit.Register("run", "acquire judge scores: dataset × bank × judge × repeats, resumable, rate-limited", runRun)
}

const runUsage = `prism run [--bank BANK | --rubric RUBRIC [--prompts DIR] [--samples N]] [--dataset NAME]
          [--backend offline|openai] [--model M] [--base-url U]
          [--judge NAME] [--concurrency N] [--rpm N] [--tpm N] [--repeats N] [--prices FILE]
          [--probes P,P,…] [--listwise [--orders K] [--order-seed S]] [--workspace FILE] [judge flags]
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
--listwise scores all candidates of a context in one call per presentation
order (--orders K, default 8: cyclic shifts of a seeded random order and of
its reversal, docs/protocol.md §14), each candidate's score stored as its own
answer under run label o<k> (o<k>r<r> for repeats), under judge NAME-batched
by default; prism diagnose order reads them.
The API key comes from $OPENAI_API_KEY (or --api-key-env, or the
--judge-config file) and is never stored.`

// study is what run, screen and batch export share: a plan's spec and the
// workspace it reads.
type studyFlags struct {
	fs       clikit.WorkspaceFlags
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
	scale    *string // --scale MIN-MAX: the task's score scale (scale.go)
	resolved bool

	// prism run and batch export only: a rubric study instead of a
	// bank's (nil elsewhere).
	rubric, prompts *string
	samples         *int
}

func newStudyFlags(name, usage string, stderr io.Writer) *studyFlags {
	fs := clikit.NewWorkspaceFlags(name, stderr, usage)
	s := &studyFlags{fs: fs, jf: judge.AddFlags(fs.FlagSet), stderr: stderr}
	s.dataset = fs.String("dataset", "", "dataset `NAME` in the workspace (default: the only one)")
	s.bank = fs.String("bank", "", "probe `BANK`: a built-in name, a TOML file, or a bank hash in the workspace (default: the first built-in bank with the dataset's task)")
	s.name = fs.String("judge", "", "the stored judge `NAME` the answers go under (default: the backend for offline, else the model; -expected appended in expected mode)")
	s.oldName = fs.String("name", "", "deprecated spelling of --judge")
	fs.Hide("name")
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
			return clikit.UsageErr(s.fs.UsageDoc, "--name is the deprecated spelling of --judge: give only --judge")
		}
		fmt.Fprintf(s.stderr, "%s: --name is deprecated: use --judge %s (--judge now names the stored judge)\n", prog, *s.oldName)
		*s.name = *s.oldName
		return nil
	}
	if v := *s.name; set["judge"] && !set["backend"] && (v == judge.BackendOffline || v == judge.BackendOpenAI) {
		fmt.Fprintf(s.stderr, "%s: --judge %s is deprecated: use --backend %s (--judge now names the stored judge)\n", prog, v, v)
		if err := s.fs.Set("backend", v); err != nil {
			return clikit.UsageErr(s.fs.UsageDoc, "%v", err)
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
		return nil, spec, clikit.UsageErr(s.fs.UsageDoc, "--concurrency must be ≥ 1 and --rpm, --tpm ≥ 0")
	}
	prices, err := clikit.ReadPrices(*s.prices)
	if err != nil {
		return nil, spec, err
	}
	b, rub, source, err := s.instrument(ctx)
	if err != nil {
		return nil, spec, err
	}
	st, err := clikit.OpenWorkspace(ctx, *s.fs.Workspace, false)
	if err != nil {
		return nil, spec, err
	}
	if cfg.APIKey != "" {
		st.AddSecret(string(cfg.APIKey))
	}
	dsName, err := clikit.PickDataset(ctx, st, *s.dataset, s.fs.UsageDoc)
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

// instrument resolves what the study asks the judge with: the rubric of
// --rubric, or the bank of --bank (default: the first built-in bank with
// the dataset's task), and the source it is recorded under.
func (s *studyFlags) instrument(ctx context.Context) (b *banks.Bank, rub *banks.Rubric, source string, err error) {
	if s.rubric != nil && *s.rubric != "" {
		if *s.bank != "" {
			return nil, nil, "", clikit.UsageErr(s.fs.UsageDoc, "give --bank or --rubric, not both")
		}
		if rub, source, err = resolveRubric(*s.rubric, *s.prompts); err != nil {
			return nil, nil, "", err
		}
	} else {
		if s.prompts != nil && (*s.prompts != "" || *s.samples != 0) {
			return nil, nil, "", clikit.UsageErr(s.fs.UsageDoc, "--prompts and --samples are for a rubric study (--rubric)")
		}
		if *s.bank == "" {
			name, err := defaultBankFor(ctx, s)
			if err != nil {
				return nil, nil, "", err
			}
			*s.bank = name
		}
		if b, _, err = clikit.ResolveBank(ctx, *s.bank, s.fs); err != nil {
			return nil, nil, "", err
		}
		source = *s.bank // a file
		if _, err := os.Stat(*s.bank); err != nil {
			source = "workspace:" + *s.bank
			if _, err := banks.Builtin(*s.bank); err == nil {
				source = "builtin:" + *s.bank
			}
		}
	}
	return b, rub, source, nil
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

// addRubricFlags adds --rubric, --prompts and --samples (prism run and
// prism batch export).
func (s *studyFlags) addRubricFlags() {
	s.rubric = s.fs.String("rubric", "", "acquire a rubric baseline instead of a bank: a built-in `RUBRIC` (saja-broad, saja-granular, geval-summeval) or a rubric file (docs/rubrics.md)")
	s.prompts = s.fs.String("prompts", "", "G-Eval prompt files `DIR` (one per criterion: NAME.txt or the official coh_detailed.txt, …)")
	s.samples = s.fs.Int("samples", 0, "G-Eval: sampled ratings averaged per request in integer mode (0: 20)")
}

func runRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	s := newStudyFlags("prism run", runUsage, stderr)
	spend := clikit.AddSpendFlags(s.fs)
	s.addRubricFlags()
	lf := addListwiseFlags(s)
	pos, help, err := s.fs.ParseArgs(args, stdout)
	if err != nil || help {
		return err
	}
	if err := clikit.NoArgs(runUsage, pos); err != nil {
		return err
	}
	st, spec, err := s.spec(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := lf.apply(s, &spec); err != nil {
		return err
	}
	if *spend.Dry {
		// The estimate alone, a candidate at a time: no request is held,
		// whatever the study's size.
		plan, err := engine.EstimatePlan(ctx, st, spec)
		if err != nil {
			return err
		}
		clikit.PrintEstimate(stdout, plan)
		if n := plan.Estimate.Requests; plan.IsBatched() && n > engine.MaxPlanRequests {
			fmt.Fprintf(stdout, "note: a run of %d requests is refused (one plan holds at most %d); use fewer runs (--repeats) or split the dataset\n", n, engine.MaxPlanRequests)
		}
		_, err = spend.Check(plan.Estimate, spec.Config.Backend, stdout, stderr)
		return err
	}
	// A pointwise study streams: its requests are made while it runs,
	// so neither the plan nor the run grows with the study.
	plan, err := engine.NewRunPlan(ctx, st, spec)
	if err != nil {
		return err
	}
	clikit.PrintEstimate(stdout, plan)
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
	if _, err := spend.Check(plan.Estimate, spec.Config.Backend, stdout, stderr); err != nil {
		return err
	}
	sum, err := clikit.SendPlan(ctx, st, plan, stdout, stderr)
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
			sum.Stored, left, clikit.ShellJoin(args))
		return fmt.Errorf("interrupted")
	}
	return nil
}
