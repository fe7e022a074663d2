package calib

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/prism-eval/prism/model"
)

// FuzzFit feeds arbitrary score and label files through the readers and
// Fit: no panic, and a successful fit gives a report that marshals and
// whose means lie in the metric's range.
func FuzzFit(f *testing.F) {
	var s, l strings.Builder
	s.WriteString("context,candidate,probe,score\n")
	l.WriteString("context,candidate,human\n")
	for g := 0; g < 5; g++ {
		for i := 0; i < 3; i++ {
			c, m := string(rune('a'+g)), string(rune('p'+i))
			s.WriteString(c + "," + m + ",baseline," + string(rune('1'+i)) + "\n")
			s.WriteString(c + "," + m + ",x:+," + string(rune('1'+(i*g)%5)) + "\n")
			s.WriteString(c + "," + m + ",x:-,2\n")
			l.WriteString(c + "," + m + "," + string(rune('1'+(i+g)%3)) + "\n")
		}
	}
	f.Add(s.String(), l.String(), false, false)
	f.Add(s.String(), l.String(), true, true)
	f.Add("context,candidate,probe,score\na,p,baseline,1\n", "context,candidate,human\na,p,1\n", false, false)
	f.Fuzz(func(t *testing.T, scores, labels string, pairwise, taylor bool) {
		rows, err := model.ReadScoresCSV(strings.NewReader(scores), "S")
		if err != nil {
			return
		}
		labs, err := model.ReadLabelsCSV(strings.NewReader(labels), "L")
		if err != nil {
			return
		}
		opts := DefaultOptions()
		opts.Bootstrap = 20
		opts.Taylor = taylor
		if pairwise {
			opts.Metric = model.MetricPairwise
		}
		r, _, err := Fit(context.Background(), rows, labs, opts)
		if err != nil {
			return
		}
		if _, err := json.Marshal(r); err != nil {
			t.Fatalf("report does not marshal: %v", err)
		}
		lo := -1.0
		if pairwise {
			lo = 0
		}
		for _, m := range append([]Method{Vanilla}, methodsFor(opts)...) {
			res := r.Methods.Get(m)
			if !(res.Mean >= lo-1e-12 && res.Mean <= 1+1e-12) || math.IsNaN(res.CI[0]) {
				t.Fatalf("%v: mean %v, CI %v", m, res.Mean, res.CI)
			}
		}
	})
}

// FuzzReadCalibrator feeds arbitrary bytes, and damaged copies of a real
// calibrator, to ReadCalibrator: no panic, and a file it accepts scores
// candidates without panicking either.
func FuzzReadCalibrator(f *testing.F) {
	c, rows, _ := bankCalibrator(f)
	data, err := c.Marshal()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add(data[:len(data)/3])
	f.Add([]byte(`{"kind":"prism-calibrator","schema":1}`))
	f.Add([]byte(`{"kind":"prism-calibrator","schema":1e9}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, in []byte) {
		got, err := ReadCalibrator(bytes.NewReader(in), "fuzz.json")
		if err != nil {
			return
		}
		if _, err := got.Marshal(); err != nil {
			t.Fatalf("an accepted calibrator does not marshal: %v", err)
		}
		_, _ = got.Apply(rows, nil, ApplyOptions{})
	})
}
