package calib

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/prism-eval/prism/calib/internal/calibtest"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/model"
)

// fitForCalibrator builds the design and report a calibrator is made from.
func fitForCalibrator(t testing.TB, rows []model.ScoreRow, labels []model.Label, opts Options) (*Design, *Report) {
	t.Helper()
	d, _, err := BuildDesign(rows, labels, BuildOptions{Global: opts.Global})
	if err != nil {
		t.Fatal(err)
	}
	rep, _, err := FitDesign(context.Background(), d, opts)
	if err != nil {
		t.Fatal(err)
	}
	return d, rep
}

func newCal(t testing.TB, d *Design, rep *Report, opts Options, m Method) *Calibrator {
	t.Helper()
	c, err := NewCalibrator(context.Background(), d, rep, opts, m)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestCalibratorCrossCheck compares the final fit of NewCalibrator with the
// independent pure-Python reference (testdata/crosscheck/reference.py, its
// "final" and "means" entries): γ chosen by the inner CV on every context
// in π order must be identical, the inner CV scores, α and coefficients
// must agree to 1e-12, and Apply on the training scores must reproduce the
// reference's in-sample predictions to 1e-12.
func TestCalibratorCrossCheck(t *testing.T) {
	rows, labels, order, open := crossCheckInput(t)
	var want struct {
		Means map[string]float64
		Final map[string]struct {
			Gamma, Alpha float64
			Coef, CV     []float64
			Pred         map[string]float64
		}
	}
	if err := json.NewDecoder(open("expected.json")).Decode(&want); err != nil {
		t.Fatal(err)
	}
	opts := DefaultOptions()
	opts.Order = order
	opts.Bootstrap = 50
	d, rep := fitForCalibrator(t, rows, labels, opts)
	const tol = 1e-12
	for _, m := range []Method{PRISM, AlphaPRISM, Half} {
		w := want.Final[m.String()]
		c := newCal(t, d, rep, opts, m)
		if c.Gamma.Value != w.Gamma {
			t.Errorf("%v: γ %v, reference %v (cv %v vs %v)", m, c.Gamma.Value, w.Gamma, c.Gamma.CV, w.CV)
		}
		calibtest.AssertClose(t, m.String()+" cv", c.Gamma.CV, w.CV, tol)
		if math.Abs(c.Alpha-w.Alpha) > tol {
			t.Errorf("%v: α %v, reference %v", m, c.Alpha, w.Alpha)
		}
		coef := c.Beta
		if m == Half {
			coef = c.Delta
		}
		calibtest.AssertClose(t, m.String()+" coefficients", coef, w.Coef, tol)
		for i, col := range c.ScoreColumns {
			if math.Abs(c.Means[i]-want.Means[col]) > tol {
				t.Errorf("%v: mean of %s %v, reference %v", m, col, c.Means[i], want.Means[col])
			}
		}
		s, err := c.Apply(rows, labels, ApplyOptions{Bootstrap: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Rows) != len(w.Pred) {
			t.Fatalf("%v: %d scored rows, reference %d", m, len(s.Rows), len(w.Pred))
		}
		for _, r := range s.Rows {
			ref, ok := w.Pred[r.Context+"/"+r.Candidate]
			if !ok || math.Abs(r.Corrected-ref) > tol {
				t.Errorf("%v %s/%s: corrected %.15g, reference %.15g", m, r.Context, r.Candidate, r.Corrected, ref)
			}
		}
		if s.InSample != len(s.Rows) {
			t.Errorf("%v: %d of %d training candidates detected in-sample", m, s.InSample, len(s.Rows))
		}
	}
}

// TestApplyHandComputed checks one context worked by hand (docs/calibrator.md):
// β = (0.5, 0.25) on one attribute, s0 = 5, 6, 7, s+ = 6, 6, 9, s− = 4, 6, 6
// (the last one missing and filled with its training mean 6):
//
//	Δ+ = 1, 0, 2 → J̃+ = 0, −1, 1;  Δ− = 1, 0, 1 → J̃− = 1/3, −2/3, 1/3
//	ŷ = s0 − 0.5 J̃+ − 0.25 J̃− = 59/12, 20/3, 77/12
func TestApplyHandComputed(t *testing.T) {
	c := &Calibrator{Method: "prism", Metric: "spearman", Centering: CenterWithinContext,
		Columns: []string{"a:+", "a:-"}, Attributes: []string{"a"}, ScoreColumns: []string{"baseline", "a:+", "a:-"},
		Means: []float64{6, 7, 6}, Alpha: 1, Beta: []float64{0.5, 0.25}, Gamma: GammaChoice{Value: 1}}
	row := func(cand, probe string, s float64) model.ScoreRow {
		return model.ScoreRow{Context: "g", Candidate: cand, Probe: probe, Score: s}
	}
	rows := []model.ScoreRow{
		row("x", "baseline", 5), row("x", "a:+", 6), row("x", "a:-", 4),
		row("y", "baseline", 6), row("y", "a:+", 6), row("y", "a:-", 6), row("y", "neutral:calm", 6),
		row("z", "baseline", 7), row("z", "a:+", 9),
	}
	s, err := c.Apply(rows, nil, ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		cand              string
		corr, term        float64
		before, after     float64
		imputed           int
		baseline, scaled0 float64
	}{
		{"x", 59.0 / 12, 1.0 / 12, 3, 3, 0, 5, 0},
		{"y", 20.0 / 3, -2.0 / 3, 2, 1, 0, 6, 0},
		{"z", 77.0 / 12, 7.0 / 12, 1, 2, 1, 7, 0},
	}
	for i, w := range want {
		r := s.Rows[i]
		if r.Candidate != w.cand || math.Abs(r.Corrected-w.corr) > 1e-14 || math.Abs(r.Terms[0]-w.term) > 1e-14 ||
			r.RankBefore != w.before || r.RankAfter != w.after || r.Imputed != w.imputed || r.Baseline != w.baseline {
			t.Errorf("row %d: %+v, want %+v", i, r, w)
		}
		if !math.IsNaN(r.Human) || !math.IsNaN(r.Scaled) {
			t.Errorf("row %d: human %v scaled %v, want NaN (no labels, no map asked)", i, r.Human, r.Scaled)
		}
	}
	if s.Imputed["a:-"] != 1 || s.ImputedCandidates != 1 || s.IgnoredRows != 1 || s.Transfer != nil || s.InSample != 0 {
		t.Errorf("summary: imputed %v (%d candidates), ignored %d, transfer %v, in-sample %d", s.Imputed, s.ImputedCandidates, s.IgnoredRows, s.Transfer, s.InSample)
	}
	// Ties share the mean rank.
	rows[7].Score = 6 // z's baseline = y's
	s, err = c.Apply(rows, nil, ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Rows[1].RankBefore != 1.5 || s.Rows[2].RankBefore != 1.5 {
		t.Errorf("tied baselines ranked %v, %v; want 1.5, 1.5", s.Rows[1].RankBefore, s.Rows[2].RankBefore)
	}
}

// TestApplyTermsAddUp checks Corrected = α s0 − Σ terms for every method,
// and that terms name the units (attributes, then context probes).
func TestApplyTermsAddUp(t *testing.T) {
	rows, labels := calibtest.Synth(30, 6, 3, 11)
	for i := range rows { // a context probe column
		if rows[i].Probe == "a02:+" {
			rows = append(rows, model.ScoreRow{Context: rows[i].Context, Candidate: rows[i].Candidate, Probe: "ctx:expert", Score: rows[i].Score - 0.1})
		}
	}
	opts := DefaultOptions()
	opts.Bootstrap, opts.Taylor = 20, true
	d, rep := fitForCalibrator(t, rows, labels, opts)
	for _, m := range []Method{PRISM, AlphaPRISM, Half, Taylor} {
		c := newCal(t, d, rep, opts, m)
		s, err := c.Apply(rows, nil, ApplyOptions{})
		if err != nil {
			t.Fatal(err)
		}
		wantUnits := []string{"a00", "a01", "a02"}
		if m == PRISM || m == AlphaPRISM {
			wantUnits = append(wantUnits, "ctx:expert")
		}
		if !reflect.DeepEqual(s.Units, wantUnits) {
			t.Errorf("%v: units %v, want %v", m, s.Units, wantUnits)
		}
		if m == Half || m == Taylor {
			if strings.Contains(strings.Join(c.ScoreColumns, ","), "ctx:") {
				t.Errorf("%v reads score columns %v; it has no use for context probes", m, c.ScoreColumns)
			}
		}
		for _, r := range s.Rows {
			sum := 0.0
			for _, x := range r.Terms {
				sum += x
			}
			if got := c.Alpha*r.Baseline - sum; math.Abs(got-r.Corrected) > 1e-12*(1+math.Abs(r.Corrected)) {
				t.Fatalf("%v %s/%s: α s0 − Σ terms = %v, corrected %v", m, r.Context, r.Candidate, got, r.Corrected)
			}
		}
	}
}

// TestTransferOnTrainingDataIsFitVanilla checks that applied to its own
// training data a calibrator's transfer baseline equals the fit's Vanilla
// mean exactly (same contexts, same imputation, same summation order), in
// every metric and mode, and that every candidate is detected in-sample.
func TestTransferOnTrainingDataIsFitVanilla(t *testing.T) {
	rows, labels := calibtest.Synth(40, 5, 3, 5)
	rows[3].Missing = true // an imputed cell
	// A context with one labelled candidate is skipped by the fit: drop
	// the other labels of c000.
	var labs []model.Label
	for _, l := range labels {
		if l.Context != "c000" || l.Candidate == "m00" {
			labs = append(labs, l)
		}
	}
	for _, tc := range []struct {
		name   string
		metric string
		global bool
	}{{"spearman", model.MetricSpearman, false}, {"pairwise", model.MetricPairwise, false}, {"global", model.MetricSpearman, true}} {
		t.Run(tc.name, func(t *testing.T) {
			opts := DefaultOptions()
			opts.Bootstrap, opts.Metric, opts.Global = 200, tc.metric, tc.global
			d, rep := fitForCalibrator(t, rows, labs, opts)
			c := newCal(t, d, rep, opts, AlphaPRISM)
			s, err := c.Apply(rows, labs, ApplyOptions{})
			if err != nil {
				t.Fatal(err)
			}
			tr := s.Transfer
			if tr == nil {
				t.Fatal("no transfer check")
			}
			if tr.Baseline.Mean != rep.Methods.Vanilla.Mean || tr.Baseline.CI != rep.Methods.Vanilla.CI {
				t.Errorf("transfer baseline %v %v, fit Vanilla %v %v", tr.Baseline.Mean, tr.Baseline.CI, rep.Methods.Vanilla.Mean, rep.Methods.Vanilla.CI)
			}
			if tr.InSample != tr.Candidates || tr.Candidates != d.Rows() {
				t.Errorf("in-sample %d of %d labelled candidates; the fit had %d", tr.InSample, tr.Candidates, d.Rows())
			}
			if !(tr.Corrected.Mean > tr.Baseline.Mean) {
				t.Errorf("in-sample corrected %v not above baseline %v on data built to reward the correction", tr.Corrected.Mean, tr.Baseline.Mean)
			}
			if tc.global && c.GlobalCentering == nil {
				t.Error("global calibrator without centering means")
			}
		})
	}
}

// TestHumanScaleKeepsRanks checks that the human-scale map changes no
// within-context order: ranks and agreement of the mapped scores equal
// those of the corrected scores, and the mapped training scores lie in the
// human range.
func TestHumanScaleKeepsRanks(t *testing.T) {
	rows, labels := calibtest.Synth(60, 8, 4, 9)
	opts := DefaultOptions()
	opts.Bootstrap = 50
	d, rep := fitForCalibrator(t, rows, labels, opts)
	c := newCal(t, d, rep, opts, PRISM)
	if c.HumanScale == nil {
		t.Fatalf("no human-scale map: %s", c.HumanScaleNote)
	}
	s, err := c.Apply(rows, labels, ApplyOptions{HumanScale: true})
	if err != nil {
		t.Fatal(err)
	}
	if s.Extrapolated != 0 {
		t.Errorf("%d training candidates extrapolated", s.Extrapolated)
	}
	for g := 0; g < len(s.Rows); g += 8 {
		rs := s.Rows[g : g+8]
		corr, scaled, human := make([]float64, 8), make([]float64, 8), make([]float64, 8)
		for i, r := range rs {
			corr[i], scaled[i], human[i] = r.Corrected, r.Scaled, r.Human
			if r.Scaled < c.Training.HumanMin || r.Scaled > c.Training.HumanMax {
				t.Errorf("%s/%s: %v outside the human range [%v, %v]", r.Context, r.Candidate, r.Scaled, c.Training.HumanMin, c.Training.HumanMax)
			}
		}
		if a, b := Spearman(corr, human), Spearman(scaled, human); a != b {
			t.Errorf("context %s: Spearman %v corrected, %v mapped", rs[0].Context, a, b)
		}
		rc, rsc, idx := make([]float64, 8), make([]float64, 8), make([]int, 8)
		MidRanks(rc, corr, idx)
		MidRanks(rsc, scaled, idx)
		if !reflect.DeepEqual(rc, rsc) {
			t.Errorf("context %s: ranks %v corrected, %v mapped", rs[0].Context, rc, rsc)
		}
	}
}

// bankCalibrator is a calibrator on two attributes of the built-in answer
// bank, with that bank embedded.
func bankCalibrator(t testing.TB) (*Calibrator, []model.ScoreRow, []model.Label) {
	t.Helper()
	rows, labels := calibtest.Synth(20, 5, 2, 3)
	for i := range rows {
		rows[i].Probe = strings.NewReplacer("a00", "length", "a01", "steps").Replace(rows[i].Probe)
	}
	opts := DefaultOptions()
	opts.Bootstrap = 20
	d, rep := fitForCalibrator(t, rows, labels, opts)
	c := newCal(t, d, rep, opts, PRISM)
	b, err := banks.Builtin("answer")
	if err != nil {
		t.Fatal(err)
	}
	text, err := b.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	c.Bank = &BankSnapshot{Name: b.Name, Hash: b.Hash(), Source: "builtin:answer", TOML: string(text)}
	temp := 0.0
	c.Judge = &JudgeSnapshot{Name: "m", Backend: "openai", Model: "m", BaseURL: "https://user:pw@example.com/v1?key=sk-secret", Temperature: &temp, Runs: 1, Orders: 1}
	c.PrismVersion = "test"
	return c, rows, labels
}

// TestCalibratorFile checks the file format: a written file reads back
// equal, two fits of the same inputs write the same bytes, URL credentials
// never reach the file, and every kind of damage is refused naming the
// file and field.
func TestCalibratorFile(t *testing.T) {
	c, _, _ := bankCalibrator(t)
	data, err := c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"pw", "sk-secret", "user:"} {
		if bytes.Contains(data, []byte(secret)) {
			t.Errorf("the file holds %q from the base URL", secret)
		}
	}
	got, err := ReadCalibrator(bytes.NewReader(data), "cal.json")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, c) {
		t.Errorf("read back differs:\n%+v\n%+v", got, c)
	}
	c2, _, _ := bankCalibrator(t)
	data2, err := c2.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, data2) {
		t.Error("two fits of the same inputs wrote different files")
	}

	replace := func(old, new string) []byte {
		if !bytes.Contains(data, []byte(old)) {
			t.Fatalf("the file has no %q", old)
		}
		return bytes.Replace(data, []byte(old), []byte(new), 1)
	}
	var beta0 string
	{
		b, _ := json.Marshal(c.Beta[0])
		beta0 = string(b)
	}
	bankEdited := func() []byte {
		// Edit the bank text and recompute the checksum, as a careful
		// hand edit would: the bank hash still catches it.
		var cc Calibrator
		if err := json.Unmarshal(data, &cc); err != nil {
			t.Fatal(err)
		}
		cc.Bank.TOML = strings.Replace(cc.Bank.TOML, "more heavily", "much more heavily", 1)
		sum, err := cc.sum()
		if err != nil {
			t.Fatal(err)
		}
		cc.Checksum = sum
		out, _ := json.Marshal(&cc)
		return out
	}
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"newer schema", replace(`"schema": 1`, `"schema": 2`), `cal.json: field "schema": the calibrator has schema 2, written by a newer prism`},
		{"edited number", replace(beta0, "0.5"), `cal.json: field "checksum": the content does not match its checksum`},
		{"edited bank", bankEdited(), `cal.json: field "bank.hash": the embedded bank hashes to`},
		{"truncated", data[:len(data)/2], "cal.json: the calibrator ends early"},
		{"unknown field", replace(`"method"`, `"extra": 1, "method"`), `cal.json:`},
		{"not a calibrator", []byte(`{"metric": "spearman"}`), `cal.json: field "kind"`},
		{"syntax", replace(`"method":`, `"method" `), "cal.json:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadCalibrator(bytes.NewReader(tc.data), "cal.json")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// TestApplyErrors checks that bad scores are refused naming file, line
// and field.
func TestApplyErrors(t *testing.T) {
	c := &Calibrator{Method: "prism", Metric: "spearman", Centering: CenterWithinContext,
		Columns: []string{"a:+", "a:-"}, Attributes: []string{"a"}, ScoreColumns: []string{"baseline", "a:+", "a:-"},
		Means: []float64{6, 7, 6}, Alpha: 1, Beta: []float64{0.5, 0.25}, Gamma: GammaChoice{Value: 1}}
	row := func(ctx, cand, probe string, s float64, line int) model.ScoreRow {
		return model.ScoreRow{Context: ctx, Candidate: cand, Probe: probe, Score: s, Line: line}
	}
	good := []model.ScoreRow{
		row("g", "x", "baseline", 5, 2), row("g", "x", "a:+", 6, 3),
		row("g", "y", "baseline", 6, 4), row("g", "y", "a:-", 6, 5),
	}
	if _, err := c.Apply(good, nil, ApplyOptions{ScoresFile: "s.csv"}); err != nil {
		t.Fatalf("good rows: %v", err)
	}
	for _, tc := range []struct {
		name   string
		rows   []model.ScoreRow
		labels []model.Label
		opts   ApplyOptions
		want   string
	}{
		{"no baseline rows", []model.ScoreRow{row("g", "x", "a:+", 6, 2), row("g", "y", "a:+", 6, 3)}, nil, ApplyOptions{},
			`s.csv: field "probe": no "baseline" rows`},
		{"candidate without baseline", append(good[:4:4], row("g", "z", "a:+", 6, 6)), nil, ApplyOptions{},
			`s.csv:6: field "score": candidate "z" of context "g" has no baseline score`},
		{"candidate without probes", append(good[:4:4], row("g", "z", "baseline", 6, 6), row("g", "z", "a:+", 0, 7)), nil, ApplyOptions{},
			""},
		{"one candidate", append(good[:4:4], row("h", "w", "baseline", 6, 6), row("h", "w", "a:+", 6, 7)), nil, ApplyOptions{},
			`s.csv:6: field "context": context "h" has one candidate ("w")`},
		{"bad probe", append(good[:4:4], row("g", "x", "a:?", 6, 6)), nil, ApplyOptions{}, `s.csv:6: field "probe"`},
		{"bad score", append(good[:4:4], row("g", "x", "a:-", math.NaN(), 6)), nil, ApplyOptions{}, `s.csv:6: field "score"`},
		{"duplicate label", good, []model.Label{{Context: "g", Candidate: "x", Human: 1, Line: 2}, {Context: "g", Candidate: "x", Human: 2, Line: 3}}, ApplyOptions{},
			`l.csv:3: field "candidate": duplicate label`},
		{"no map", good, nil, ApplyOptions{HumanScale: true}, "no human-scale map"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows := tc.rows
			if tc.name == "candidate without probes" {
				rows[len(rows)-1].Missing = true
				tc.want = `s.csv:6: field "score": candidate "z" of context "g" has no score under any probe the calibrator reads (a:+, a:-)`
			}
			tc.opts.ScoresFile, tc.opts.LabelsFile = "s.csv", "l.csv"
			_, err := c.Apply(rows, tc.labels, tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
	_, err := c.Apply(good, nil, ApplyOptions{HumanScale: true})
	if !errors.Is(err, ErrNoHumanScale) {
		t.Errorf("human scale without a map: %v, want ErrNoHumanScale", err)
	}
}

// TestFitMonotone checks isotonic regression on hand-worked cases.
func TestFitMonotone(t *testing.T) {
	for _, tc := range []struct {
		name   string
		x, y   []float64
		kx, ky []float64
	}{
		// 3 then 2 violate: pooled to 2.5 at x̄ = 2.5.
		{"violator", []float64{1, 2, 3, 4}, []float64{1, 3, 2, 4}, []float64{1, 2.5, 4}, []float64{1, 2.5, 4}},
		// Equal x are pooled first, whatever their order.
		{"tied x", []float64{2, 1, 1}, []float64{3, 2, 0}, []float64{1, 2}, []float64{1, 3}},
		// Equal adjacent means merge, so knot values strictly increase.
		{"equal means", []float64{1, 2, 3}, []float64{1, 2, 2}, []float64{1, 2.5}, []float64{1, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := FitMonotone(tc.x, tc.y)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(m.X, tc.kx) || !reflect.DeepEqual(m.Y, tc.ky) {
				t.Errorf("knots %v → %v, want %v → %v", m.X, m.Y, tc.kx, tc.ky)
			}
		})
	}
	m, err := FitMonotone([]float64{1, 2, 3, 4}, []float64{1, 3, 2, 4})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ x, want float64 }{{1, 1}, {2.5, 2.5}, {2, 2}, {4, 4}, {0, 0}, {5, 5}, {3.25, 3.25}} {
		if got := m.At(tc.x); got != tc.want {
			t.Errorf("At(%v) = %v, want %v", tc.x, got, tc.want)
		}
	}
	if !m.Extrapolates(0.5) || m.Extrapolates(1) || !m.Extrapolates(4.5) {
		t.Error("Extrapolates disagrees with the training range [1, 4]")
	}
	if _, err := FitMonotone([]float64{1, 2, 3}, []float64{3, 2, 1}); err == nil {
		t.Error("a decreasing relation gave a map")
	}
}

// TestMonotoneMapOrder checks, on many random inputs, that the map never
// reverses two scores.
func TestMonotoneMapOrder(t *testing.T) {
	rows, labels := calibtest.Synth(50, 6, 2, 21)
	opts := DefaultOptions()
	opts.Bootstrap = 10
	d, rep := fitForCalibrator(t, rows, labels, opts)
	c := newCal(t, d, rep, opts, PRISM)
	m := c.HumanScale
	lo, hi := m.Min-1, m.Max+1
	prev := math.Inf(-1)
	for i := 0; i <= 100000; i++ {
		x := lo + (hi-lo)*float64(i)/100000
		y := m.At(x)
		if y < prev {
			t.Fatalf("At(%v) = %v below the previous value %v", x, y, prev)
		}
		prev = y
	}
	for i := range m.X {
		x := m.X[i]
		if a, b := m.At(math.Nextafter(x, math.Inf(-1))), m.At(math.Nextafter(x, math.Inf(1))); !(a <= m.Y[i] && m.Y[i] <= b) {
			t.Errorf("around knot %d: %v, %v, %v", i, a, m.Y[i], b)
		}
	}
}

// TestNewCalibratorDeterministic checks that the file is reproducible to
// the bit however the outer folds were scheduled: two fits give equal
// calibrators.
func TestNewCalibratorDeterministic(t *testing.T) {
	rows, labels := calibtest.Synth(30, 6, 3, 2)
	opts := DefaultOptions()
	opts.Bootstrap = 30
	d, rep := fitForCalibrator(t, rows, labels, opts)
	a := newCal(t, d, rep, opts, AlphaPRISM)
	d2, rep2 := fitForCalibrator(t, rows, labels, opts)
	b := newCal(t, d2, rep2, opts, AlphaPRISM)
	if !reflect.DeepEqual(a, b) {
		t.Error("two fits of the same inputs differ")
	}
	if a.CV.Method.Mean != rep.Methods.AlphaPRISM.Mean || a.CV.Vanilla.Mean != rep.Methods.Vanilla.Mean {
		t.Error("the CV estimate is not the report's")
	}
	if len(a.Gamma.Order) != len(d.Contexts) || a.Gamma.Order[0] != rep.Order[0] {
		t.Error("π is not the report's")
	}
}

// TestApplySkipIncomplete checks the partial view: candidates Apply
// refuses and the contexts they leave with one candidate are left out
// and counted, and the rest is scored as without them.
func TestApplySkipIncomplete(t *testing.T) {
	c := &Calibrator{Method: "prism", Metric: "spearman", Centering: CenterWithinContext,
		Columns: []string{"a:+", "a:-"}, Attributes: []string{"a"}, ScoreColumns: []string{"baseline", "a:+", "a:-"},
		Means: []float64{6, 7, 6}, Alpha: 1, Beta: []float64{0.5, 0.25}, Gamma: GammaChoice{Value: 1}}
	row := func(ctx, cand, probe string, s float64) model.ScoreRow {
		return model.ScoreRow{Context: ctx, Candidate: cand, Probe: probe, Score: s}
	}
	complete := []model.ScoreRow{
		row("g", "x", "baseline", 5), row("g", "x", "a:+", 6), row("g", "x", "a:-", 4),
		row("g", "y", "baseline", 6), row("g", "y", "a:+", 6), row("g", "y", "a:-", 6),
	}
	rows := append(slices.Clone(complete),
		row("g", "z", "a:+", 9),                               // no baseline
		row("h", "u", "baseline", 5), row("h", "u", "a:+", 6), // h is left with u alone
		row("h", "v", "baseline", 5), row("k", "w", "baseline", 4), // v, w: no probe
	)
	if _, err := c.Apply(rows, nil, ApplyOptions{}); err == nil {
		t.Fatal("incomplete candidates accepted without SkipIncomplete")
	}
	s, err := c.Apply(rows, nil, ApplyOptions{SkipIncomplete: true})
	if err != nil {
		t.Fatal(err)
	}
	want, err := c.Apply(complete, nil, ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(s.Rows) != fmt.Sprint(want.Rows) || s.Skipped != 4 || len(s.Warnings) != 2 {
		t.Errorf("skipped %d, warnings %q, rows %+v; want 4 skipped (z, v, w, context h) and the complete rows %+v", s.Skipped, s.Warnings, s.Rows, want.Rows)
	}
}
