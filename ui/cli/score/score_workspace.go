package score

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

// scoreWorkspace is prism score on a workspace dataset: the calibrator's
// study, acquired through the engine.
type scoreWorkspace struct {
	fs       clikit.WorkspaceFlags
	cal      *calib.Calibrator
	calFile  string
	jf       *judge.Flags
	jfs      *flag.FlagSet
	judgeSet []string
	dataset  string
	name     string
	prices   string
	allow    bool
	spend    *clikit.SpendFlags // --dry-run, --max-cost, …: the check before anything is sent
	limits   engine.Limits
	info     io.Writer
	stderr   io.Writer
	args     []string
	budget   float64 // --budget: follow the calibrator's policy (0: every probe)
	target   string  // --target: the dataset's criterion the transfer check measures against
	opts     calib.ApplyOptions

	source     string         // names the scores in errors
	study      *model.Study   // what was read of the workspace (nil under --budget)
	budgetDone *budgetScoring // what the budgeted scoring did
	early      *earlyScan     // the scan begun beside the first plan, or nil
}

// config is the judge configuration to score with: the calibrator's
// (study.ConfigOf), with the judge flags given applied over it; transport
// settings and the key come from the flags and the environment.
func (s *scoreWorkspace) config() (judge.Config, error) {
	flagged, err := s.jf.Config(os.Getenv)
	if err != nil {
		return flagged, err
	}
	set := map[string]bool{}
	s.jfs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	if s.cal.Judge == nil || set["judge-config"] {
		if s.cal.Judge == nil && !slices.ContainsFunc(s.judgeSet, func(n string) bool { return keyFlags[strings.TrimPrefix(n, "--")] }) {
			return flagged, fmt.Errorf("%s: field \"judge\": the calibrator records no judge configuration (it was fitted from CSV files): give the judge flags (--backend, --model, …) that produced its training scores", s.calFile)
		}
		return flagged, nil
	}
	// The flags given override the calibrator's judge; transport settings
	// and the key's variable come from the flags (or their defaults) always.
	c := s.jf.Overlay(study.ConfigOf(s.cal.Judge))
	c.Timeout, c.Retries, c.MaxRetryWait, c.MaxReplyBytes = flagged.Timeout, flagged.Retries, flagged.MaxRetryWait, flagged.MaxReplyBytes
	c.APIKeyEnv, c.APIKey = flagged.APIKeyEnv, ""
	c.ApplyEnv(os.Getenv)
	if err := c.Validate(); err != nil {
		return c, fmt.Errorf("judge configuration of %s with the judge flags: %w", s.calFile, err)
	}
	return c, nil
}

// acquire plans the calibrator's conditions on the dataset, prints the
// estimate, sends what is missing and returns the candidates scored
// against the dataset's labels. done reports a dry run (nothing more to
// do).
func (s *scoreWorkspace) acquire(ctx context.Context) (res *calib.Scored, mismatches []string, done bool, err error) {
	cal := s.cal
	if cal.Bank == nil && cal.Judge != nil && cal.Judge.Backend == store.ImportBackend {
		return s.applied(s.stored(ctx))
	}
	if cal.Bank == nil {
		return nil, nil, false, fmt.Errorf("%s: field \"bank\": the calibrator records no probe bank (it was fitted from CSV files without --bank), so prism cannot ask its probes: score recorded scores with --scores S.csv", s.calFile)
	}
	b, err := cal.ParsedBank()
	if err != nil {
		return nil, nil, false, fmt.Errorf("%s: field \"bank.toml\": %w", s.calFile, err)
	}
	cfg, err := s.config()
	if err != nil {
		return nil, nil, false, err
	}
	prices, err := clikit.ReadPrices(s.prices)
	if err != nil {
		return nil, nil, false, err
	}
	path := *s.fs.Workspace
	// Plan on a read-only open: a study already answered (or a dry run)
	// writes nothing to the workspace.
	st, err := clikit.OpenWorkspaceRO(ctx, path)
	if err != nil {
		return nil, nil, false, err
	}
	defer func() {
		s.early.wait() // it reads st
		st.Close()
	}()
	if cfg.APIKey != "" {
		st.AddSecret(string(cfg.APIKey))
	}
	dsName, err := clikit.PickDataset(ctx, st, s.dataset, scoreUsage)
	if err != nil {
		return nil, nil, false, err
	}
	source := cal.Bank.Source
	if source == "" {
		source = "calibrator:" + s.calFile
	}
	spec := engine.Spec{BankSource: source, Bank: b, Task: cal.Bank.Task, Config: cfg,
		Repeats: max(1, cfg.Repeats), Prices: prices, Limits: s.limits, Probes: cal.Probes(), KeepRead: true}
	plan, now, err := s.firstPlan(ctx, st, dsName, &spec, b, cfg)
	if err != nil {
		return nil, nil, false, err
	}
	name := spec.JudgeName
	mismatches = study.Mismatches(cal, now, plan.BankHash)
	if len(mismatches) > 0 && !s.allow {
		return nil, nil, false, fmt.Errorf("%s: the calibrator was fitted on another judge configuration or bank than this scoring would use:\n  %s\nits corrections need not transfer; pass --allow-mismatch to score anyway (the output records every difference)",
			s.calFile, strings.Join(mismatches, "\n  "))
	}
	if err := checkStoredJudge(ctx, st, plan); err != nil {
		return nil, nil, false, err
	}
	if len(mismatches) > 0 {
		fmt.Fprintf(s.stderr, "prism score: warning: scoring with --allow-mismatch: %s\n", strings.Join(mismatches, "; "))
	}
	if s.budget > 0 {
		return s.applied(s.acquireBudget(ctx, st, path, dsName, spec, plan, cfg.APIKey != "", string(cfg.APIKey), mismatches))
	}
	clikit.PrintEstimate(s.info, plan)
	if send, err := s.spend.Check(plan.Estimate, cfg.Backend, s.info, s.stderr); !send {
		return nil, mismatches, err == nil, err
	}
	if plan.Estimate.Send+plan.Estimate.CacheHits > 0 {
		// Something to store: plan again on a writable open (the early
		// scan read a study now to be added to).
		s.early.wait()
		s.early = nil
		st.Close()
		if st, err = clikit.OpenWorkspace(ctx, path, false); err != nil {
			return nil, nil, false, err
		}
		if cfg.APIKey != "" {
			st.AddSecret(string(cfg.APIKey))
		}
		if plan, err = s.plan(ctx, st, dsName, spec); err != nil {
			return nil, nil, false, err
		}
		sum, err := clikit.SendPlan(ctx, st, plan, s.info, s.stderr)
		if err != nil {
			return nil, nil, false, err
		}
		if sum.Canceled {
			fmt.Fprintf(s.stderr, "interrupted: %d answers stored by this run; rerun the same command to resume:\n  prism score %s\n", sum.Stored, clikit.ShellJoin(s.args))
			return nil, nil, false, fmt.Errorf("interrupted")
		}
	}
	// The calibrator's runs only: a workspace that holds more runs (a
	// prism run with --repeats, a screen) is scored as it was trained.
	in := scanInput{dataset: plan.Spec.Dataset, bankHash: plan.BankHash, repeats: plan.Spec.Repeats, read: plan.StudyRead(), judge: name}
	out := s.early.result(in)
	if out == nil {
		s.source = sourceOf(st, dsName, name)
		out = s.scan(ctx, st, in)
	}
	s.study = out.study
	return out.res, mismatches, false, out.err
}

// sourceOf names the scores of judge on dataset in st, in errors.
func sourceOf(st *store.Store, dataset, judge string) string {
	return fmt.Sprintf("%s: dataset %s, judge %s", st.Path(), dataset, judge)
}

// firstPlan plans spec on the dataset dsName, read once for the judge
// snapshot and the plan (the plan on a writable open reads it again):
// without its texts when nothing needs them (an answered study), else
// whole. It names spec's judge and returns its configuration's snapshot.
func (s *scoreWorkspace) firstPlan(ctx context.Context, st *store.Store, dsName string, spec *engine.Spec, b *banks.Bank, cfg judge.Config) (*engine.Plan, *calib.JudgeSnapshot, error) {
	// The calibrator names the task, and so the study: its answers are
	// decoded while the dataset is read (on two cores the two reads take
	// the time of the longer, docs/performance.md "Streaming prism
	// score").
	var decoded <-chan *store.StudyRead
	var now *calib.JudgeSnapshot
	if spec.Task != "" {
		now = s.nameJudge(spec, b, cfg)
		decoded = decodeStudy(ctx, st, dsName, *spec)
	}
	spec.IDsOnly = s.budget == 0
	read := st.DatasetAt
	if spec.IDsOnly {
		read = st.DatasetIDsAt
	}
	d, rev, err := read(ctx, dsName)
	if decoded != nil {
		spec.Read = <-decoded
	}
	defer func() { spec.Read = nil }() // a plan made again decodes the study again
	if err != nil {
		return nil, nil, err
	}
	spec.Dataset, spec.DatasetRev = d, rev
	if now == nil {
		now = s.nameJudge(spec, b, cfg) // the task is the dataset's
	}
	if r := spec.Read; s.budget == 0 && !*s.spend.Dry && r.Holds(dsName, spec.JudgeName, r.BankHash()) {
		// A study answered whole is scored while it is planned: the two
		// read the same decode, and the plan most often finds nothing to
		// send (prism score on an answered workspace).
		s.source = sourceOf(st, dsName, spec.JudgeName)
		s.early = s.scanEarly(ctx, st, scanInput{dataset: d, bankHash: r.BankHash(), repeats: spec.Repeats, read: r, judge: spec.JudgeName})
	}
	plan, err := s.planRead(ctx, st, *spec)
	if errors.Is(err, engine.ErrTextsNeeded) {
		// The whole dataset: its fields, and so the judge, are those
		// already read.
		if spec.Dataset, spec.DatasetRev, err = st.DatasetAt(ctx, dsName); err != nil {
			return nil, nil, err
		}
		spec.IDsOnly = false
		plan, err = s.planRead(ctx, st, *spec)
	}
	return plan, now, err
}

// nameJudge names the judge spec stores answers under and returns the
// snapshot of its configuration: --judge, else the calibrator judge's
// name when this scoring's configuration is the calibrator's, else the
// name prism run gives it (a configuration changed by the judge flags is
// stored apart).
func (s *scoreWorkspace) nameJudge(spec *engine.Spec, b *banks.Bank, cfg judge.Config) *calib.JudgeSnapshot {
	now := study.JudgeSnapshotOf(engine.StoredJudge(*spec), spec.Repeats)
	if t, ok := b.Tasks[clikit.TaskOf(*spec)]; ok {
		now.Scale = fmt.Sprintf("%d–%d", t.Scale.Min, t.Scale.Max)
	}
	spec.JudgeName = s.name
	if spec.JudgeName == "" {
		spec.JudgeName = engine.DefaultJudgeName(cfg)
		if s.cal.Judge != nil && len(study.Mismatches(s.cal, now, "")) == 0 {
			spec.JudgeName = s.cal.Judge.Name
		}
	}
	return now
}

// decodeStudy decodes, in a goroutine, the answers of spec's study on
// dataset (its task named): nil when it cannot (the plan then decodes
// them itself and reports why).
func decodeStudy(ctx context.Context, st *store.Store, dataset string, spec engine.Spec) <-chan *store.StudyRead {
	out := make(chan *store.StudyRead, 1)
	go func() {
		defer close(out)
		rend, err := spec.Bank.Renderer(spec.Task)
		if err != nil {
			return
		}
		if read, err := st.ReadStudy(ctx, dataset, spec.JudgeName, rend.Hash(), true); err == nil {
			out <- read
		}
	}()
	return out
}

// scanInput is what scan reads: the runs of judge's study on a dataset
// (as stored) and bank, with the plan's decode of its answers.
type scanInput struct {
	dataset  *model.Dataset
	bankHash string
	repeats  int
	read     *store.StudyRead
	judge    string
}

// scanned is a scan's result.
type scanned struct {
	res   *calib.Scored
	study *model.Study
	err   error
}

// scan scores the runs of the judge's study on its dataset and bank as
// they are read (calib.Applier; study.ScanCandidates walks the plan's
// decode, Plan.StudyRead: the rows are never held), as Apply does the
// rows of study.ReadRuns, bit for bit.
func (s *scoreWorkspace) scan(ctx context.Context, st *store.Store, in scanInput) *scanned {
	info, _, err := study.Pick(ctx, st, in.dataset.Name, in.judge, in.bankHash)
	if err != nil {
		return &scanned{err: fmt.Errorf("%s: %w", st.Path(), err)}
	}
	a, err := s.cal.NewApplier(s.applyOptions())
	if err != nil {
		return &scanned{err: fmt.Errorf("%s: %w", s.calFile, err)}
	}
	n := 0
	for _, c := range in.dataset.Contexts {
		n += len(c.Candidates)
	}
	a.Reserve(n)
	var applyErr error
	desc, labels, err := study.ScanCandidates(ctx, st, info, study.Runs{N: in.repeats}, in.read, in.dataset, func(c *model.CandidateScores) error {
		applyErr = a.AddCandidate(c)
		return applyErr
	})
	if applyErr != nil {
		return &scanned{err: fmt.Errorf("%s: %w", s.calFile, applyErr)}
	}
	data := &study.Data{Study: desc, Labels: labels}
	if err == nil {
		err = data.Retarget(ctx, st, s.target)
	}
	if err != nil {
		return &scanned{err: fmt.Errorf("%s: %w", st.Path(), err)}
	}
	res, err := a.Finish(data.Labels)
	if err != nil {
		return &scanned{err: fmt.Errorf("%s: %w", s.calFile, err)}
	}
	return &scanned{res: res, study: &data.Study}
}

// earlyScan is a scan begun before the plan that decides it is needed.
type earlyScan struct {
	in   scanInput
	done chan struct{}
	out  *scanned
}

// scanEarly begins scan of in on st in a goroutine.
func (s *scoreWorkspace) scanEarly(ctx context.Context, st *store.Store, in scanInput) *earlyScan {
	e := &earlyScan{in: in, done: make(chan struct{})}
	go func() {
		defer close(e.done)
		e.out = s.scan(ctx, st, in)
	}()
	return e
}

// wait waits for the scan to end; nil waits for nothing.
func (e *earlyScan) wait() {
	if e != nil {
		<-e.done
	}
}

// result is the scan's result when it scanned in (what the plan would
// scan), else nil.
func (e *earlyScan) result(in scanInput) *scanned {
	if e == nil || e.in != in {
		return nil
	}
	e.wait()
	return e.out
}

// applyOptions are the options of the scoring, naming the workspace's
// scores (s.source) in its errors.
func (s *scoreWorkspace) applyOptions() calib.ApplyOptions {
	opts := s.opts
	opts.ScoresFile, opts.LabelsFile = s.source, s.source+" (labels)"
	return opts
}

// applied scores the rows of acquire's paths that read them whole (the
// stored answers of imported scores, a budgeted scoring's stages).
func (s *scoreWorkspace) applied(rows []model.ScoreRow, labels []model.Label, mismatches []string, done bool, err error) (*calib.Scored, []string, bool, error) {
	if err != nil || done {
		return nil, mismatches, done, err
	}
	res, err := s.cal.Apply(rows, labels, s.applyOptions())
	if err != nil {
		return nil, nil, false, fmt.Errorf("%s: %w", s.calFile, err)
	}
	return res, mismatches, false, nil
}

// stored reads the workspace answers of a calibrator fitted on imported
// scores (no bank: nothing can be asked), under its judge name or --judge.
func (s *scoreWorkspace) stored(ctx context.Context) (rows []model.ScoreRow, labels []model.Label, mismatches []string, done bool, err error) {
	st, err := clikit.OpenWorkspaceRO(ctx, *s.fs.Workspace)
	if err != nil {
		return nil, nil, nil, false, err
	}
	defer st.Close()
	dsName, err := clikit.PickDataset(ctx, st, s.dataset, scoreUsage)
	if err != nil {
		return nil, nil, nil, false, err
	}
	name := s.name
	if name == "" {
		name = s.cal.Judge.Name
	}
	fmt.Fprintf(s.info, "the calibrator was fitted on imported scores (no probe bank): scoring the stored answers of judge %s on dataset %s; nothing is sent\n", name, dsName)
	if *s.spend.Dry {
		return nil, nil, nil, true, nil
	}
	info, _, err := study.Pick(ctx, st, dsName, name, "")
	var data *study.Data
	if err == nil {
		data, err = study.Read(ctx, st, info, study.Runs{})
	}
	if err == nil {
		err = data.Retarget(ctx, st, s.target)
	}
	if err != nil {
		return nil, nil, nil, false, fmt.Errorf("%s: %w (import them with prism import scores)", st.Path(), err)
	}
	s.source, s.study = fmt.Sprintf("%s: dataset %s, judge %s", st.Path(), dsName, name), &data.Study
	return data.Rows, data.Labels, nil, false, nil
}

// plan reads the dataset at its current revision and plans spec on it.
func (s *scoreWorkspace) plan(ctx context.Context, st *store.Store, dsName string, spec engine.Spec) (*engine.Plan, error) {
	d, rev, err := st.DatasetAt(ctx, dsName)
	if err != nil {
		return nil, err
	}
	spec.Dataset, spec.DatasetRev, spec.IDsOnly = d, rev, false
	return s.planRead(ctx, st, spec)
}

// planRead plans spec on the dataset it holds, read at spec.DatasetRev.
func (s *scoreWorkspace) planRead(ctx context.Context, st *store.Store, spec engine.Spec) (*engine.Plan, error) {
	// Without a budget the calibrator's probes stream as prism run's do
	// (memory that does not grow with the data); the budget's stages
	// read the whole plan's items.
	newPlan := engine.NewRunPlan
	if s.budget > 0 {
		newPlan = engine.NewPlan
	}
	plan, err := newPlan(ctx, st, spec)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.calFile, err)
	}
	return plan, nil
}

// checkStoredJudge refuses, before anything is sent, a judge name the
// workspace already holds with another configuration (the run would fail
// storing it).
func checkStoredJudge(ctx context.Context, st *store.Store, plan *engine.Plan) error {
	old, err := st.Judge(ctx, plan.Judge.Name)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	a, _ := json.Marshal(old.Params)
	b, _ := json.Marshal(plan.Judge.Params)
	if old.Backend != plan.Judge.Backend || old.Model != plan.Judge.Model || !bytes.Equal(a, b) {
		return fmt.Errorf("%s: the stored judge %q has another configuration (backend %s, model %q, %s) than this scoring (backend %s, model %q, %s); store these answers under another name with --judge NAME",
			st.Path(), old.Name, old.Backend, old.Model, a, plan.Judge.Backend, plan.Judge.Model, b)
	}
	return nil
}
