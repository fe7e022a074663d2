package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"
	"unicode/utf8"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
)

func init() {
	register("score", "apply a calibrator (prism fit --save) to new candidates: corrected scores, ranks, transfer check", runScore)
}

const scoreUsage = `prism score --calibrator CAL.json --scores S.csv [--labels L.csv] [flags]
       prism score --calibrator CAL.json [--dataset NAME] [--workspace FILE] [--judge NAME]
             [--backend offline|openai] [--model M] [--base-url U] [--concurrency N] [--rpm N] [--tpm N]
             [--prices FILE] [--dry-run] [--max-cost USD] [--max-requests N] [--confirm-above USD] [--yes]
             [--budget N] [judge flags] [flags]
       flags: [-o FILE] [--format csv|jsonl] [--scale corrected|human] [--allow-mismatch] [--bootstrap N] [--seed N]

Applies a calibrator written by prism fit --save to candidates it has not
seen: corrected = α·baseline − Σ terms, from each candidate's baseline and
probe scores alone (docs/calibrator.md). Scores come from a CSV file
(--scores, as prism fit reads them) or from a workspace dataset: then the
calibrator's bank and judge configuration are used, only the conditions the
calibrator reads are asked (its baseline and probe columns; no neutral
clauses), the estimate is printed before anything is sent (--dry-run stops
there; --max-cost and --max-requests refuse a larger one, and above
--confirm-above on a terminal prism asks first), and the requests go through the same resumable engine as prism run
(answers already stored are not sent again; rerun the same command to
resume). Judge flags change the configuration; a configuration or bank other
than the calibrator's is refused naming each difference, unless
--allow-mismatch (the output then records them). --budget N follows the
adaptive policy of a calibrator saved by prism budget --save: the baseline
of every candidate, then one probe at a time for the candidates whose rank
may still change, at most N calls each (docs/budget.md). --judge-seed is the judge's
sampling seed (prism run's --seed); --seed seeds the transfer check's
bootstrap.

Output, one row per candidate (CSV, or JSON Lines with --format jsonl or an
-o FILE ending in .jsonl/.ndjson): context, candidate, baseline, corrected,
[human_scale,] rank_before, rank_after (within the context, 1 = highest,
ties share the mean rank), imputed (score cells filled with the training
mean), in_sample (a training candidate of the calibrator), [human,] then
each unit's contribution term. In within-context mode corrected scores
order candidates within a context and need not lie on the human scale;
--scale human adds the calibrator's monotone map onto it (ranks and
agreement unchanged). With labels (--labels, or the dataset's human scores)
the summary adds the transfer check: agreement of the baseline and of the
corrected scores with the humans, context-bootstrap intervals and the paired
difference; --target CRITERION checks against one criterion of the labels
(a column of --labels, or a criterion of the workspace dataset). -o writes through a temporary file: on an error nothing is
written.`

// scoreJudgeFlags are the judge flags of prism score by their name in
// judge.AddFlags: the sampling seed is --judge-seed here, since --seed seeds
// the bootstrap. keyFlags change what is sent (a request's key); the others
// are transport settings applied over the calibrator's configuration.
var keyFlags = map[string]bool{
	"judge-config": true, "backend": true, "model": true, "mode": true, "repeats": true, "temperature": true,
	"top-p": true, "max-tokens": true, "seed": true, "response-format": true,
}

func runScore(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newWorkspaceFlags("prism score", stderr, scoreUsage)
	calFile := fs.String("calibrator", "", "the calibrator `FILE` (JSON, from prism fit --save)")
	scores := fs.String("scores", "", "judge scores `CSV`: context,candidate,probe,score[,run,wording] (instead of a workspace)")
	labels := fs.String("labels", "", "with --scores: human labels `CSV` (context,candidate,human) for the transfer check")
	out := fs.String("o", "", "write the scored candidates to `FILE` (default: standard output)")
	format := fs.String("format", "", "output `FORMAT`: csv or jsonl (default: jsonl for an -o FILE ending in .jsonl or .ndjson, else csv)")
	scale := fs.String("scale", "corrected", "`SCALE` of the scores: corrected, or human (adds human_scale: the calibrator's monotone map of the corrected score)")
	allow := fs.Bool("allow-mismatch", false, "score with a bank or judge configuration other than the calibrator's (every difference is recorded in the output)")
	boot := fs.Int("bootstrap", 0, "transfer check: context-bootstrap resamples (0: the calibrator's fit's)")
	seed := fs.Uint64("seed", 0, "transfer check: bootstrap seed (default: the calibrator's fit's)")
	dataset := fs.String("dataset", "", "workspace mode: dataset `NAME` (default: the only one)")
	name := fs.String("judge", "", "workspace mode: the stored judge `NAME` of the answers (default: the calibrator's)")
	prices := fs.String("prices", "", "price table `FILE` (TOML, USD per 1M tokens)")
	conc := fs.Int("concurrency", 8, "requests in flight at once")
	rpm := fs.Int("rpm", 0, "requests per minute (0: unlimited)")
	tpm := fs.Int("tpm", 0, "tokens per minute, estimated input + output (0: unlimited)")
	spend := addSpendFlags(fs)
	target := fs.String("target", "", "transfer check against one `CRITERION` of the labels instead of the overall label: a column of the --labels file, or a criterion of the workspace dataset")
	budget := finiteFloatFlag(fs.FlagSet, "budget", 0, 0, 1e9, "workspace mode: follow the calibrator's adaptive policy (prism budget --save) with at most `N` judge calls per candidate, baseline included; 0: ask every probe")
	// The judge flags of prism run, registered on their own set and shown
	// here (the sampling seed as --judge-seed).
	jfs := flag.NewFlagSet("judge", flag.ContinueOnError)
	jfs.SetOutput(io.Discard)
	jf := judge.AddFlags(jfs)
	judgeFlag := map[string]string{} // score flag name → judge.AddFlags name
	jfs.VisitAll(func(fl *flag.Flag) {
		n := fl.Name
		if n == "seed" {
			n = "judge-seed"
		}
		judgeFlag[n] = fl.Name
		usage := fl.Usage
		if n == "judge-seed" {
			usage = "the judge's sampling seed, prism run's --seed (repeat r sends seed+r)"
		}
		def := fl.DefValue
		if keyFlags[fl.Name] {
			// The calibrator's configuration is the default.
			usage += " (default: the calibrator's)"
			def = ""
			switch fl.Value.(flag.Getter).Get().(type) {
			case int, int64, float64:
				def = "0"
			}
		}
		fs.Var(fl.Value, n, usage)
		fs.Lookup(n).DefValue = def
	})
	fs.Lookup("repeats").Usage = "runs per condition, each a separate request (default: the calibrator's judge's runs)"
	pos, help, err := fs.parse(args, stdout)
	if err != nil || help {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	var judgeSet []string
	for n, orig := range judgeFlag {
		if set[n] {
			if err := jfs.Set(orig, fs.Lookup(n).Value.String()); err != nil {
				return usageErr(scoreUsage, "--%s: %v", n, err)
			}
			judgeSet = append(judgeSet, "--"+n)
		}
	}
	slices.Sort(judgeSet)
	fromFiles := *scores != "" || *labels != ""
	workspaceOnly := []string{}
	for _, n := range append([]string{"dataset", "judge", "workspace", "prices", "concurrency", "rpm", "tpm", "budget"}, spendFlagNames...) {
		if set[n] {
			workspaceOnly = append(workspaceOnly, "--"+n)
		}
	}
	switch {
	case len(pos) > 0:
		return usageErr(scoreUsage, "unexpected argument %q", pos[0])
	case *calFile == "":
		return usageErr(scoreUsage, "--calibrator FILE is required (write one with prism fit --save)")
	case *labels != "" && *scores == "":
		return usageErr(scoreUsage, "--labels goes with --scores (a workspace dataset brings its own labels)")
	case *target != "" && *scores != "" && *labels == "":
		return usageErr(scoreUsage, "--target names a criterion column of --labels: give --labels too")
	case fromFiles && len(workspaceOnly)+len(judgeSet) > 0:
		return usageErr(scoreUsage, "%s: workspace flags, not for --scores (the scores are already recorded)", strings.Join(append(workspaceOnly, judgeSet...), ", "))
	case *scale != "corrected" && *scale != "human":
		return usageErr(scoreUsage, "--scale %q: want corrected or human", *scale)
	case *boot < 0:
		return usageErr(scoreUsage, "--bootstrap %d: want at least 1 (0: the calibrator's)", *boot)
	case *conc < 1 || *rpm < 0 || *tpm < 0:
		return usageErr(scoreUsage, "--concurrency must be ≥ 1 and --rpm, --tpm ≥ 0")
	}
	f := *format
	if f == "" {
		f = "csv"
		switch strings.ToLower(filepath.Ext(*out)) {
		case ".jsonl", ".ndjson":
			f = "jsonl"
		}
	}
	if f != "csv" && f != "jsonl" {
		return usageErr(scoreUsage, "--format %q: want csv or jsonl", *format)
	}

	cal, err := calib.ReadCalibratorFile(*calFile)
	if err != nil {
		return err
	}
	if *budget > 0 && cal.Policy == nil {
		return fmt.Errorf("%s: field \"policy\": the calibrator carries no budget policy; add one with prism budget --calibrator %s --save FILE", *calFile, *calFile)
	}
	if *budget > 0 && cal.Bank == nil {
		return fmt.Errorf("%s: field \"bank\": the calibrator records no probe bank, so prism cannot ask its probes in stages (--budget)", *calFile)
	}
	if *scale == "human" && cal.HumanScale == nil {
		return fmt.Errorf("%s: field \"human_scale\": the calibrator has no map to the human scale (%s); score without --scale human", *calFile, cal.HumanScaleNote)
	}
	// Progress and the summary go to stderr when the rows go to stdout.
	info := stderr
	if *out != "" {
		info = stdout
	}
	opts := calib.ApplyOptions{HumanScale: *scale == "human", Bootstrap: *boot, Seed: *seed}
	if set["bootstrap"] || set["seed"] {
		// One of them given: the other is the calibrator's.
		if *boot == 0 {
			opts.Bootstrap = cal.CV.Bootstrap
		}
		if !set["seed"] {
			opts.Seed = cal.CV.Seed
		}
	}
	var res *calib.Scored
	var mismatches []string
	var budgetDone *budgetScoring
	var studyOf *model.Study // the workspace study scored, nil for files
	warnTarget(stderr, cal, *target)
	if fromFiles {
		opts.ScoresFile, opts.LabelsFile = *scores, *labels
		if res, err = scoreFiles(cal, *calFile, *scores, *labels, *target, opts); err != nil {
			return err
		}
	} else {
		ws := scoreWorkspace{fs: fs, cal: cal, calFile: *calFile, jf: jf, jfs: jfs, judgeSet: judgeSet,
			dataset: *dataset, name: *name, prices: *prices, allow: *allow, spend: spend,
			limits: engine.Limits{Concurrency: *conc, RPM: *rpm, TPM: *tpm}, info: info, stderr: stderr, args: args, budget: *budget, target: *target,
			opts: opts}
		scored, mism, done, err := ws.acquire(ctx)
		if err != nil || done {
			return err
		}
		res, mismatches, budgetDone, studyOf = scored, mism, ws.budgetDone, ws.study
	}
	doc := scoreDoc{file: *calFile, cal: cal, res: res, mismatches: mismatches, study: studyOf, target: *target}
	write := doc.writeCSV
	if f == "jsonl" {
		write = doc.writeJSONL
	}
	buffered := func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<16)
		if err := write(bw); err != nil {
			return err
		}
		return bw.Flush()
	}
	if *out != "" {
		err = model.WriteFileAtomic(*out, buffered)
	} else {
		err = buffered(stdout)
	}
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	doc.summary(&buf)
	if budgetDone != nil {
		for _, n := range budgetDone.notes(cal, *budget) {
			fmt.Fprintln(&buf, n)
		}
	}
	if *out != "" {
		fmt.Fprintf(&buf, "wrote %d scored candidates to %s (%s)\n", len(res.Rows), *out, f)
	}
	return writeTrimmed(info, buf.String())
}

// scoreFiles applies cal to the scores CSV as it is read (the rows are
// folded into their candidates, never held: calib.Applier), with the
// labels CSV when labels is not "". The calibrator's errors are prefixed
// with its file, as Apply's are.
func scoreFiles(cal *calib.Calibrator, calFile, scores, labels, target string, opts calib.ApplyOptions) (*calib.Scored, error) {
	a, err := cal.NewApplier(opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", calFile, err)
	}
	var applyErr error
	_, err = readFile(scores, func(r io.Reader, path string) (struct{}, error) {
		return struct{}{}, model.ScanScoresCSV(r, path, func(row model.ScoreRow) error {
			if applyErr = a.Add(&row); applyErr != nil {
				return applyErr
			}
			return nil
		})
	})
	if applyErr != nil {
		return nil, fmt.Errorf("%s: %w", calFile, applyErr)
	}
	if err != nil {
		return nil, err
	}
	var labs []model.Label
	if labels != "" {
		if labs, err = readLabels(labels, target); err != nil {
			return nil, err
		}
	}
	res, err := a.Finish(labs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", calFile, err)
	}
	return res, nil
}

// scoreWorkspace is prism score on a workspace dataset: the calibrator's
// study, acquired through the engine.
type scoreWorkspace struct {
	fs       workspaceFlags
	cal      *calib.Calibrator
	calFile  string
	jf       *judge.Flags
	jfs      *flag.FlagSet
	judgeSet []string
	dataset  string
	name     string
	prices   string
	allow    bool
	spend    *spendFlags // --dry-run, --max-cost, …: the check before anything is sent
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
	c := study.ConfigOf(s.cal.Judge)
	for n := range set {
		switch n {
		case "backend":
			c.Backend = flagged.Backend
		case "model":
			c.Model = flagged.Model
		case "base-url":
			c.BaseURL = flagged.BaseURL
		case "mode":
			c.Mode = flagged.Mode
		case "repeats":
			c.Repeats = flagged.Repeats
		case "temperature":
			c.Temperature = flagged.Temperature
		case "top-p":
			c.TopP = flagged.TopP
		case "max-tokens":
			c.MaxTokens = flagged.MaxTokens
		case "seed":
			c.Seed = flagged.Seed
		case "response-format":
			c.ResponseFormat = flagged.ResponseFormat
		}
	}
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
	prices, err := readPrices(s.prices)
	if err != nil {
		return nil, nil, false, err
	}
	path := *s.fs.workspace
	// Plan on a read-only open: a study already answered (or a dry run)
	// writes nothing to the workspace.
	st, err := openWorkspaceRO(ctx, path)
	if err != nil {
		return nil, nil, false, err
	}
	defer func() { st.Close() }()
	if cfg.APIKey != "" {
		st.AddSecret(string(cfg.APIKey))
	}
	dsName, err := pickDataset(ctx, st, s.dataset, scoreUsage)
	if err != nil {
		return nil, nil, false, err
	}
	source := cal.Bank.Source
	if source == "" {
		source = "calibrator:" + s.calFile
	}
	spec := engine.Spec{BankSource: source, Bank: b, Task: cal.Bank.Task, Config: cfg,
		Repeats: max(1, cfg.Repeats), Prices: prices, Limits: s.limits, Probes: cal.Probes(), KeepRead: true}
	// What differs from the calibrator's judge: a configuration changed
	// by the judge flags is stored, by default, under the name prism run
	// gives it, not under the calibrator judge's name.
	// Read once for the judge snapshot and the first plan (the plan on
	// a writable open reads it again).
	d, rev, err := st.DatasetAt(ctx, dsName)
	if err != nil {
		return nil, nil, false, err
	}
	spec.Dataset, spec.DatasetRev = d, rev
	now := study.JudgeSnapshotOf(engine.StoredJudge(spec), spec.Repeats)
	if t, ok := b.Tasks[taskOf(spec)]; ok {
		now.Scale = fmt.Sprintf("%d–%d", t.Scale.Min, t.Scale.Max)
	}
	spec.JudgeName = s.name
	if spec.JudgeName == "" {
		spec.JudgeName = engine.DefaultJudgeName(cfg)
		if cal.Judge != nil && len(study.Mismatches(cal, now, "")) == 0 {
			spec.JudgeName = cal.Judge.Name
		}
	}
	name := spec.JudgeName
	plan, err := s.planRead(ctx, st, spec)
	if err != nil {
		return nil, nil, false, err
	}
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
	printEstimate(s.info, plan)
	if send, err := s.spend.check(plan.Estimate, cfg.Backend, s.info, s.stderr); !send {
		return nil, mismatches, err == nil, err
	}
	if plan.Estimate.Send+plan.Estimate.CacheHits > 0 {
		// Something to store: plan again on a writable open.
		st.Close()
		if st, err = openWorkspace(ctx, path, false); err != nil {
			return nil, nil, false, err
		}
		if cfg.APIKey != "" {
			st.AddSecret(string(cfg.APIKey))
		}
		if plan, err = s.plan(ctx, st, dsName, spec); err != nil {
			return nil, nil, false, err
		}
		sum, err := sendPlan(ctx, st, plan, s.info, s.stderr)
		if err != nil {
			return nil, nil, false, err
		}
		if sum.Canceled {
			fmt.Fprintf(s.stderr, "interrupted: %d answers stored by this run; rerun the same command to resume:\n  prism score %s\n", sum.Stored, shellJoin(s.args))
			return nil, nil, false, fmt.Errorf("interrupted")
		}
	}
	// The calibrator's runs only: a workspace that holds more runs (a
	// prism run with --repeats, a screen) is scored as it was trained.
	s.source = fmt.Sprintf("%s: dataset %s, judge %s", st.Path(), dsName, name)
	res, err = s.scan(ctx, st, plan, name)
	return res, mismatches, false, err
}

// scan scores the plan's runs of judge's study on its dataset and bank
// as they are read (calib.Applier; study.ScanRead walks the plan's decode,
// Plan.StudyRead: the rows are never held), as Apply does the rows of
// study.ReadRuns, bit for bit.
func (s *scoreWorkspace) scan(ctx context.Context, st *store.Store, plan *engine.Plan, judgeName string) (*calib.Scored, error) {
	info, _, err := study.Pick(ctx, st, plan.Spec.Dataset.Name, judgeName, plan.BankHash)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", st.Path(), err)
	}
	a, err := s.cal.NewApplier(s.applyOptions())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.calFile, err)
	}
	var applyErr error
	desc, labels, err := study.ScanRead(ctx, st, info, study.Runs{N: plan.Spec.Repeats}, plan.StudyRead(), plan.Spec.Dataset, nil, func(r *model.ScoreRow) error {
		applyErr = a.Add(r)
		return applyErr
	})
	if applyErr != nil {
		return nil, fmt.Errorf("%s: %w", s.calFile, applyErr)
	}
	data := &study.Data{Study: desc, Labels: labels}
	if err == nil {
		err = data.Retarget(ctx, st, s.target)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", st.Path(), err)
	}
	s.study = &data.Study
	res, err := a.Finish(data.Labels)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.calFile, err)
	}
	return res, nil
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
	st, err := openWorkspaceRO(ctx, *s.fs.workspace)
	if err != nil {
		return nil, nil, nil, false, err
	}
	defer st.Close()
	dsName, err := pickDataset(ctx, st, s.dataset, scoreUsage)
	if err != nil {
		return nil, nil, nil, false, err
	}
	name := s.name
	if name == "" {
		name = s.cal.Judge.Name
	}
	fmt.Fprintf(s.info, "the calibrator was fitted on imported scores (no probe bank): scoring the stored answers of judge %s on dataset %s; nothing is sent\n", name, dsName)
	if *s.spend.dry {
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
	spec.Dataset, spec.DatasetRev = d, rev
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

func taskOf(s engine.Spec) string {
	if s.Task != "" {
		return s.Task
	}
	return s.Dataset.Task
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

// scoreDoc writes a Scored as CSV or JSON Lines and summarises it.
type scoreDoc struct {
	study      *model.Study // the workspace study scored, or nil
	file       string
	cal        *calib.Calibrator
	res        *calib.Scored
	mismatches []string
	target     string // --target: the labels' criterion of the transfer check
}

func fmtFloat(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// notes are the facts every output states before its rows.
func (d *scoreDoc) notes() []string {
	c, r := d.cal, d.res
	out := []string{
		fmt.Sprintf("prism score %s: calibrator %s (method %s, centering %s, γ %s, %d columns, prism %s)", model.Version, d.file, c.Method, c.Centering, fmtFloat(c.Gamma.Value), len(c.Columns), c.PrismVersion),
		"corrected = alpha*baseline - sum of the term columns (docs/calibrator.md)",
	}
	if d.study != nil {
		for _, l := range d.study.Lines() {
			out = append(out, strings.TrimSpace(l))
		}
	}
	if d.target != "" && d.study == nil {
		out = append(out, "target: the labels' criterion "+d.target)
	}
	if c.Centering == calib.CenterWithinContext {
		s := "within-context mode: the corrected scores order candidates within a context and need not lie on the human scale"
		if r.HumanScale {
			s += "; human_scale maps them onto it (monotone: ranks unchanged)"
		}
		out = append(out, s)
	} else if r.HumanScale {
		out = append(out, "human_scale maps the corrected scores onto the human scale (monotone: ranks unchanged)")
	}
	if r.HumanScale && r.Extrapolated > 0 {
		out = append(out, fmt.Sprintf("human_scale: %d corrected scores lie outside the training range and are extrapolated", r.Extrapolated))
	}
	out = append(out, "imputed: "+d.imputedText())
	if r.InSample > 0 {
		out = append(out, fmt.Sprintf("in-sample: %d of %d scored candidates were training candidates of the calibrator", r.InSample, r.Candidates))
	}
	for _, m := range d.mismatches {
		out = append(out, "mismatch (--allow-mismatch): "+m)
	}
	return out
}

// imputedText counts the imputed cells per column.
func (d *scoreDoc) imputedText() string {
	var parts []string
	total := 0
	for _, col := range d.cal.ScoreColumns {
		if n := d.res.Imputed[col]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", col, n))
			total += n
		}
	}
	if total == 0 {
		return "no score cell was missing"
	}
	return fmt.Sprintf("%d score cells in %d candidates filled with the calibrator's training means (%s)", total, d.res.ImputedCandidates, strings.Join(parts, ", "))
}

func (d *scoreDoc) writeCSV(w io.Writer) error {
	for _, n := range d.notes() {
		if _, err := fmt.Fprintf(w, "# %s\n", strings.ReplaceAll(n, "\n", " ")); err != nil {
			return err
		}
	}
	r := d.res
	cw := csv.NewWriter(w)
	head := []string{"context", "candidate", "baseline", "corrected"}
	if r.HumanScale {
		head = append(head, "human_scale")
	}
	head = append(head, "rank_before", "rank_after", "imputed", "in_sample")
	if r.Labelled > 0 {
		head = append(head, "human")
	}
	for _, u := range r.Units {
		head = append(head, "term:"+u)
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	// A row is appended to one buffer, its numbers without making
	// strings (fmtFloat's strings were most of the writing); a row whose
	// ids need quoting goes through encoding/csv, which quotes them. Both
	// write what encoding/csv writes: numbers never need quotes.
	var rec []string
	var line []byte
	for i := range r.Rows {
		row := &r.Rows[i]
		if csvNeedsQuotes(row.Context) || csvNeedsQuotes(row.Candidate) {
			rec = scoreRecord(rec[:0], r, row)
			if err := cw.Write(rec); err != nil {
				return err
			}
			cw.Flush()
			if err := cw.Error(); err != nil {
				return err
			}
			continue
		}
		line = appendScoreRecord(line[:0], r, row)
		if _, err := w.Write(line); err != nil {
			return err
		}
	}
	return nil
}

// scoreRecord appends the CSV fields of row to rec.
func scoreRecord(rec []string, r *calib.Scored, row *calib.ScoredRow) []string {
	rec = append(rec, row.Context, row.Candidate, fmtFloat(row.Baseline), fmtFloat(row.Corrected))
	if r.HumanScale {
		rec = append(rec, fmtFloat(row.Scaled))
	}
	rec = append(rec, fmtFloat(row.RankBefore), fmtFloat(row.RankAfter), strconv.Itoa(row.Imputed), strconv.FormatBool(row.InSample))
	if r.Labelled > 0 {
		h := ""
		if !math.IsNaN(row.Human) {
			h = fmtFloat(row.Human)
		}
		rec = append(rec, h)
	}
	for _, t := range row.Terms {
		rec = append(rec, fmtFloat(t))
	}
	return rec
}

// appendScoreRecord appends the line encoding/csv writes for
// scoreRecord's fields when neither id needs quoting.
func appendScoreRecord(b []byte, r *calib.Scored, row *calib.ScoredRow) []byte {
	num := func(x float64) { b = strconv.AppendFloat(append(b, ','), x, 'g', -1, 64) }
	b = append(append(append(b, row.Context...), ','), row.Candidate...)
	num(row.Baseline)
	num(row.Corrected)
	if r.HumanScale {
		num(row.Scaled)
	}
	num(row.RankBefore)
	num(row.RankAfter)
	b = strconv.AppendInt(append(b, ','), int64(row.Imputed), 10)
	b = strconv.AppendBool(append(b, ','), row.InSample)
	if r.Labelled > 0 {
		if math.IsNaN(row.Human) {
			b = append(b, ',')
		} else {
			num(row.Human)
		}
	}
	for _, t := range row.Terms {
		num(t)
	}
	return append(b, '\n')
}

// csvNeedsQuotes is encoding/csv's Writer.fieldNeedsQuotes for the comma.
func csvNeedsQuotes(field string) bool {
	if field == "" {
		return false
	}
	if field == `\.` || strings.ContainsAny(field, "\n\r\",") {
		return true
	}
	r1, _ := utf8.DecodeRuneInString(field)
	return unicode.IsSpace(r1)
}

// scoreHeader is the first line of the JSON Lines output.
type scoreHeader struct {
	PrismVersion      string          `json:"prism_version"`
	Calibrator        string          `json:"calibrator"`
	Method            string          `json:"method"`
	Centering         string          `json:"centering"`
	Gamma             float64         `json:"gamma"`
	Units             []string        `json:"units"`
	Notes             []string        `json:"notes"`
	Contexts          int             `json:"contexts"`
	Candidates        int             `json:"candidates"`
	Imputed           map[string]int  `json:"imputed"`
	ImputedCandidates int             `json:"imputed_candidates"`
	IgnoredRows       int             `json:"ignored_rows"`
	InSample          int             `json:"in_sample"`
	HumanScale        bool            `json:"human_scale"`
	Extrapolated      int             `json:"extrapolated"`
	Labelled          int             `json:"labelled"`
	Transfer          *calib.Transfer `json:"transfer"`
	Mismatches        []string        `json:"mismatches"`
	Warnings          []string        `json:"warnings,omitempty"`
}

func (d *scoreDoc) writeJSONL(w io.Writer) error {
	r := d.res
	h := scoreHeader{PrismVersion: model.Version, Calibrator: d.file, Method: r.Method, Centering: r.Centering, Gamma: d.cal.Gamma.Value,
		Units: r.Units, Notes: d.notes(), Contexts: r.Contexts, Candidates: r.Candidates, Imputed: r.Imputed,
		ImputedCandidates: r.ImputedCandidates, IgnoredRows: r.IgnoredRows, InSample: r.InSample, HumanScale: r.HumanScale,
		Extrapolated: r.Extrapolated, Labelled: r.Labelled, Transfer: r.Transfer, Mismatches: d.mismatches, Warnings: r.Warnings}
	if h.Mismatches == nil {
		h.Mismatches = []string{}
	}
	line, err := json.Marshal(map[string]any{"header": h})
	if err != nil {
		return err
	}
	if _, err := w.Write(append(line, '\n')); err != nil {
		return err
	}
	// Rows by hand: fields in a fixed order, terms keyed by unit in order.
	var b []byte
	for _, row := range r.Rows {
		b = append(b[:0], `{"context":`...)
		b = appendJSONString(b, row.Context)
		b = append(b, `,"candidate":`...)
		b = appendJSONString(b, row.Candidate)
		b = append(b, `,"baseline":`...)
		b = strconv.AppendFloat(b, row.Baseline, 'g', -1, 64)
		b = append(b, `,"corrected":`...)
		b = strconv.AppendFloat(b, row.Corrected, 'g', -1, 64)
		if r.HumanScale {
			b = append(b, `,"human_scale":`...)
			b = strconv.AppendFloat(b, row.Scaled, 'g', -1, 64)
		}
		b = append(b, `,"rank_before":`...)
		b = strconv.AppendFloat(b, row.RankBefore, 'g', -1, 64)
		b = append(b, `,"rank_after":`...)
		b = strconv.AppendFloat(b, row.RankAfter, 'g', -1, 64)
		b = append(b, `,"imputed":`...)
		b = strconv.AppendInt(b, int64(row.Imputed), 10)
		b = append(b, `,"in_sample":`...)
		b = strconv.AppendBool(b, row.InSample)
		if r.Labelled > 0 {
			b = append(b, `,"human":`...)
			if math.IsNaN(row.Human) {
				b = append(b, "null"...)
			} else {
				b = strconv.AppendFloat(b, row.Human, 'g', -1, 64)
			}
		}
		b = append(b, `,"terms":{`...)
		for i, u := range r.Units {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, u)
			b = append(b, ':')
			b = strconv.AppendFloat(b, row.Terms[i], 'g', -1, 64)
		}
		b = append(b, "}}\n"...)
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

func appendJSONString(b []byte, s string) []byte {
	q, _ := json.Marshal(s)
	return append(b, q...)
}

// summary is what prism score says about the scored candidates.
func (d *scoreDoc) summary(w io.Writer) {
	r := d.res
	printStudy(w, d.study)
	fmt.Fprintf(w, "scored %d candidates in %d contexts with %s (%s, %s)\n", r.Candidates, r.Contexts, d.file, r.Method, r.Centering)
	fmt.Fprintf(w, "imputed: %s\n", d.imputedText())
	if r.IgnoredRows > 0 {
		fmt.Fprintf(w, "ignored %d score rows of probes the calibrator does not read\n", r.IgnoredRows)
	}
	if r.HumanScale && r.Extrapolated > 0 {
		fmt.Fprintf(w, "human scale: %d corrected scores lie outside the training range and are extrapolated\n", r.Extrapolated)
	}
	for _, m := range d.mismatches {
		fmt.Fprintf(w, "mismatch (--allow-mismatch): %s\n", m)
	}
	for _, warn := range r.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
	if r.InSample > 0 {
		if r.Transfer != nil {
			fmt.Fprintf(w, "%d of %d scored candidates were training candidates of the calibrator: the corrected agreement below is in-sample\n", r.InSample, r.Candidates)
		} else {
			fmt.Fprintf(w, "%d of %d scored candidates were training candidates of the calibrator\n", r.InSample, r.Candidates)
		}
	}
	t := r.Transfer
	if t == nil {
		if r.Labelled == 0 {
			fmt.Fprintln(w, "no labels: no transfer check")
		}
		return
	}
	over := fmt.Sprintf("%d contexts", t.Contexts)
	if d.cal.Centering == calib.CenterGlobal {
		over = "pooled over all candidates"
	}
	humans := "the humans"
	if d.target != "" {
		humans += "' criterion " + d.target
	}
	fmt.Fprintf(w, "\ntransfer check: %s agreement with %s, %s, %d labelled candidates; %d bootstrap resamples, seed %d\n",
		t.Metric, humans, over, t.Candidates, t.Bootstrap, t.Seed)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\tmean\t95% CI\t")
	fmt.Fprintf(tw, "baseline\t%.4f\t[%.4f, %.4f]\t\n", t.Baseline.Mean, t.Baseline.CI[0], t.Baseline.CI[1])
	fmt.Fprintf(tw, "corrected\t%.4f\t[%.4f, %.4f]\t\n", t.Corrected.Mean, t.Corrected.CI[0], t.Corrected.CI[1])
	fmt.Fprintf(tw, "paired diff\t%+.4f\t[%+.4f, %+.4f]\t\n", t.Diff.Mean, t.Diff.CI[0], t.Diff.CI[1])
	tw.Flush()
	fmt.Fprintf(w, "calibrator's nested-CV estimate on its training data: %s %.4f [%.4f, %.4f] vs Vanilla %.4f\n",
		d.cal.Method, d.cal.CV.Method.Mean, d.cal.CV.Method.CI[0], d.cal.CV.Method.CI[1], d.cal.CV.Vanilla.Mean)
}
