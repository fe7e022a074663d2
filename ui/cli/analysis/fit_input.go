package analysis

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

// fitInput is a judge's answers on a dataset and the dataset's human
// labels, read from a workspace; source names them for the report. bank
// and judgeSnap are their provenance, read when a calibrator is saved.
type fitInput struct {
	rows   []model.ScoreRow
	labels []model.Label
	// comparisons are the workspace dataset's comparison labels
	// (study.Data.Comparisons), nil from files.
	comparisons []model.Comparison
	dataset     string
	judge       string
	source      string
	bank        *calib.BankSnapshot
	judgeSnap   *calib.JudgeSnapshot
	// study names what was read from a workspace (zero from files);
	// metric is its dataset's own metric.
	study  model.Study
	metric string
	// rep and design are a study fit's (fitStudy).
	rep    *calib.Report
	design *calib.Design
	// rubrics are the judge's rubric ratings (fit's baselines), usage the
	// cost of its answers (fit's budgets), warnings what reading them
	// found; set by fit only.
	rubrics  []study.RubricRatings
	usage    []store.ProbeUsage
	warnings []string
}

// calibratorSource is what a saved calibrator records of its training
// data beside the fit: where the scores came from, the bank and the judge.
type calibratorSource struct {
	dataset, source string
	bank            *calib.BankSnapshot
	judge           *calib.JudgeSnapshot
}

// saveCalibrator fits the calibrator of method m on every context of d
// (calib.NewCalibrator), records its provenance and writes it to path
// through a temporary file: on any error nothing is written.
func saveCalibrator(ctx context.Context, path string, d *calib.Design, rep *calib.Report, opts calib.Options, m calib.Method, src calibratorSource, stderr io.Writer) error {
	c, err := calib.NewCalibrator(ctx, d, rep, opts, m)
	if err != nil {
		return fmt.Errorf("--save %s: %w", path, err)
	}
	c.PrismVersion = model.Version
	c.Training.Dataset, c.Training.Source, c.Training.Study = src.dataset, src.source, rep.Study
	c.Bank, c.Judge = src.bank, src.judge
	data, err := c.Marshal()
	if err != nil {
		return fmt.Errorf("--save %s: %w", path, err)
	}
	if err := model.WriteFileAtomic(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "saved calibrator %s (%s, γ %s, %d columns, cv mean %.4f [%.4f, %.4f] vs Vanilla %.4f; %d contexts, %d candidates)\n",
		path, c.Method, calib.GammaKey(c.Gamma.Value), len(c.Columns), c.CV.Method.Mean, c.CV.Method.CI[0], c.CV.Method.CI[1], c.CV.Vanilla.Mean,
		c.Training.Contexts, c.Training.Candidates)
	return nil
}

// bankSnapshotOf is the calibrator record of the bank ref names (a
// built-in name, a TOML file or a workspace hash prefix).
func bankSnapshotOf(ctx context.Context, ref string, fs clikit.WorkspaceFlags) (*calib.BankSnapshot, error) {
	b, _, err := clikit.ResolveBank(ctx, ref, fs)
	if err != nil {
		return nil, fmt.Errorf("--bank: %w", err)
	}
	text, err := b.Marshal()
	if err != nil {
		return nil, fmt.Errorf("--bank %s: %w", ref, err)
	}
	return &calib.BankSnapshot{Name: b.Name, Hash: b.Hash(), Source: bankSource(ref), TOML: string(text)}, nil
}

// bankSource names where a bank reference points, as prism run records
// it: a file, builtin:NAME or workspace:HASH.
func bankSource(ref string) string {
	if _, err := os.Stat(ref); err == nil {
		return ref
	}
	if _, err := banks.Builtin(ref); err == nil {
		return "builtin:" + ref
	}
	return "workspace:" + ref
}

// readFitInput reads what a fit or a selection works on: the scores and
// labels CSVs when fromFiles, else the workspace (workspaceFitInput).
func readFitInput(ctx context.Context, wf clikit.WorkspaceFlags, fromFiles bool, scores, labels string, ref studyRef, stderr io.Writer) (fitInput, error) {
	if !fromFiles {
		return workspaceFitInputWith(ctx, wf, ref, stderr, false, nil)
	}
	var in fitInput
	var err error
	if in.rows, err = clikit.ReadFile(scores, model.ReadScoresCSV); err != nil {
		return in, err
	}
	in.labels, err = clikit.ReadLabels(labels, ref.target)
	return in, err
}

// readFitInputInto reads score and label files. With a builder, each
// score row goes to the builder as it is read and only the rubric
// ratings' rows are kept in rows (what rubricRatings reads); without one,
// every row is kept. mem, when not nil, is sized from the builder's
// design as it grows.
func readFitInputInto(ctx context.Context, scores, labels, target string, b *calib.DesignBuilder, mem *fitMemLimit) (fitInput, error) {
	if b == nil {
		return readFitInput(ctx, clikit.WorkspaceFlags{}, true, scores, labels, studyRef{target: target}, nil)
	}
	var in fitInput
	// The labels first (a small file): their count sizes the builder's
	// sums once. An error in them is still reported after the scores'.
	labs, lerr := clikit.ReadLabels(labels, target)
	if lerr == nil {
		b.Reserve(len(labs))
	}
	if mem == nil {
		mem = &fitMemLimit{} // off
	}
	_, err := clikit.ReadFile(scores, func(r io.Reader, file string) (struct{}, error) {
		return struct{}{}, model.ScanScoresCSV(r, file, func(row model.ScoreRow) error {
			if strings.HasPrefix(row.Probe, "rubric:") {
				in.rows = append(in.rows, row)
			}
			err := b.Add(&row)
			mem.update(b.DesignBytes())
			return err
		})
	})
	if err != nil {
		return in, err
	}
	in.labels = labs
	return in, lerr
}

// studyRef is how a command names the study it reads: the dataset, the
// judge and the bank as given (each "" for the workspace's only one) and
// the runs to read; target, when not "", the criterion of the dataset
// the labels are read from (--target).
type studyRef struct {
	dataset, judge, bank string
	runs                 study.Runs
	target               string
}

// workspaceFitInputWith reads a judge's answers on a dataset in one study
// (study.Pick: under --bank, else the judge's only planned study there)
// and the dataset's human targets from a workspace, for fit, select and
// budget. With provenance it also reads the bank and judge configuration
// behind the answers (study.Provenance) for a saved calibrator.
//
// more, when not nil, reads more from the open store (hash: the study's
// bank).
func workspaceFitInputWith(ctx context.Context, wf clikit.WorkspaceFlags, ref studyRef, stderr io.Writer, provenance bool,
	more func(st *store.Store, in *fitInput, hash string) error) (fitInput, error) {
	var in fitInput
	st, err := clikit.OpenWorkspaceRO(ctx, *wf.Workspace)
	if err != nil {
		return in, err
	}
	defer st.Close()
	info, err := pickStudy(ctx, st, wf, ref, &in, stderr)
	if err != nil {
		return in, err
	}
	hash := info.BankHash
	d, err := study.Read(ctx, st, info, ref.runs)
	if err == nil {
		err = d.Retarget(ctx, st, ref.target)
	}
	if err == nil {
		in.rows, in.labels, in.study, in.comparisons = d.Rows, d.Labels, d.Study, d.Comparisons
	}
	if err != nil {
		return in, fmt.Errorf("%s: %w", st.Path(), err)
	}
	warnUnbalanced(stderr, wf.Name(), &in.study)
	if provenance {
		if in.bank, in.judgeSnap, err = study.Provenance(ctx, st, in.dataset, in.judge, hash, in.rows); err != nil {
			return in, fmt.Errorf("%s: %w", st.Path(), err)
		}
	}
	if more != nil {
		if err := more(st, &in, hash); err != nil {
			return in, err
		}
	}
	return in, nil
}

// rememberFit stores rep in the workspace (study.Remember) for prism ls
// and the TUI's Fit tab. A workspace that cannot be written (a read-only
// file, a busy lock) loses only that: the report is still printed, and
// a warning says why it was not kept.
func rememberFit(ctx context.Context, path string, rep *calib.Report, stderr io.Writer) {
	st, err := clikit.OpenWorkspace(ctx, path, false)
	if err == nil {
		_, err = study.Remember(ctx, st, rep)
		if cerr := st.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "prism fit: warning: the fit was not stored in %s: %v\n", path, err)
	}
}

// pickStudy resolves ref's dataset, judge and bank in the open workspace
// and picks the study to read (study.Pick), filling in's dataset, judge,
// metric and source; a note on stderr says which study was taken when
// there was a choice.
func pickStudy(ctx context.Context, st *store.Store, wf clikit.WorkspaceFlags, ref studyRef, in *fitInput, stderr io.Writer) (store.StudyInfo, error) {
	var info store.StudyInfo
	var err error
	if in.dataset, err = clikit.PickDataset(ctx, st, ref.dataset, wf.UsageDoc); err != nil {
		return info, err
	}
	if in.judge, err = pickJudge(ctx, st, ref.judge, wf.UsageDoc, stderr, wf.Name()); err != nil {
		return info, err
	}
	if in.metric, err = datasetMetric(ctx, st, in.dataset); err != nil {
		return info, err
	}
	hash := ""
	if ref.bank != "" {
		b, _, err := clikit.ResolveBank(ctx, ref.bank, wf)
		if err != nil {
			return info, err
		}
		hash = b.Hash()
	}
	info, note, err := study.Pick(ctx, st, in.dataset, in.judge, hash)
	if err != nil {
		return info, fmt.Errorf("%s: %w", st.Path(), err)
	}
	if note != "" && stderr != nil {
		fmt.Fprintf(stderr, "%s: %s\n", wf.Name(), note)
	}
	in.source = study.Source(st.Path(), info)
	return info, nil
}

// datasetMetric is the metric a dataset was imported with (pairwise for
// JudgeBench's pairs), the default of the analyses that read it.
func datasetMetric(ctx context.Context, st *store.Store, name string) (string, error) {
	ds, err := st.Datasets(ctx)
	if err != nil {
		return "", err
	}
	for _, d := range ds {
		if d.Name == name {
			return d.Metric, nil
		}
	}
	return "", nil
}

// pickJudge returns name when the workspace holds a judge of that name, or
// the only stored judge when name is empty. A name that is no stored judge
// fails naming the judges there are: those the backend of that name made
// (after a run with the old --judge offline, the names offline and
// offline-expected), else all. When name is found and other judges share
// its backend, a note on stderr names them, so the integer and the
// expected-mode judge are never confused silently.
func pickJudge(ctx context.Context, st *store.Store, name, usage string, stderr io.Writer, prog string) (string, error) {
	js, err := st.Judges(ctx)
	if err != nil {
		return "", err
	}
	all := make([]string, len(js))
	for i, j := range js {
		all[i] = j.Name
	}
	if name == "" {
		switch len(js) {
		case 1:
			return js[0].Name, nil
		case 0:
			return "", fmt.Errorf("%s holds no judge; run prism run (or prism import scores) first", st.Path())
		}
		return "", clikit.UsageErr(usage, "%s holds %d judges (%s); choose one with --judge", st.Path(), len(js), strings.Join(all, ", "))
	}
	var found *store.Judge
	for i := range js {
		if js[i].Name == name {
			found = &js[i]
		}
	}
	if found != nil {
		var siblings []string
		for _, j := range js {
			if j.Backend == found.Backend && j.Name != name && found.Backend != "import" {
				siblings = append(siblings, j.Name)
			}
		}
		if len(siblings) > 0 && stderr != nil {
			fmt.Fprintf(stderr, "%s: judge %s (backend %s, model %s); the workspace also holds %s from the same backend\n",
				prog, name, found.Backend, found.Model, strings.Join(siblings, ", "))
		}
		return name, nil
	}
	var byBackend []string
	for _, j := range js {
		if j.Backend == name {
			byBackend = append(byBackend, j.Name)
		}
	}
	switch {
	case len(byBackend) > 0:
		return "", fmt.Errorf("%s: no stored judge is named %q; judges made by backend %s: %s (pass one to --judge; prism ls lists them)",
			st.Path(), name, name, strings.Join(byBackend, ", "))
	case len(js) == 0:
		return "", fmt.Errorf("%s: judge %q: %w; the workspace holds no judge yet (prism run stores one)", st.Path(), name, store.ErrNotFound)
	}
	return "", fmt.Errorf("%s: judge %q: %w; the workspace holds %s (prism ls lists them)", st.Path(), name, store.ErrNotFound, strings.Join(all, ", "))
}
