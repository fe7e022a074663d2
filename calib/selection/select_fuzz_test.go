package selection

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/prism-eval/prism/model"
)

// FuzzSelect feeds arbitrary score and label files through the readers and
// Select: no panic; a report marshals, lists 2^U − 1 subsets, and every
// mean lies in the metric's range with gain = mean − Vanilla.
func FuzzSelect(f *testing.F) {
	var s, l strings.Builder
	s.WriteString("context,candidate,probe,score\n")
	l.WriteString("context,candidate,human\n")
	for g := 0; g < 5; g++ {
		for i := 0; i < 3; i++ {
			c, m := string(rune('a'+g)), string(rune('p'+i))
			s.WriteString(c + "," + m + ",baseline," + string(rune('1'+i)) + "\n")
			s.WriteString(c + "," + m + ",x:+," + string(rune('1'+(i*g)%5)) + "\n")
			s.WriteString(c + "," + m + ",x:-,2\n")
			s.WriteString(c + "," + m + ",y:+," + string(rune('1'+(i+g)%4)) + "\n")
			s.WriteString(c + "," + m + ",y:-,3\n")
			s.WriteString(c + "," + m + ",ctx:e," + string(rune('1'+(2*i+g)%5)) + "\n")
			l.WriteString(c + "," + m + "," + string(rune('1'+(i+g)%3)) + "\n")
		}
	}
	f.Add(s.String(), l.String(), false)
	f.Add(s.String(), l.String(), true)
	f.Fuzz(func(t *testing.T, scores, labels string, pairwise bool) {
		rows, err := model.ReadScoresCSV(strings.NewReader(scores), "S")
		if err != nil {
			return
		}
		labs, err := model.ReadLabelsCSV(strings.NewReader(labels), "L")
		if err != nil {
			return
		}
		opts := DefaultOptions()
		if pairwise {
			opts.Metric = model.MetricPairwise
		}
		r, _, err := Select(context.Background(), rows, labs, opts)
		if err != nil {
			return
		}
		if _, err := json.Marshal(r); err != nil {
			t.Fatalf("report does not marshal: %v", err)
		}
		if len(r.Subsets) != 1<<len(r.Units)-1 || len(r.Omission) != len(r.Units) {
			t.Fatalf("%d units, %d subsets, %d omissions", len(r.Units), len(r.Subsets), len(r.Omission))
		}
		lo := -1.0
		if pairwise {
			lo = 0
		}
		for _, s := range append(r.Subsets, Subset{SubsetResult: r.Full}) {
			if !(s.Mean >= lo-1e-12 && s.Mean <= 1+1e-12) || s.Gain != s.Mean-r.Vanilla {
				t.Fatalf("subset %v: mean %v gain %v (vanilla %v)", s.Units, s.Mean, s.Gain, r.Vanilla)
			}
		}
	})
}
