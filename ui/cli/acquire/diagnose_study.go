package acquire

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/prism-eval/prism/calib/diag"

	"github.com/prism-eval/prism/calib/signal"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

// diagStudy is the study a wording, joint or resolution diagnosis reads:
// the flags of prism run (--repeats defaulting to 2), a seeded context
// sample, and --stored to read only what the workspace holds.
type diagStudy struct {
	name       string // the command, e.g. "prism diagnose wording"
	s          *studyFlags
	nctx       *int
	repeats    *repeatsFlag
	runs       int // --repeats after parse
	sampleSeed *uint64
	boot       *int
	seed       *uint64
	stored     *bool
	asJSON     *bool
	spend      *clikit.SpendFlags
}

func newDiagStudy(name, usage string, stderr io.Writer) *diagStudy {
	s := newStudyFlags(name, usage, stderr)
	d := &diagStudy{s: s, name: strings.TrimPrefix(name, "prism ")}
	d.nctx = s.fs.Int("contexts", 0, "contexts in the seeded sample (0: all)")
	d.repeats = s.repeatsDefault(2, "runs per condition, each a separate request (≥ 2: Q compares runs)")
	d.sampleSeed = s.fs.Uint64("sample-seed", 42, "seed of the context sample")
	d.boot = s.fs.Int("bootstrap", diag.DefaultOptions().Bootstrap, "context-bootstrap resamples")
	d.seed = s.fs.Uint64("boot-seed", diag.DefaultOptions().Seed, "bootstrap seed")
	d.stored = s.fs.Bool("stored", false, "send nothing: use only the answers the workspace holds")
	d.asJSON = s.fs.Bool("json", false, "print the documented JSON report (docs/diagnostics.md); progress goes to stderr")
	d.spend = clikit.AddSpendFlags(s.fs)
	return d
}

// parse reads the flags; help is true after -h.
func (d *diagStudy) parse(args []string, stdout io.Writer) (help bool, err error) {
	pos, help, err := d.s.fs.ParseArgs(args, stdout)
	if err != nil || help {
		return help, err
	}
	if err := clikit.NoArgs(d.s.fs.UsageDoc, pos); err != nil {
		return false, err
	}
	if d.runs, err = d.repeats.value(); err != nil {
		return false, err
	}
	switch {
	case *d.nctx < 0:
		return false, clikit.UsageErr(d.s.fs.UsageDoc, "--contexts %d: want ≥ 0", *d.nctx)
	case d.runs < 1:
		return false, clikit.UsageErr(d.s.fs.UsageDoc, "--repeats %d: want at least 1", d.runs)
	case *d.boot < 1:
		return false, clikit.UsageErr(d.s.fs.UsageDoc, "--bootstrap %d: want at least 1", *d.boot)
	}
	return false, nil
}

// info is where progress goes: stderr with --json.
func (d *diagStudy) info(stdout, stderr io.Writer) io.Writer {
	if *d.asJSON {
		return stderr
	}
	return stdout
}

// diagData is one study's rows as a diagnosis reads them.
type diagData struct {
	Dataset  string   `json:"dataset"`
	Bank     string   `json:"bank"`
	BankHash string   `json:"bank_hash"`
	Judge    string   `json:"judge"`
	Scale    string   `json:"scale"`    // the task's score scale, MIN–MAX
	Contexts []string `json:"contexts"` // the sampled context ids, dataset order
	// Study is what was read: the sample, runs 0…R−1 of the study.
	Study *model.Study `json:"study"`
	rows  []model.ScoreRow
	st    *store.Store
}

// diagPlan is one study a diagnosis planned: the workspace it holds open
// (the caller closes st), the spec and its plan.
type diagPlan struct {
	st   *store.Store
	spec engine.Spec
	plan *engine.Plan
}

// load plans the study (see plan), checks its estimate against the spend
// flags and acquires it (see acquire). A dry run returns nil data and no
// error: the estimate is printed and nothing more is done. The caller
// closes d.st.
func (d *diagStudy) load(ctx context.Context, defaultBank string, edit func(*banks.Bank, string) error, info, stderr io.Writer) (*diagData, error) {
	p, err := d.plan(ctx, defaultBank, edit, info)
	if err != nil {
		return nil, err
	}
	if send, err := d.check(p.plan.Estimate, p.spec.Config.Backend, info, stderr); !send {
		p.st.Close()
		return nil, err
	}
	return d.acquire(ctx, p, info, stderr)
}

// check is the spend check of a diagnosis: --stored sends nothing, so only
// its --dry-run stops there.
func (d *diagStudy) check(e engine.Estimate, backend string, info, stderr io.Writer) (send bool, err error) {
	if *d.stored {
		return !*d.spend.Dry, nil
	}
	return d.spend.Check(e, backend, info, stderr)
}

// plan resolves the study (defaultBank when --bank is not given; edit,
// when not nil, changes the bank before it is planned, as --scale does),
// plans it and prints its estimate; nothing is sent.
func (d *diagStudy) plan(ctx context.Context, defaultBank string, edit func(*banks.Bank, string) error, info io.Writer) (*diagPlan, error) {
	if *d.s.bank == "" && defaultBank != "" {
		*d.s.bank = defaultBank
	}
	st, spec, err := d.s.spec(ctx)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*diagPlan, error) {
		st.Close()
		return nil, err
	}
	if spec.Bank == nil {
		return fail(clikit.UsageErr(d.s.fs.UsageDoc, "a diagnosis reads a probe bank's study, not a rubric's"))
	}
	if edit != nil {
		spec.Bank = spec.Bank.Clone()
		if err := edit(spec.Bank, clikit.TaskOf(spec)); err != nil {
			return fail(err)
		}
	}
	spec.Repeats, spec.Diagnostic = d.runs, d.name
	if *d.nctx > 0 {
		spec.Dataset = signal.ScreenSample(spec.Dataset, *d.nctx, *d.sampleSeed)
		fmt.Fprintf(info, "%d of the dataset's contexts (sample seed %d)\n", len(spec.Dataset.Contexts), *d.sampleSeed)
	}
	plan, err := engine.NewPlan(ctx, st, spec)
	if err != nil {
		return fail(err)
	}
	clikit.PrintEstimate(info, plan)
	return &diagPlan{st: st, spec: spec, plan: plan}, nil
}

// acquire sends what the workspace lacks of a planned study unless
// --stored, and reads the rows of the sampled contexts and runs 0…R−1.
// On an error it closes p.st; else the data holds it.
func (d *diagStudy) acquire(ctx context.Context, p *diagPlan, info, stderr io.Writer) (*diagData, error) {
	st, spec, plan := p.st, p.spec, p.plan
	fail := func(err error) (*diagData, error) {
		st.Close()
		return nil, err
	}
	if *d.stored && plan.Estimate.Send > 0 {
		fmt.Fprintf(info, "--stored: nothing sent; %d requests stay unanswered\n", plan.Estimate.Send)
	}
	if !*d.stored && plan.Estimate.Send+plan.Estimate.CacheHits > 0 {
		if err := runPlan(ctx, st, plan, info, stderr); err != nil {
			return fail(err)
		}
	}
	data, err := study.ReadRuns(ctx, st, spec.Dataset.Name, spec.JudgeName, plan.BankHash, d.runs, contextIDs(spec.Dataset))
	if err != nil {
		return fail(err)
	}
	dd := &diagData{Dataset: spec.Dataset.Name, Bank: spec.Bank.Name, BankHash: plan.BankHash, Judge: spec.JudgeName,
		Contexts: contextIDs(spec.Dataset), Study: &data.Study, rows: data.Rows, st: st}
	if t, ok := spec.Bank.Tasks[clikit.TaskOf(spec)]; ok {
		dd.Scale = t.Scale.Range()
	}
	return dd, nil
}

// options are the diagnosis options of the flags.
func (d *diagStudy) options(file string) diag.Options {
	o := diag.DefaultOptions()
	o.Bootstrap, o.Seed, o.ScoresFile = *d.boot, *d.seed, file
	return o
}

// est prints an estimate and its interval.
func est(e diag.Est) string { return clikit.Num(e.Value) + " " + clikit.Interval(e.CI) }

// runLadderDiagnosis runs a diagnosis of one study under a bank (default
// the built-in ladder): parse the flags, acquire or read the rows, analyse
// them, and print the report as tables or, with --json, as the document
// doc makes of the study and the report.
func runLadderDiagnosis[R any](ctx context.Context, name, usage string, args []string, stdout, stderr io.Writer,
	analyse func(context.Context, []model.ScoreRow, diag.Options) (R, error),
	doc func(diagData, R) any, print func(io.Writer, *diagData, R)) error {
	d := newDiagStudy(name, usage, stderr)
	d.s.fs.Lookup("bank").Usage = "probe `BANK`: a built-in name, a TOML file, or a bank hash in the workspace (default: the built-in ladder)"
	if help, err := d.parse(args, stdout); err != nil || help {
		return err
	}
	info := d.info(stdout, stderr)
	dd, err := d.load(ctx, "ladder", nil, info, stderr)
	if err != nil || dd == nil { // nil: a dry run
		return err
	}
	defer dd.st.Close()
	rep, err := analyse(ctx, dd.rows, d.options(dd.st.Path()))
	if err != nil {
		return err
	}
	if *d.asJSON {
		return clikit.WriteJSON(stdout, doc(*dd, rep))
	}
	var buf bytes.Buffer
	fmt.Fprintln(&buf)
	clikit.PrintStudy(&buf, dd.Study)
	print(&buf, dd, rep)
	return clikit.WriteTrimmed(stdout, buf.String())
}

// ladderSynopsis is the synopsis of the ladder diagnoses (joint, wording)
// after their name.
const ladderSynopsis = ` [--bank BANK] [--dataset NAME] [--repeats R] [--contexts N] [--sample-seed S]
          [--bootstrap B] [--boot-seed S] [--stored] [--json] [--backend offline|openai] [--judge NAME]
          [--dry-run] [--max-cost USD] [--max-requests N] [--confirm-above USD] [--yes]
          [--workspace FILE] [judge and run flags as for prism run]`

// printLadderHead prints a ladder diagnosis' first line (what, the study,
// runs and bootstrap) and, when nothing could be pooled, why: tooFew. It
// reports whether rows (the per-unit rows) follow.
func printLadderHead(w io.Writer, what string, dd *diagData, runs, boot int, seed uint64, tooFew string, pooled, rows int) bool {
	fmt.Fprintf(w, "%s: %s, judge %s, bank %s, %d runs; %d context-bootstrap resamples, seed %d\n", what, dd.Dataset, dd.Judge, dd.Bank, runs, boot, seed)
	if tooFew != "" && pooled == 0 {
		fmt.Fprintf(w, "too few: %s\n", tooFew)
		return rows > 0
	}
	return true
}
