package calib

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"slices"
	"strings"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/model"
)

// CalibratorSchema is the version of the calibrator file format this
// prism writes and the newest it reads (docs/calibrator.md).
const CalibratorSchema = 1

// CalibratorKind opens every calibrator file, so that another JSON
// document is not mistaken for one.
const CalibratorKind = "prism-calibrator"

// Centering modes of a calibrator (docs/protocol.md §3).
const (
	CenterWithinContext = "within_context"
	CenterGlobal        = "global"
)

// MaxCalibratorFile bounds the size of a calibrator file read from disk:
// the bank snapshot and the training ids of 100,000 candidates fit well
// within it.
const MaxCalibratorFile = 64 << 20

// gammaRule states how γ was chosen, written into every file.
const gammaRule = "inner cross-validation on all training units in π order, split into `folds` contiguous parts (numpy array_split); the highest mean out-of-inner-fold metric wins, exact ties go to the largest γ"

// Calibrator is a fitted correction that scores new candidates from their
// baseline and probe scores alone (paper §2.1, eq. 3; docs/calibrator.md):
//
//	ŷ = α s0 − Σc J̃c βc                       (prism, alpha_prism)
//	ŷ = s0 − Σk Õk δk                         (half)
//	ŷ = s0 − Σk (Õk δk − H̃k ½δk²)             (taylor)
//
// where J̃, Õ and H̃ are centered within each scored context (or, in
// global mode, with the training column means), after missing score cells
// are filled with the training means. It is the JSON document of
// `prism fit --save`; its fields are a documented, versioned format.
type Calibrator struct {
	Kind         string `json:"kind"`          // CalibratorKind
	Schema       int    `json:"schema"`        // CalibratorSchema when written
	PrismVersion string `json:"prism_version"` // the prism that wrote it

	Method    string `json:"method"`    // prism, alpha_prism, half or taylor
	Metric    string `json:"metric"`    // spearman or pairwise: selected γ, and the transfer check's metric
	Centering string `json:"centering"` // within_context or global
	// Target states the target scaling of the fit (docs/protocol.md §3).
	Target string `json:"target"`

	Columns      []string  `json:"columns"`          // Jacobian columns in β order
	Attributes   []string  `json:"attributes"`       // attributes in δ order
	ScoreColumns []string  `json:"score_columns"`    // judge conditions used: baseline, then the probes
	Means        []float64 `json:"imputation_means"` // per score column: its training mean, for missing cells
	Alpha        float64   `json:"alpha"`            // 1 except for alpha_prism
	Beta         []float64 `json:"beta,omitempty"`   // prism, alpha_prism: one per column
	Delta        []float64 `json:"delta,omitempty"`  // half, taylor: one per attribute
	// GlobalCentering holds the training means the global mode centers
	// new candidates with (nil within contexts).
	GlobalCentering *GlobalCentering `json:"global_centering,omitempty"`

	Gamma      GammaChoice  `json:"gamma"`
	HumanScale *MonotoneMap `json:"human_scale"` // nil when the training data gives no increasing map
	// HumanScaleNote says why HumanScale is nil.
	HumanScaleNote string `json:"human_scale_note,omitempty"`

	Training Training       `json:"training"`
	CV       CVEstimate     `json:"cv"`
	Bank     *BankSnapshot  `json:"bank"`  // nil: fitted from CSV files without a bank
	Judge    *JudgeSnapshot `json:"judge"` // nil: fitted from CSV files without a judge configuration
	// Policy, when set (prism budget --save), is the adaptive probing
	// policy prism score --budget follows (docs/budget.md); files without
	// one read and hash as before.
	Policy *Policy `json:"policy,omitempty"`

	// Checksum is "sha256:" and the hex SHA-256 of the document's compact
	// JSON encoding with Checksum empty (docs/calibrator.md).
	Checksum string `json:"checksum"`
}

// GlobalCentering is the training means of J, O and H (docs/protocol.md
// §2–3) that global mode subtracts.
type GlobalCentering struct {
	J []float64 `json:"j"` // per column
	O []float64 `json:"o"` // per attribute
	H []float64 `json:"h"` // per attribute
}

// GammaChoice is the penalty of the final fit and how it was chosen.
type GammaChoice struct {
	Value float64   `json:"value"`
	Grid  []float64 `json:"grid"`
	CV    []float64 `json:"cv"` // inner CV score per grid γ
	Folds int       `json:"folds"`
	Rule  string    `json:"rule"`
	Seed  uint64    `json:"seed"` // seeds π when no order was given, and the bootstrap
	// Order is π: the training contexts (global mode: "context/candidate"
	// units) in the order the folds split them.
	Order []string `json:"order"`
}

// Training summarises the labelled data of the fit.
type Training struct {
	// Study names the workspace study fitted (nil for scores from files):
	// dataset, judge and configuration, bank, scale, runs and what went in.
	Study      *model.Study   `json:"study,omitempty"`
	Dataset    string         `json:"dataset,omitempty"` // workspace dataset, when fitted from one
	Source     string         `json:"source"`            // where the scores and labels came from
	Contexts   int            `json:"contexts"`
	Candidates int            `json:"candidates"`
	Imputed    map[string]int `json:"imputed"` // score column → cells filled with its mean
	// IDs lists, per training context, its candidate ids (sorted): scoring
	// them again is in-sample and is said so.
	IDs map[string][]string `json:"ids"`
	// HumanMin and HumanMax bound the training human scores.
	HumanMin float64 `json:"human_min"`
	HumanMax float64 `json:"human_max"`
}

// CVEstimate is the nested cross-validation estimate of the method's
// agreement with humans (docs/protocol.md §5–6), from the fit's report.
type CVEstimate struct {
	Metric    string   `json:"metric"`
	Folds     int      `json:"folds"`
	Bootstrap int      `json:"bootstrap"`
	Seed      uint64   `json:"seed"`
	Vanilla   Estimate `json:"vanilla"`
	Method    Estimate `json:"method"`
	Diff      Estimate `json:"diff_vs_vanilla"`
}

// Estimate is a mean with its bootstrap percentile 95% interval.
type Estimate struct {
	Mean float64    `json:"mean"`
	CI   [2]float64 `json:"ci"`
}

// BankSnapshot is the probe bank that produced the training scores: its
// content hash and full TOML text.
type BankSnapshot struct {
	Name   string `json:"name"`
	Hash   string `json:"hash"`
	Source string `json:"source,omitempty"` // "builtin:quality", a file, …
	Task   string `json:"task,omitempty"`   // the task prompt of the bank the judge was given
	TOML   string `json:"toml"`
}

// JudgeSnapshot is the judge configuration that produced the training
// scores. It never holds a key or URL credentials.
type JudgeSnapshot struct {
	Name           string         `json:"name"` // the stored judge name
	Backend        string         `json:"backend"`
	Model          string         `json:"model,omitempty"`
	BaseURL        string         `json:"base_url,omitempty"`
	Mode           string         `json:"mode,omitempty"`
	Scale          string         `json:"scale,omitempty"` // "MIN–MAX" of the task
	Temperature    *float64       `json:"temperature,omitempty"`
	TopP           *float64       `json:"top_p,omitempty"`
	MaxTokens      int            `json:"max_tokens,omitempty"`
	ResponseFormat string         `json:"response_format,omitempty"`
	Runs           int            `json:"runs"`   // runs (repeats) per condition in the training scores
	Orders         int            `json:"orders"` // presentation orders per candidate (1: pointwise)
	Params         map[string]any `json:"params,omitempty"`
}

// MethodOf returns the Method named name (Method.String).
func MethodOf(name string) (Method, bool) {
	for m := Vanilla + 1; m < numMethods; m++ {
		if m.String() == name {
			return m, true
		}
	}
	return 0, false
}

// StripURL returns a base URL without user information, query or
// fragment, where credentials hide.
func StripURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || s == "" {
		return ""
	}
	u.User, u.RawQuery, u.Fragment, u.ForceQuery = nil, "", "", false
	return u.String()
}

// Marshal writes the calibrator as indented JSON with its checksum set.
func (c *Calibrator) Marshal() ([]byte, error) {
	if err := c.check(""); err != nil {
		return nil, err
	}
	c.Kind, c.Schema = CalibratorKind, CalibratorSchema
	if c.Judge != nil {
		c.Judge.BaseURL = StripURL(c.Judge.BaseURL)
	}
	sum, err := c.sum()
	if err != nil {
		return nil, err
	}
	c.Checksum = sum
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(c); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// sum is the checksum of c: the SHA-256 of its compact JSON with Checksum
// empty.
func (c *Calibrator) sum() (string, error) {
	cp := *c
	cp.Checksum = ""
	data, err := json.Marshal(&cp)
	if err != nil {
		return "", fmt.Errorf("calibrator: %w", err)
	}
	h := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(h[:]), nil
}

// ReadCalibratorFile opens path (a regular file or pipe of at most
// MaxCalibratorFile bytes) and reads it with ReadCalibrator.
func ReadCalibratorFile(path string) (*Calibrator, error) {
	f, err := model.OpenInput(path, MaxCalibratorFile, "a calibrator (JSON)")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadCalibrator(f, path)
}

// ReadCalibrator reads and checks a calibrator file: its kind and schema
// (a newer schema is refused), unknown fields, the checksum (a file edited
// by hand or truncated is refused), the embedded bank (its text must hash
// to the recorded hash) and the consistency of every array. Errors name
// file and field.
func ReadCalibrator(r io.Reader, file string) (*Calibrator, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxCalibratorFile+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(data) > MaxCalibratorFile {
		return nil, &model.SizeError{File: file, Limit: MaxCalibratorFile, What: "a calibrator (JSON)"}
	}
	// The document is decoded once; its head is read apart only to say
	// what is wrong with one that does not decode or is not of this
	// prism (reading the head first was a third of reading a calibrator).
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var c Calibrator
	derr := dec.Decode(&c)
	if derr == nil && dec.More() {
		derr = fmt.Errorf("%s: data after the calibrator document", file)
	} else if derr != nil {
		derr = jsonError(file, data, derr)
	}
	if derr != nil || c.Kind != CalibratorKind || c.Schema < 1 || c.Schema > CalibratorSchema {
		if err := checkHead(file, data); err != nil {
			return nil, err
		}
		if derr != nil {
			return nil, derr
		}
	}
	sum, err := c.sum()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if c.Checksum != sum {
		return nil, fmt.Errorf("%s: field \"checksum\": the content does not match its checksum (%s recorded, %s computed): the file was edited or damaged after prism wrote it; fit again with prism fit --save", file, clip(c.Checksum), clip(sum))
	}
	if err := c.check(file); err != nil {
		return nil, err
	}
	return &c, nil
}

// checkHead refuses a document that is not a calibrator this prism
// reads: its kind and schema.
func checkHead(file string, data []byte) error {
	var head struct {
		Kind   string          `json:"kind"`
		Schema json.RawMessage `json:"schema"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return jsonError(file, data, err)
	}
	if head.Kind != CalibratorKind {
		return fmt.Errorf("%s: field \"kind\": %q, want %q: not a prism calibrator (write one with prism fit --save)", file, head.Kind, CalibratorKind)
	}
	var schema int
	if err := json.Unmarshal(head.Schema, &schema); err != nil || schema < 1 {
		return fmt.Errorf("%s: field \"schema\": %s is not a schema version", file, string(head.Schema))
	}
	if schema > CalibratorSchema {
		return fmt.Errorf("%s: field \"schema\": the calibrator has schema %d, written by a newer prism; this prism reads schema %d or older (upgrade prism)", file, schema, CalibratorSchema)
	}
	return nil
}

func clip(s string) string {
	if len(s) > 19 {
		return s[:19] + "…"
	}
	return s
}

// jsonError names the line and column of a JSON syntax or type error.
func jsonError(file string, data []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	off := int64(-1)
	switch {
	case strings.Contains(err.Error(), "unexpected end of JSON input"):
		return fmt.Errorf("%s: the calibrator ends early at byte %d (truncated file?)", file, len(data))
	case errors.As(err, &se):
		if se.Offset >= int64(len(bytes.TrimRight(data, " \t\r\n"))) {
			// The document stops before it closes: cut short.
			return fmt.Errorf("%s: the calibrator ends early at byte %d (truncated file?): %v", file, len(data), err)
		}
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
		if te.Field != "" {
			err = fmt.Errorf("field %q: %v", te.Field, err)
		}
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return fmt.Errorf("%s: the calibrator ends early (truncated file?)", file)
	}
	if off >= 0 {
		line, col := 1, 1
		for _, b := range data[:min(int(off), len(data))] {
			if b == '\n' {
				line++
				col = 1
			} else {
				col++
			}
		}
		return fmt.Errorf("%s:%d:%d: %v", file, line, col, err)
	}
	return fmt.Errorf("%s: %v", file, err)
}

// check validates the fields a calibrator needs to score; file prefixes
// the errors ("calibrator" when empty).
func (c *Calibrator) check(file string) error {
	if file == "" {
		file = "calibrator"
	}
	bad := func(field, format string, args ...any) error {
		return fmt.Errorf("%s: field %q: %s", file, field, fmt.Sprintf(format, args...))
	}
	m, ok := MethodOf(c.Method)
	if !ok {
		return bad("method", "%q: want prism, alpha_prism, half or taylor", c.Method)
	}
	if c.Metric != model.MetricSpearman && c.Metric != model.MetricPairwise {
		return bad("metric", "%q: want spearman or pairwise", c.Metric)
	}
	if c.Centering != CenterWithinContext && c.Centering != CenterGlobal {
		return bad("centering", "%q: want %s or %s", c.Centering, CenterWithinContext, CenterGlobal)
	}
	if err := c.checkColumns(bad); err != nil {
		return err
	}
	if err := c.checkFit(bad, m); err != nil {
		return err
	}
	if err := c.checkCentering(bad); err != nil {
		return err
	}
	if !(c.Gamma.Value > 0) || math.IsInf(c.Gamma.Value, 0) {
		return bad("gamma.value", "%v, want a finite γ > 0", c.Gamma.Value)
	}
	if h := c.HumanScale; h != nil {
		if err := h.check(); err != nil {
			return bad("human_scale", "%v", err)
		}
	}
	if err := c.checkBank(bad, file); err != nil {
		return err
	}
	if c.Policy != nil {
		return c.Policy.check(c, bad)
	}
	return nil
}

// badField is the error of a calibrator file's field.
type badField = func(field, format string, args ...any) error

// finiteField fails when a value of field is not a finite number.
func finiteField(bad badField, field string, xs ...float64) error {
	for i, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return bad(field, "value %d is %v, want a finite number", i+1, x)
		}
	}
	return nil
}

// checkColumns checks the columns (attribute pairs, then context probes),
// the score columns and their imputation means.
func (c *Calibrator) checkColumns(bad badField) error {
	K := len(c.Attributes)
	if len(c.Columns) < 2*K {
		return bad("columns", "%d columns for %d attributes", len(c.Columns), K)
	}
	for k, a := range c.Attributes {
		if c.Columns[2*k] != a+":+" || c.Columns[2*k+1] != a+":-" {
			return bad("columns", "columns %d and %d are %q and %q, want %q and %q", 2*k+1, 2*k+2, c.Columns[2*k], c.Columns[2*k+1], a+":+", a+":-")
		}
	}
	for _, col := range c.Columns[2*K:] {
		if kind, _, _, err := model.ParseProbe(col); err != nil || kind != model.ProbeContext {
			return bad("columns", "%q after the attribute columns: want a context probe ctx:NAME", col)
		}
	}
	if len(c.Columns) == 0 {
		return bad("columns", "empty")
	}
	if !slices.Equal(c.ScoreColumns, c.scoreColumns()) {
		return bad("score_columns", "%v, want baseline then the columns the method reads %v", c.ScoreColumns, c.scoreColumns())
	}
	if len(c.Means) != len(c.ScoreColumns) {
		return bad("imputation_means", "%d values for %d score columns", len(c.Means), len(c.ScoreColumns))
	}
	return finiteField(bad, "imputation_means", c.Means...)
}

// checkFit checks α and the coefficients of method m.
func (c *Calibrator) checkFit(bad badField, m Method) error {
	K := len(c.Attributes)
	finite := func(field string, xs ...float64) error { return finiteField(bad, field, xs...) }
	if err := finite("alpha", c.Alpha); err != nil {
		return err
	}
	switch m {
	case PRISM, AlphaPRISM:
		if len(c.Beta) != len(c.Columns) || c.Delta != nil {
			return bad("beta", "%d coefficients for %d columns (and no delta)", len(c.Beta), len(c.Columns))
		}
		if err := finite("beta", c.Beta...); err != nil {
			return err
		}
		if m == PRISM && c.Alpha != 1 {
			return bad("alpha", "%v, want 1 for prism", c.Alpha)
		}
	default:
		if len(c.Delta) != K || c.Beta != nil || K == 0 {
			return bad("delta", "%d coefficients for %d attributes (and no beta)", len(c.Delta), K)
		}
		if err := finite("delta", c.Delta...); err != nil {
			return err
		}
		if c.Alpha != 1 {
			return bad("alpha", "%v, want 1 for %s", c.Alpha, c.Method)
		}
	}
	return nil
}

// checkCentering checks the global centering's means, present exactly
// in global mode.
func (c *Calibrator) checkCentering(bad badField) error {
	K := len(c.Attributes)
	if c.Centering == CenterGlobal {
		g := c.GlobalCentering
		if g == nil || len(g.J) != len(c.Columns) || len(g.O) != K || len(g.H) != K {
			return bad("global_centering", "want %d column means and %d attribute means of O and H", len(c.Columns), K)
		}
		if err := finiteField(bad, "global_centering", slices.Concat(g.J, g.O, g.H)...); err != nil {
			return err
		}
	} else if c.GlobalCentering != nil {
		return bad("global_centering", "present in %s mode", c.Centering)
	}
	return nil
}

// checkBank checks the embedded bank: it parses, hashes as recorded and
// holds every column's probe.
func (c *Calibrator) checkBank(bad badField, file string) error {
	b := c.Bank
	if b == nil {
		return nil
	}
	bank, err := banks.Parse([]byte(b.TOML), file+": bank.toml")
	if err != nil {
		return bad("bank.toml", "the embedded bank does not parse: %v", err)
	}
	if h := bank.Hash(); h != b.Hash {
		return bad("bank.hash", "the embedded bank hashes to %s, not the recorded %s: the bank text was edited", clip(h), clip(b.Hash))
	}
	probes := map[string]bool{}
	for _, p := range bank.Probes() {
		probes[p] = true
	}
	for _, col := range c.Columns {
		if !probes[col] {
			return bad("columns", "%q is not a probe of the embedded bank %s", col, b.Name)
		}
	}
	return nil
}

// scoreColumns is baseline, then the columns the method reads: every
// column for prism and alpha_prism, the attribute columns for half and
// taylor (context probes have no half-difference).
func (c *Calibrator) scoreColumns() []string {
	cols := c.Columns
	if c.Method == Half.String() || c.Method == Taylor.String() {
		cols = cols[:2*len(c.Attributes)]
	}
	return append([]string{model.ProbeBaseline}, cols...)
}

// Probes are the judge conditions the calibrator reads: the baseline and
// its probe columns. Scoring new data needs exactly these.
func (c *Calibrator) Probes() []string { return slices.Clone(c.ScoreColumns) }

// ParsedBank returns the embedded bank (nil when the calibrator has none).
func (c *Calibrator) ParsedBank() (*banks.Bank, error) {
	if c.Bank == nil {
		return nil, nil
	}
	return banks.Parse([]byte(c.Bank.TOML), "calibrator bank")
}
