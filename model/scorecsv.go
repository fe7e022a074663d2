package model

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// ScoreRow is one judge score in the tidy long format of `prism fit`.
type ScoreRow struct {
	Context, Candidate, Probe string // probe: "baseline", "ATTR:+", "ATTR:-", "neutral:NAME", "ctx:NAME"
	Score                     float64
	Missing                   bool   // empty score cell
	Run                       string // optional "run" column ("" when absent)
	Wording                   string // optional "wording" column ("" when absent)
	Line                      int    // 1-based line in the source file (0 when not from a file)
}

// Scored reports whether r holds a score: neither an empty cell nor NaN
// (a stored answer without a score, such as a rubric's missing cell).
func (r *ScoreRow) Scored() bool { return !r.Missing && !math.IsNaN(r.Score) }

// Label is one human reference score y_i of a candidate (docs/protocol.md §1).
type Label struct {
	Context, Candidate string
	Human              float64
	Line               int // 1-based line in the source file (0 when not from a file)
}

// Probe kinds returned by ParseProbe.
const (
	ProbeBaseline = "baseline" // the task prompt with no added instruction, s0
	ProbeAttr     = "attr"     // an attribute probe ATTR:+ or ATTR:-
	ProbeNeutral  = "neutral"  // a neutral control clause, never a regression column
	ProbeContext  = "ctx"      // a one-sided context probe, one regression column
	// ProbeRubric is a rubric criterion's rating ("rubric:RUBRIC/CRITERION",
	// docs/rubrics.md): stored beside a bank's scores, never a PRISM
	// regression column (the fit ignores it as it ignores neutral probes).
	ProbeRubric = "rubric"
)

// RubricProbe is the probe name a rubric criterion's ratings are stored
// under: "rubric:RUBRIC/CRITERION" (e.g. "rubric:saja-broad/accuracy").
func RubricProbe(rubric, criterion string) string {
	return "rubric:" + rubric + "/" + criterion
}

// SplitRubricProbe returns the rubric and criterion of a rubric probe
// name, ok false for any other name.
func SplitRubricProbe(name string) (rubric, criterion string, ok bool) {
	rest, found := strings.CutPrefix(name, "rubric:")
	if !found {
		return "", "", false
	}
	rubric, criterion, ok = strings.Cut(rest, "/")
	if !ok || !ValidName(rubric) || !ValidName(criterion) {
		return "", "", false
	}
	return rubric, criterion, true
}

// ParseProbe splits a probe name into its kind (one of the Probe*
// constants), the attribute or clause name, and the sign ("+" or "-", only
// for ProbeAttr). Accepted names: "baseline", "ATTR:+", "ATTR:-",
// "neutral:NAME", "ctx:NAME", with ATTR and NAME as ValidName accepts (the
// names a bank may give), the wording-diagnostic probes "ATTR:LEVEL"
// (ProbeLevel; sign is the level, one of LevelNames) and "joint:A/B:SIGNS"
// (ProbeJoint; attr is "A/B", sign the two signs), and "rubric:RUBRIC/CRITERION" (ProbeRubric; attr
// is then "RUBRIC/CRITERION"). It is the probe-name validator of every
// reader.
func ParseProbe(name string) (kind, attr, sign string, err error) {
	switch {
	case name == "baseline":
		return ProbeBaseline, "", "", nil
	case strings.HasPrefix(name, "rubric:"):
		r, c, ok := SplitRubricProbe(name)
		if !ok {
			return "", "", "", fmt.Errorf("probe %s: a rubric probe is rubric:RUBRIC/CRITERION, each name valid: %s", Quote(name), NameRule)
		}
		return ProbeRubric, r + "/" + c, "", nil
	case strings.HasPrefix(name, "neutral:"):
		kind, attr = ProbeNeutral, name[len("neutral:"):]
	case strings.HasPrefix(name, "ctx:"):
		kind, attr = ProbeContext, name[len("ctx:"):]
	case strings.HasPrefix(name, prefixJoint):
		a, b, signs, ok := SplitJointProbe(name)
		if !ok {
			return "", "", "", fmt.Errorf("probe %s: a joint probe is joint:A/B:SIGNS, A and B distinct names (%s), SIGNS one of ++, +-, -+, --", Quote(name), NameRule)
		}
		return ProbeJoint, a + "/" + b, signs, nil
	case isLevelName(name):
		kind, attr, sign = ProbeLevel, name[:strings.LastIndexByte(name, ':')], name[strings.LastIndexByte(name, ':')+1:]
	case strings.HasSuffix(name, ":+") || strings.HasSuffix(name, ":-"):
		kind, attr, sign = ProbeAttr, name[:len(name)-2], name[len(name)-1:]
	default:
		return "", "", "", fmt.Errorf("probe %s is not one of baseline, ATTR:+, ATTR:-, ATTR:LEVEL, neutral:NAME, ctx:NAME, joint:A/B:SIGNS, rubric:RUBRIC/CRITERION", Quote(name))
	}
	if !ValidName(attr) {
		return "", "", "", fmt.Errorf("probe %s: name %s is not valid: %s", Quote(name), Quote(attr), NameRule)
	}
	return kind, attr, sign, nil
}

// csvTable reads a CSV with a header and maps the named columns. The
// reader is strict about field counts so a stray comma is reported on its
// own line rather than shifting every later field.
type csvTable struct {
	file string
	r    *csv.Reader
	col  map[string]int
}

func openCSV(r io.Reader, file, what string, required []string) (*csvTable, error) {
	// csv.Reader buffers a whole record: bound lines and the file so that
	// a wrong input (a device, a text dump) fails fast.
	cr := csv.NewReader(LimitLines(r, file, MaxTableLine, MaxTableFile, what))
	cr.ReuseRecord = true
	head, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("%s: empty file, want a header with %s", file, strings.Join(required, ","))
	}
	if err != nil {
		return nil, csvErr(file, err)
	}
	t := &csvTable{file: file, r: cr, col: map[string]int{}}
	for i, h := range head {
		h = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		if _, dup := t.col[h]; dup && h != "" {
			line, col := cr.FieldPos(i)
			return nil, fmt.Errorf("%s:%d:%d: column %s appears twice in the header", file, line, col, Quote(h))
		}
		t.col[h] = i
	}
	for _, name := range required {
		if _, ok := t.col[name]; !ok {
			return nil, fmt.Errorf("%s:1:1: missing column %q (header must have %s)", file, name, strings.Join(required, ","))
		}
	}
	return t, nil
}

// next returns the next record and its 1-based line, or io.EOF.
func (t *csvTable) next() ([]string, int, error) {
	rec, err := t.r.Read()
	if err != nil {
		if err == io.EOF {
			return nil, 0, err
		}
		return nil, 0, csvErr(t.file, err)
	}
	line, _ := t.r.FieldPos(0)
	return rec, line, nil
}

// at is the location of the named field of the record last read, in the
// file:line:col form of every loader's errors.
func (t *csvTable) at(name string) string {
	line, col := t.r.FieldPos(t.col[name])
	return fmt.Sprintf("%s:%d:%d", t.file, line, col)
}

func (t *csvTable) field(rec []string, name string) string {
	i, ok := t.col[name]
	if !ok {
		return ""
	}
	return strings.TrimSpace(rec[i])
}

func csvErr(file string, err error) error {
	if IsSizeError(err) {
		return err // names the file and line already
	}
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s:%d:%d: %w", file, pe.Line, pe.Column, pe.Err)
	}
	return fmt.Errorf("%s: %w", file, err)
}

// parseNumber reads a score or label and checks it with CheckNumber;
// at locates the field and field names its column for the error.
func parseNumber(at, field, s string) (float64, error) {
	v, err := ParseDecimal(s)
	if err != nil {
		return 0, fmt.Errorf("%s: field %q: %s is not a finite number (%v)", at, field, Quote(s), err)
	}
	if err := CheckNumber(v); err != nil {
		return 0, fmt.Errorf("%s: field %q: %s: %v", at, field, Quote(s), err)
	}
	return v, nil
}

// ReadScoresCSV reads judge scores in the tidy long format: a header with
// at least context,candidate,probe,score (optional run and wording
// columns are kept, others ignored), then one row per score. An empty score
// is a missing cell (Missing true). Errors name file, line and field.
//
// Rows are gathered in blocks and copied once into a slice of the exact
// length, so reading costs about twice the rows' memory at its peak, not
// the five times of a slice grown by appending; rows share their strings
// (ScanScoresCSV).
func ReadScoresCSV(r io.Reader, file string) ([]ScoreRow, error) {
	var rows blocks[ScoreRow]
	if err := ScanScoresCSV(r, file, func(row ScoreRow) error {
		rows.add(row)
		return nil
	}); err != nil {
		return nil, err
	}
	return rows.slice(), nil
}

// blocks gathers values in fixed blocks and copies them once into a slice
// of the exact length: a slice grown by append to n large values is copied
// about five times over, as it grows by a quarter at a time.
type blocks[T any] struct {
	full [][]T
	cur  []T
	n    int
}

func (b *blocks[T]) add(v T) {
	const size = 1 << 14
	if len(b.cur) == cap(b.cur) {
		if b.cur != nil {
			b.full = append(b.full, b.cur)
		}
		b.cur = make([]T, 0, min(size, max(16, 2*cap(b.cur))))
	}
	b.cur = append(b.cur, v)
	b.n++
}

// slice returns the values in order, nil when there are none.
func (b *blocks[T]) slice() []T {
	if b.n == 0 {
		return nil
	}
	if len(b.full) == 0 {
		return b.cur
	}
	out := make([]T, 0, b.n)
	for _, f := range b.full {
		out = append(out, f...)
	}
	return append(out, b.cur...)
}

// internTable shares the strings of a column with few distinct values.
// It holds at most maxInterned; later values are copied each time.
type internTable map[string]string

const maxInterned = 1024

// get returns the interned copy of s, or "" when s has none.
func (m internTable) get(s string) string { return m[s] }

// put interns s (when there is room) and returns its copy.
func (m internTable) put(s string) string {
	c := strings.Clone(s)
	if len(m) < maxInterned {
		m[c] = c
	}
	return c
}

// intern returns the shared copy of s, "" for "".
func (m internTable) intern(s string) string {
	if s == "" {
		return ""
	}
	if c := m.get(s); c != "" {
		return c
	}
	return m.put(s)
}

// parseNumberAt is parseNumber locating the field only when it fails:
// formatting the location of every field was a tenth of a read.
func parseNumberAt(t *csvTable, field, s string) (float64, error) {
	v, err := ParseDecimal(s)
	if err == nil && CheckNumber(v) == nil {
		return v, nil
	}
	return parseNumber(t.at(field), field, s)
}

// WriteScoresCSV writes rows with the header
// context,candidate,probe,score,run,wording; a missing score is an empty
// cell and scores use the shortest form that reads back to the same float.
func WriteScoresCSV(w io.Writer, rows []ScoreRow) error {
	cw := csvWriter{csv.NewWriter(w)}
	if err := cw.Write([]string{"context", "candidate", "probe", "score", "run", "wording"}); err != nil {
		return err
	}
	rec := make([]string, 6)
	for _, r := range rows {
		score := ""
		if !r.Missing {
			score = strconv.FormatFloat(r.Score, 'g', -1, 64)
		}
		rec[0], rec[1], rec[2], rec[3], rec[4], rec[5] = r.Context, r.Candidate, r.Probe, score, r.Run, r.Wording
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// csvWriter writes records that encoding/csv reads back as written. Its
// reader drops the carriage return before every line feed, inside
// quoted fields too, so a cell holding "\r\n" (which a read of "\r\r\n"
// gives) would come back as "\n": each such carriage return is written
// twice, and the reader drops one. It may rewrite rec's cells.
type csvWriter struct{ *csv.Writer }

func (w csvWriter) Write(rec []string) error {
	for i, c := range rec {
		if strings.Contains(c, "\r\n") {
			rec[i] = strings.ReplaceAll(c, "\r\n", "\r\r\n")
		}
	}
	return w.Writer.Write(rec)
}

// ReadLabelsCSV reads human reference scores: a header with at least
// context,candidate,human, then one row per candidate. A second label for
// the same context and candidate is an error naming both lines.
func ReadLabelsCSV(r io.Reader, file string) ([]Label, error) {
	t, err := openCSV(r, file, "a label file", []string{"context", "candidate", "human"})
	if err != nil {
		return nil, err
	}
	type key struct{ ctx, cand string }
	seen := map[key]int{}
	var labels blocks[Label]
	var lastCtx string
	for {
		rec, line, err := t.next()
		if err == io.EOF {
			return labels.slice(), nil
		}
		if err != nil {
			return nil, err
		}
		l := Label{Context: t.field(rec, "context"), Candidate: strings.Clone(t.field(rec, "candidate")), Line: line}
		// Labels come context by context: share the context's id, and
		// keep no line alive.
		if l.Context == lastCtx {
			l.Context = lastCtx
		} else {
			l.Context = strings.Clone(l.Context)
			lastCtx = l.Context
		}
		if l.Context == "" {
			return nil, fmt.Errorf("%s: field \"context\" is empty", t.at("context"))
		}
		if l.Candidate == "" {
			return nil, fmt.Errorf("%s: field \"candidate\" is empty", t.at("candidate"))
		}
		if l.Human, err = parseNumberAt(t, "human", t.field(rec, "human")); err != nil {
			return nil, err
		}
		k := key{l.Context, l.Candidate}
		if first, dup := seen[k]; dup {
			return nil, fmt.Errorf("%s: field \"candidate\": duplicate label for context %s candidate %s (first on line %d)", t.at("candidate"), Quote(l.Context), Quote(l.Candidate), first)
		}
		seen[k] = line
		labels.add(l)
	}
}

// WriteLabelsCSV writes human reference scores in the format ReadLabelsCSV
// reads (context,candidate,human), floats in their shortest round-tripping
// form.
func WriteLabelsCSV(w io.Writer, labels []Label) error {
	cw := csvWriter{csv.NewWriter(w)}
	if err := cw.Write([]string{"context", "candidate", "human"}); err != nil {
		return err
	}
	for _, l := range labels {
		if err := cw.Write([]string{l.Context, l.Candidate, strconv.FormatFloat(l.Human, 'g', -1, 64)}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// Labels returns the dataset's human targets as labels, in file order,
// leaving out candidates without one (NaN).
func (d *Dataset) Labels() []Label {
	n := 0
	for _, c := range d.Contexts {
		for _, k := range c.Candidates {
			if !math.IsNaN(k.Human) {
				n++
			}
		}
	}
	if n == 0 {
		return nil
	}
	ls := make([]Label, 0, n)
	for _, c := range d.Contexts {
		for _, k := range c.Candidates {
			if !math.IsNaN(k.Human) {
				ls = append(ls, Label{Context: c.ID, Candidate: k.ID, Human: k.Human})
			}
		}
	}
	return ls
}

// ScoredLabels keeps the labels of candidates that have at least one score
// row and says how many it dropped: a study whose answers cover part of a
// dataset (a screen on a sample, a run in progress) is fitted on the
// candidates it has.
func ScoredLabels(rows []ScoreRow, labels []Label) (kept []Label, dropped int) {
	type key struct{ ctx, cand string }
	scored := make(map[key]bool, len(labels))
	for _, r := range rows {
		scored[key{r.Context, r.Candidate}] = true
	}
	kept = labels[:0:0]
	for _, l := range labels {
		if scored[key{l.Context, l.Candidate}] {
			kept = append(kept, l)
		}
	}
	return kept, len(labels) - len(kept)
}

// CheckScale reports the first score row outside [lo, hi], the scale of
// the bank the scores were given on, naming file, line and probe. Missing
// scores and rubric ratings (on their criterion's own scale) are not
// checked. Scores with no bank (a reward model's logits, a 0–1 grader)
// keep their own scale: callers check only when a bank is named.
func CheckScale(rows []ScoreRow, file string, lo, hi float64) error {
	for _, r := range rows {
		if r.Missing || strings.HasPrefix(r.Probe, "rubric:") {
			continue
		}
		if r.Score < lo || r.Score > hi {
			return fmt.Errorf("%s:%d: field \"score\": %v is outside the bank's scale %v–%v (probe %s)", file, r.Line, r.Score, lo, hi, Quote(r.Probe))
		}
	}
	return nil
}
