package offline

import (
	"context"
	"testing"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/model/datasets"
)

// TestVariantsHaveTheirBias scores the demo's candidates with each
// simulator and, over the pairs of candidates of one context where the
// longer one is the less grounded, counts how often each judge prefers
// the longer: the verbose variant most, the strict one least, the default
// simulator between them (docs/judge.md).
func TestVariantsHaveTheirBias(t *testing.T) {
	d := datasets.Demo()
	bank, err := banks.Builtin("quality")
	if err != nil {
		t.Fatal(err)
	}
	share := map[string]float64{}
	for _, m := range []string{"", "verbose", "strict"} {
		j, err := New(judge.Config{Backend: judge.BackendOffline, Model: m, Mode: judge.ModeExpected, Repeats: 1})
		if err != nil {
			t.Fatal(err)
		}
		longer, pairs := 0, 0
		for _, c := range d.Contexts {
			scores := make([]float64, len(c.Candidates))
			feats := make([]Features, len(c.Candidates))
			for i, cand := range c.Candidates {
				req, err := bank.Render(d.Task, c, cand, banks.Baseline)
				if err != nil {
					t.Fatal(err)
				}
				r, err := j.Score(context.Background(), req)
				if err != nil {
					t.Fatal(err)
				}
				scores[i], feats[i] = r.Score, FeaturesOf(c.Source, cand.Text)
			}
			for a := range scores {
				for b := range scores {
					if feats[a][Length] > feats[b][Length] && feats[a][Grounding] < feats[b][Grounding] && scores[a] != scores[b] {
						pairs++
						if scores[a] > scores[b] {
							longer++
						}
					}
				}
			}
		}
		if pairs < 10 {
			t.Fatalf("%s: %d pairs where the longer candidate is the less grounded; the demo needs more", j.Name(), pairs)
		}
		share[m] = float64(longer) / float64(pairs)
		t.Logf("%-28s prefers the longer, less grounded candidate in %d of %d pairs", j.Name(), longer, pairs)
	}
	if !(share["verbose"] > share[""] && share[""] > share["strict"]) {
		t.Errorf("share preferring length: verbose %.2f, default %.2f, strict %.2f; want decreasing", share["verbose"], share[""], share["strict"])
	}
}
