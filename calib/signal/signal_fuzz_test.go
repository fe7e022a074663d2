package signal

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/prism-eval/prism/model"
)

// FuzzSignal feeds arbitrary score files (with run and wording columns)
// through the reader and Signal: no panic; a report marshals, its
// counts are consistent, and a pass implies a finite lower bound above 1
// and enough contexts.
func FuzzSignal(f *testing.F) {
	var s strings.Builder
	s.WriteString("context,candidate,probe,score,run,wording\n")
	for g := 0; g < 5; g++ {
		for i := 0; i < 3; i++ {
			c, m := string(rune('a'+g)), string(rune('p'+i))
			for _, run := range []string{"1", "2"} {
				s.WriteString(c + "," + m + ",baseline," + string(rune('1'+i)) + "," + run + ",0\n")
				s.WriteString(c + "," + m + ",x:+," + string(rune('1'+(i*g)%5)) + "," + run + ",0\n")
				s.WriteString(c + "," + m + ",x:+," + string(rune('1'+(i+g)%5)) + "," + run + ",1\n")
				s.WriteString(c + "," + m + ",x:-,2," + run + ",0\n")
				s.WriteString(c + "," + m + ",neutral:n," + string(rune('1'+(i+int(run[0]))%3)) + "," + run + ",0\n")
				s.WriteString(c + "," + m + ",ctx:e,," + run + ",0\n")
			}
		}
	}
	f.Add(s.String())
	f.Add("context,candidate,probe,score,run\na,p,baseline,1,1\na,q,baseline,2,2\na,p,x:+,3,1\n")
	f.Add("context,candidate,probe,score\na,p,neutral:n,1\n")
	f.Fuzz(func(t *testing.T, scores string) {
		rows, err := model.ReadScoresCSV(strings.NewReader(scores), "S")
		if err != nil {
			return
		}
		r, err := Signal(context.Background(), rows, Options{Bootstrap: 20, Seed: 1})
		if err != nil {
			return
		}
		if _, err := json.Marshal(r); err != nil {
			t.Fatalf("report does not marshal: %v", err)
		}
		total := 0
		for _, u := range append(r.Units, r.Pooled, r.Neutral) {
			if u.N < 0 || (u.Pass && !(u.CI[0] > 1)) || (u.N == 0 && u.Pass) {
				t.Fatalf("unit %+v", u)
			}
			if u.N > 0 && !(u.RMS >= 0) {
				t.Fatalf("unit %s: RMS %v with N %d", u.Name, u.RMS, u.N)
			}
			// Every contributing context adds at least two centered
			// displacements; a verdict needs MinContexts of them
			// here and in the neutral reference.
			if u.Contexts < 0 || u.Contexts > r.Contexts || u.N < 2*u.Contexts ||
				u.TooFew != (u.Contexts < MinContexts || r.Neutral.Contexts < MinContexts) || (u.TooFew && u.Pass) {
				t.Fatalf("unit %+v (neutral over %d contexts of %d)", u, r.Neutral.Contexts, r.Contexts)
			}
		}
		if r.Pooling != PoolingWordingMean {
			t.Fatalf("pooling %q", r.Pooling)
		}
		for _, u := range r.Units {
			total += u.N
		}
		if total != r.Pooled.N {
			t.Fatalf("units hold %d displacements, pooled %d", total, r.Pooled.N)
		}
		if r.Runs < 2 && !math.IsNaN(r.RepeatRMS) {
			t.Fatalf("repeat RMS %v with %d runs", r.RepeatRMS, r.Runs)
		}
	})
}
