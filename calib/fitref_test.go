package calib

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/synthstudy"
)

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
