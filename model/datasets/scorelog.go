package datasets

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/prism-eval/prism/model"
)

// Score log formats: another tool's record of a judge's (or grader's)
// scores, read by ReadScoreLogs (docs/import.md).
const (
	LogInspect   = "inspect"   // Inspect AI's .eval zip or .json log
	LogPromptfoo = "promptfoo" // promptfoo's eval -o results.json
	LogJSONL     = "jsonl"     // any JSON Lines file, fields named by path
	LogJSON      = "json"      // a JSON array of records (or {"data": [...]})
	LogCSV       = "csv"       // a CSV with a header, columns named
	LogParquet   = "parquet"   // a Parquet file, columns named
)

// LogFormats lists the formats ReadScoreLogs accepts.
func LogFormats() []string {
	return []string{LogInspect, LogPromptfoo, LogJSONL, LogJSON, LogCSV, LogParquet}
}

// LogOptions say where a log's coordinates are. Empty fields take each
// format's default (docs/import.md).
type LogOptions struct {
	Context   string // inspect: metadata.FIELD; promptfoo: a test var; mapped: a path
	Candidate string // likewise; inspect default the eval's model, promptfoo the provider id
	Score     string // promptfoo: score, namedScores.NAME or output; mapped: a path
	Run       string // mapped: a path (default: no run)
	Label     string // promptfoo: a test var; mapped: a path
	Scorer    string // inspect: the scorer (NAME or NAME.KEY for a dict value)
	// ParseReply reads a judge reply as prism's score parser does
	// (promptfoo --score output); nil refuses that mode.
	ParseReply func(reply string) (float64, bool)
}

// ScoreLog is what one or more logs hold: the scores as tidy rows (probe
// baseline, run the epoch or repeat) and the dataset they are on as far
// as the logs tell it: contexts and candidates in first-seen order, with
// the texts the logs have and Human NaN where they give no label.
type ScoreLog struct {
	Dataset *model.Dataset
	Rows    []model.ScoreRow
}

// Labels returns the labels the logs gave.
func (l *ScoreLog) Labels() []model.Label { return l.Dataset.Labels() }

// logBuilder gathers contexts, candidates and scores from records, each
// named by where it is ("FILE:LINE:COL" or "FILE: samples/1_epoch_1.json")
// so that a repeat names both places.
type logBuilder struct {
	d      *model.Dataset
	ctxAt  map[string]int
	candAt map[[2]string]int
	seen   map[[3]string]string // (context, candidate, run) → where
	label  map[[2]string]string // candidate → where its label was given
	rows   []model.ScoreRow
}

func newLogBuilder(name, format string) *logBuilder {
	return &logBuilder{
		d:     &model.Dataset{Name: name, Format: format, Task: model.TaskGeneric, Metric: model.MetricSpearman},
		ctxAt: map[string]int{}, candAt: map[[2]string]int{}, seen: map[[3]string]string{}, label: map[[2]string]string{},
	}
}

// logRecord is one score read from a log.
type logRecord struct {
	where              string // for errors
	context, candidate string
	run                string
	score              float64
	missing            bool
	source, text       string   // "" when the log has none
	label              *float64 // nil when the log gives none
}

func (b *logBuilder) add(r logRecord) error {
	switch {
	case r.context == "":
		return fmt.Errorf("%s: the context id is empty", r.where)
	case r.candidate == "":
		return fmt.Errorf("%s: the candidate id is empty", r.where)
	case len(r.context) > model.MaxText || len(r.candidate) > model.MaxText || len(r.run) > model.MaxText:
		return fmt.Errorf("%s: an id is larger than the %s limit for one text", r.where, model.SizeText(model.MaxText))
	case !r.missing && model.CheckNumber(r.score) != nil:
		return fmt.Errorf("%s: score %v: %v", r.where, r.score, model.CheckNumber(r.score))
	}
	key := [3]string{r.context, r.candidate, r.run}
	if prev, dup := b.seen[key]; dup {
		return fmt.Errorf("%s: context %s candidate %s run %s was already scored at %s",
			r.where, model.Quote(r.context), model.Quote(r.candidate), model.Quote(r.run), prev)
	}
	b.seen[key] = r.where
	ci, ok := b.ctxAt[r.context]
	if !ok {
		ci = len(b.d.Contexts)
		b.ctxAt[r.context] = ci
		b.d.Contexts = append(b.d.Contexts, model.Context{ID: r.context})
	}
	c := &b.d.Contexts[ci]
	if c.Source == "" {
		c.Source = r.source
	}
	ck := [2]string{r.context, r.candidate}
	ki, ok := b.candAt[ck]
	if !ok {
		ki = len(c.Candidates)
		b.candAt[ck] = ki
		c.Candidates = append(c.Candidates, model.Candidate{ID: r.candidate, Human: math.NaN()})
	}
	k := &c.Candidates[ki]
	if k.Text == "" {
		k.Text = r.text
	}
	if r.label != nil {
		if err := model.CheckNumber(*r.label); err != nil {
			return fmt.Errorf("%s: label %v: %v", r.where, *r.label, err)
		}
		if prev, ok := b.label[ck]; ok && k.Human != *r.label {
			return fmt.Errorf("%s: label %v differs from the label %v given at %s", r.where, *r.label, k.Human, prev)
		}
		k.Human, b.label[ck] = *r.label, r.where
	}
	row := model.ScoreRow{Context: r.context, Candidate: r.candidate, Probe: model.ProbeBaseline, Run: r.run, Score: r.score, Missing: r.missing, Line: len(b.rows) + 1}
	if r.missing {
		row.Score = math.NaN()
	}
	b.rows = append(b.rows, row)
	return nil
}

func (b *logBuilder) finish(file string) (*ScoreLog, error) {
	if len(b.rows) == 0 {
		return nil, fmt.Errorf("%s: no scores in the log", file)
	}
	return &ScoreLog{Dataset: b.d, Rows: b.rows}, nil
}

// MergeScoreLogs joins logs read from several files into one: contexts
// with one id are one context (its first source kept), and a candidate
// scored in two logs on one run is an error naming both. The dataset
// takes the first log's name and format.
func MergeScoreLogs(logs []*ScoreLog, files []string) (*ScoreLog, error) {
	if len(logs) == 1 {
		return logs[0], nil
	}
	b := newLogBuilder(logs[0].Dataset.Name, logs[0].Dataset.Format)
	for i, l := range logs {
		texts := map[[2]string][2]string{}
		labels := map[[2]string]float64{}
		for _, c := range l.Dataset.Contexts {
			for _, k := range c.Candidates {
				texts[[2]string{c.ID, k.ID}] = [2]string{c.Source, k.Text}
				labels[[2]string{c.ID, k.ID}] = k.Human
			}
		}
		for _, row := range l.Rows {
			ck := [2]string{row.Context, row.Candidate}
			r := logRecord{where: fmt.Sprintf("%s (score %d)", files[i], row.Line), context: row.Context, candidate: row.Candidate,
				run: row.Run, score: row.Score, missing: row.Missing, source: texts[ck][0], text: texts[ck][1]}
			if h := labels[ck]; !math.IsNaN(h) {
				r.label = &h
			}
			if err := b.add(r); err != nil {
				return nil, err
			}
		}
	}
	return b.finish(strings.Join(files, ", "))
}

// valueToFloat converts a grader's value as Inspect's value_to_float does:
// numbers and booleans as they are; C (correct) 1, I (incorrect) 0, P
// (partial) 0.5, N (no answer) 0; "yes"/"true" 1 and "no"/"false" 0 in
// any case; a numeric string its number. Where Inspect would log a
// warning and take 0, ok is false: the caller reports the value.
func valueToFloat(n *jnode) (float64, bool) {
	switch n.kind {
	case jBool:
		if n.text == "true" {
			return 1, true
		}
		return 0, true
	case jNumber:
		v, err := model.ParseDecimal(n.text)
		return v, err == nil && model.CheckNumber(v) == nil
	case jString:
		switch n.text {
		case "C":
			return 1, true
		case "I", "N":
			return 0, true
		case "P":
			return 0.5, true
		}
		switch strings.ToLower(n.text) {
		case "yes", "true":
			return 1, true
		case "no", "false":
			return 0, true
		}
		v, err := model.ParseDecimal(strings.TrimSpace(n.text))
		return v, err == nil && model.CheckNumber(v) == nil
	}
	return 0, false
}

// sortedKeys lists a set's keys in order, for errors.
func sortedKeys(m map[string]bool) string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ", ")
}

// ReadScoreLog reads one log of the given format from data; name is the
// file's name in errors and, for formats without a task name, the
// dataset's. Errors name the file, the line (or zip member, or record)
// and the field.
func ReadScoreLog(format string, data []byte, name string, opts LogOptions) (*ScoreLog, error) {
	switch format {
	case LogInspect:
		return readInspect(name, data, opts)
	case LogPromptfoo:
		return readPromptfoo(newLocator(name, data), opts)
	case LogJSONL, LogJSON, LogCSV, LogParquet:
		return readMapped(format, name, data, opts)
	}
	return nil, fmt.Errorf("unknown log format %q (want one of %s)", format, strings.Join(LogFormats(), ", "))
}

// LoadScoreLogs reads each file (at most model.MaxDatasetFile each) and
// merges them (MergeScoreLogs): several Inspect logs of one task, one
// per evaluated model, make one dataset with a candidate per model. Logs
// of different tasks are refused.
func LoadScoreLogs(format string, files []string, opts LogOptions) (*ScoreLog, error) {
	var logs []*ScoreLog
	for i, f := range files {
		data, err := model.ReadFileLimited(f, datasetFileLimit, "a log file")
		if err != nil {
			return nil, err
		}
		l, err := ReadScoreLog(format, data, f, opts)
		if err != nil {
			return nil, err
		}
		if i > 0 && format == LogInspect && l.Dataset.Name != logs[0].Dataset.Name {
			return nil, fmt.Errorf("%s: task %s differs from task %s of %s; import each task on its own", f, model.Quote(l.Dataset.Name), model.Quote(logs[0].Dataset.Name), files[0])
		}
		logs = append(logs, l)
	}
	if len(logs) == 0 {
		return nil, fmt.Errorf("no log files")
	}
	return MergeScoreLogs(logs, files)
}
