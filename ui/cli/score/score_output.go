package score

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"
	"unicode/utf8"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

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

// writeNotes writes the notes one a line: the CSV's sidecar (-o
// FILE.notes.txt) or, when the rows go to standard output, standard error.
// The CSV itself is plain, its header first, so that any CSV reader
// (Python's csv, spreadsheets) reads it without a comment option.
func (d *scoreDoc) writeNotes(w io.Writer) error {
	for _, n := range d.notes() {
		if _, err := fmt.Fprintln(w, strings.ReplaceAll(n, "\n", " ")); err != nil {
			return err
		}
	}
	return nil
}

// notesFile is the sidecar beside a CSV -o FILE that holds its notes.
func notesFile(out string) string { return out + ".notes.txt" }

func (d *scoreDoc) writeCSV(w io.Writer) error {
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
	// Rows are appended to buffers, their numbers without making strings
	// (fmtFloat's strings were most of the writing); a row whose ids need
	// quoting goes through encoding/csv, which quotes them. Both write
	// what encoding/csv writes: numbers never need quotes.
	return writeLines(w, len(r.Rows), func(b []byte, lo, hi int) ([]byte, error) {
		var rec []string
		for i := lo; i < hi; i++ {
			row := &r.Rows[i]
			if !csvNeedsQuotes(row.Context) && !csvNeedsQuotes(row.Candidate) {
				b = appendScoreRecord(b, r, row)
				continue
			}
			rec = scoreRecord(rec[:0], r, row)
			buf := bytes.NewBuffer(b)
			cw := csv.NewWriter(buf)
			if err := cw.Write(rec); err != nil {
				return nil, err
			}
			cw.Flush()
			if err := cw.Error(); err != nil {
				return nil, err
			}
			b = buf.Bytes()
		}
		return b, nil
	})
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
	num := func(x float64) { b = appendNumber(append(b, ','), x) }
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

// appendNumber appends strconv's shortest 'g' form of x: an integer
// below 10⁶ in magnitude (ranks, most baselines) as AppendInt writes it,
// which is that form and a fifth of the time.
func appendNumber(b []byte, x float64) []byte {
	if x == math.Trunc(x) && math.Abs(x) < 1e6 && (x != 0 || !math.Signbit(x)) {
		return strconv.AppendInt(b, int64(x), 10)
	}
	return strconv.AppendFloat(b, x, 'g', -1, 64)
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
	return writeLines(w, len(r.Rows), func(b []byte, lo, hi int) ([]byte, error) {
		for i := lo; i < hi; i++ {
			b = appendScoreJSON(b, r, &r.Rows[i])
		}
		return b, nil
	})
}

// appendScoreJSON appends row's line of the JSON Lines output.
func appendScoreJSON(b []byte, r *calib.Scored, row *calib.ScoredRow) []byte {
	b = append(b, `{"context":`...)
	b = appendJSONString(b, row.Context)
	b = append(b, `,"candidate":`...)
	b = appendJSONString(b, row.Candidate)
	b = append(b, `,"baseline":`...)
	b = appendNumber(b, row.Baseline)
	b = append(b, `,"corrected":`...)
	b = strconv.AppendFloat(b, row.Corrected, 'g', -1, 64)
	if r.HumanScale {
		b = append(b, `,"human_scale":`...)
		b = strconv.AppendFloat(b, row.Scaled, 'g', -1, 64)
	}
	b = append(b, `,"rank_before":`...)
	b = appendNumber(b, row.RankBefore)
	b = append(b, `,"rank_after":`...)
	b = appendNumber(b, row.RankAfter)
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
	return append(b, "}}\n"...)
}

func appendJSONString(b []byte, s string) []byte {
	q, _ := json.Marshal(s)
	return append(b, q...)
}

// summary is what prism score says about the scored candidates.
func (d *scoreDoc) summary(w io.Writer) {
	r := d.res
	clikit.PrintStudy(w, d.study)
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
