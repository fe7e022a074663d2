package calib

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/prism-eval/prism/calib/internal/calibtest"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/shareddata"
	"github.com/prism-eval/prism/model/synthstudy"
)

// TestCrossCheck compares Fit with an independent pure-Python
// implementation of docs/protocol.md §2–6 (testdata/crosscheck/reference.py, run
// as its header says to produce expected.json) on a small synthetic study
// with repeats, two wordings, a context probe, a missing cell, unequal
// context sizes and tied human scores: the selected γ of every method and
// fold must be identical, and the inner CV scores, α and per-context
// out-of-fold values must agree to 1e-12.
func TestCrossCheck(t *testing.T) {
	rows, labels, order, open := crossCheckInput(t)
	var want struct {
		Columns []string
		Methods map[string]struct {
			PerContext map[string]float64 `json:"per_context"`
			Folds      []struct {
				Gamma, Alpha float64
				CV           []float64
			}
		}
	}
	if err := json.NewDecoder(open("expected.json")).Decode(&want); err != nil {
		t.Fatal(err)
	}
	opts := DefaultOptions()
	opts.Order = order
	opts.Bootstrap = 100
	r, _, err := Fit(context.Background(), rows, labels, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Columns, want.Columns) {
		t.Fatalf("columns %v, reference %v", r.Columns, want.Columns)
	}
	const tol = 1e-12
	for _, m := range []Method{Vanilla, PRISM, AlphaPRISM, Half} {
		w := want.Methods[m.String()]
		got := r.Methods.Get(m).PerContext
		if len(got) != len(w.PerContext) || len(got) == 0 {
			t.Fatalf("%v: %d contexts, reference %d", m, len(got), len(w.PerContext))
		}
		for c, v := range w.PerContext {
			if math.Abs(got[c]-v) > tol {
				t.Errorf("%v %s: %.15g, reference %.15g", m, c, got[c], v)
			}
		}
		if m == Vanilla {
			continue
		}
		for f, wf := range w.Folds {
			ff := r.Folds[f].byMethod(m)
			if ff.Gamma != wf.Gamma {
				t.Errorf("%v fold %d: γ %v, reference %v (cv %v vs %v)", m, f+1, ff.Gamma, wf.Gamma, ff.CV, wf.CV)
			}
			if math.Abs(ff.Alpha-wf.Alpha) > tol {
				t.Errorf("%v fold %d: α %v, reference %v", m, f+1, ff.Alpha, wf.Alpha)
			}
			calibtest.AssertClose(t, m.String()+" cv", ff.CV, wf.CV, tol)
		}
	}
}

// crossCheckInput reads the cross-check study (testdata/crosscheck) and
// returns an opener for its other files.
func crossCheckInput(t *testing.T) (rows []model.ScoreRow, labels []model.Label, order []string, open func(string) *os.File) {
	t.Helper()
	open = func(name string) *os.File {
		f, err := os.Open("testdata/crosscheck/" + name)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	rows, err := model.ReadScoresCSV(open("scores.csv"), "scores.csv")
	if err != nil {
		t.Fatal(err)
	}
	labels, err = model.ReadLabelsCSV(open("labels.csv"), "labels.csv")
	if err != nil {
		t.Fatal(err)
	}
	order, err = ReadOrder(open("order.txt"), "order.txt")
	if err != nil {
		t.Fatal(err)
	}
	return rows, labels, order, open
}

// refStudy is the study behind testdata/fitref/*.json: synthstudy's 120
// contexts × 8 candidates × 3 attributes (2 wordings), with what a real
// study has besides: empty scores and absent rows (imputed cells), a
// context probe, neutral controls, an unlabelled candidate and a context
// with a single labelled candidate (skipped). Rows come in file order,
// candidate by candidate.
func refStudy() ([]model.ScoreRow, []model.Label) {
	rows, labels := synthstudy.Scores(120, 8, 3, 2, 5)
	var out []model.ScoreRow
	for i, r := range rows {
		switch {
		case i%41 == 7: // absent row
			continue
		case i%53 == 11: // empty score
			r.Missing, r.Score = true, 0
		}
		out = append(out, r)
		if r.Probe == model.ProbeBaseline {
			out = append(out,
				model.ScoreRow{Context: r.Context, Candidate: r.Candidate, Probe: "neutral:calm", Score: r.Score + 0.01},
				model.ScoreRow{Context: r.Context, Candidate: r.Candidate, Probe: "ctx:expert", Score: r.Score*0.9 + float64(i%7)/10})
		}
	}
	out = append(out, model.ScoreRow{Context: "doc00003", Candidate: "unlabelled", Probe: model.ProbeBaseline, Score: 1})
	// doc00119 keeps one labelled candidate: skipped with a warning.
	var kept []model.Label
	for _, l := range labels {
		if l.Context != "doc00119" || l.Candidate == "m00" {
			kept = append(kept, l)
		}
	}
	return out, kept
}

// refCases are the fits of refStudy compared with testdata/fitref.
var refCases = []struct {
	name string
	opts func(*Options)
}{
	{"spearman_taylor", func(o *Options) { o.Taylor = true }},
	{"pairwise", func(o *Options) { o.Metric = model.MetricPairwise; o.Seed = 7 }},
	{"global", func(o *Options) { o.Global = true }},
}

// TestFitMatchesReference fits refStudy and compares the whole --json
// report, byte for byte, with testdata/fitref/NAME.json. Those files were
// written by this test (PRISM_WRITE_FITREF=1) from the code of commit
// 37ff07a, before the fit's memory work (docs/performance.md, "Fit
// memory"), and must never be rewritten from later code: they are the
// proof that the design, the folds' sums, the centering and the report
// are bitwise what they were. Both ways in are checked: BuildDesign (in
// Fit) and a DesignBuilder fed the rows one at a time (prism fit's way
// from files, without J̃: BuildOptions.DropCentered).
func TestFitMatchesReference(t *testing.T) {
	rows, labels := refStudy()
	for _, tc := range refCases {
		t.Run(tc.name, func(t *testing.T) {
			opts := DefaultOptions()
			opts.Bootstrap = 300
			tc.opts(&opts)
			bo := BuildOptions{Global: opts.Global}
			r1, _, err := Fit(context.Background(), rows, labels, opts)
			if err != nil {
				t.Fatal(err)
			}
			got := refJSON(t, r1)
			path := filepath.Join("testdata", "fitref", tc.name+".json")
			if os.Getenv("PRISM_WRITE_FITREF") == "1" {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("Fit: report differs from %s at byte %s", path, firstDiff(got, want))
			}
			bo.DropCentered = true // prism fit's design from files
			b := NewDesignBuilder(bo)
			b.Reserve(len(labels))
			for i := range rows {
				row := rows[i]
				if err := b.Add(&row); err != nil {
					t.Fatal(err)
				}
			}
			d, _, err := b.Build(labels)
			if err != nil {
				t.Fatal(err)
			}
			if d.JC != nil {
				t.Error("DropCentered: the design holds J̃")
			}
			r2, _, err := FitDesign(context.Background(), d, opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := refJSON(t, r2); !bytes.Equal(got, want) {
				t.Errorf("DesignBuilder: report differs from %s at byte %s", path, firstDiff(got, want))
			}
		})
	}
}

// refJSON is the report as `prism fit --json` writes it.
func refJSON(t *testing.T, r *Report) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func firstDiff(a, b []byte) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			lo := max(0, i-80)
			return fmt.Sprintf("%d: got …%s… want …%s…", i, a[lo:min(len(a), i+40)], b[lo:min(len(b), i+40)])
		}
	}
	return fmt.Sprintf("%d (lengths %d, %d)", min(len(a), len(b)), len(a), len(b))
}

// summevalLabels reads the real SummEval expert means (../shared/data)
// minimally: target = mean of the four criteria (docs/protocol.md §10).
func summevalLabels(t *testing.T) (labels []model.Label, crit map[[2]string][4]float64) {
	t.Helper()
	raw, err := os.ReadFile(shareddata.Path(t, "summeval/data.json"))
	if err != nil {
		t.Fatal(err)
	}
	var docs map[string]struct {
		SysSumms map[string]struct {
			Scores map[string]float64 `json:"scores"`
		} `json:"sys_summs"`
	}
	if err := json.Unmarshal(raw, &docs); err != nil {
		t.Fatal(err)
	}
	crit = map[[2]string][4]float64{}
	for _, doc := range slices.Sorted(maps.Keys(docs)) {
		for sys, s := range docs[doc].SysSumms {
			c := [4]float64{s.Scores["coherence"], s.Scores["consistency"], s.Scores["fluency"], s.Scores["relevance"]}
			crit[[2]string{doc, sys}] = c
			labels = append(labels, model.Label{Context: doc, Candidate: sys, Human: (c[0] + c[1] + c[2] + c[3]) / 4})
		}
	}
	slices.SortFunc(labels, func(a, b model.Label) int {
		if a.Context != b.Context {
			return strings.Compare(a.Context, b.Context)
		}
		return strings.Compare(a.Candidate, b.Candidate)
	})
	return labels, crit
}

// TestSummEvalSynthetic runs the whole protocol on the real SummEval labels
// with a synthetic judge that overweights fluency and underweights
// coherence and relevance; each attribute probe moves the score with its
// own criterion, and two noise attributes move it at random. PRISM must
// beat Vanilla with a paired interval above 0, and the profiles must point
// the right way: subtract fluency (a > 0), add coherence (a < 0).
func TestSummEvalSynthetic(t *testing.T) {
	labels, crit := summevalLabels(t)
	rng := rand.New(rand.NewPCG(2024, 1))
	names := []string{"coherence", "consistency", "fluency", "relevance"}
	judgeW := [4]float64{0.1, 0.3, 1.0, 0.1} // the humans weight each criterion 0.25
	var rows []model.ScoreRow
	for _, l := range labels {
		c := crit[[2]string{l.Context, l.Candidate}]
		s0 := 0.0
		for k := range c {
			s0 += judgeW[k] * c[k]
		}
		s0 += 0.4 * rng.NormFloat64()
		add := func(probe string, v float64) {
			rows = append(rows, model.ScoreRow{Context: l.Context, Candidate: l.Candidate, Probe: probe, Score: v})
		}
		add("baseline", s0)
		for k, n := range names {
			add(n+":+", s0+0.3+0.4*(c[k]-3)+0.15*rng.NormFloat64())
			add(n+":-", s0-0.1-0.3*(c[k]-3)+0.15*rng.NormFloat64())
		}
		for _, n := range []string{"noise1", "noise2"} {
			add(n+":+", s0+0.3*rng.NormFloat64())
			add(n+":-", s0+0.3*rng.NormFloat64())
		}
	}
	r, warnings, err := Fit(context.Background(), rows, labels, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 0 {
		t.Errorf("warnings: %v", warnings)
	}
	if r.NContexts != 100 || r.NCandidates != 1600 || len(r.Columns) != 12 {
		t.Fatalf("%d contexts, %d candidates, %d columns", r.NContexts, r.NCandidates, len(r.Columns))
	}
	v, p := r.Methods.Vanilla, r.Methods.PRISM
	t.Logf("Vanilla %.4f %v, PRISM %.4f %v, α-PRISM %.4f, Half %.4f, PRISM−Vanilla %+.4f %v",
		v.Mean, v.CI, p.Mean, p.CI, r.Methods.AlphaPRISM.Mean, r.Methods.Half.Mean, p.DiffVsVanilla.Mean, p.DiffVsVanilla.CI)
	if v.Mean <= 0.1 {
		t.Errorf("Vanilla %.4f: the synthetic judge should agree with humans somewhat", v.Mean)
	}
	for _, m := range methodsFor(DefaultOptions()) {
		d := r.Methods.Get(m).DiffVsVanilla
		if d.CI[0] <= 0 {
			t.Errorf("%v − Vanilla = %+.4f, CI %v; want the CI above 0", m, d.Mean, d.CI)
		}
	}
	flu, coh := r.Profiles["fluency"].A, r.Profiles["coherence"].A
	if flu.Mean <= 0 || flu.SignStable != 5 {
		t.Errorf("fluency a = %+v; the judge overweights it, want a > 0 in every fold", flu)
	}
	if coh.Mean >= 0 || coh.SignStable != 5 {
		t.Errorf("coherence a = %+v; the judge underweights it, want a < 0 in every fold", coh)
	}
	for _, n := range []string{"noise1", "noise2"} {
		if a := r.Profiles[n].A; abs(a.Mean) > abs(flu.Mean)/3 {
			t.Errorf("%s a = %v, not small beside fluency's %v", n, a.Mean, flu.Mean)
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
