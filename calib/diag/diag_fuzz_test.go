package diag

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/prism-eval/prism/model"
)

// FuzzDiagnostics feeds arbitrary score files through Wording, Joint and
// Resolution (the file against itself shifted by one): no panic; reports
// marshal; "too few" never comes with numbers; shares lie in [0, 1].
func FuzzDiagnostics(f *testing.F) {
	var s strings.Builder
	s.WriteString("context,candidate,probe,score,run,wording\n")
	for g := 0; g < 2; g++ {
		for i := 0; i < 3; i++ {
			c, m := string(rune('a'+g)), string(rune('p'+i))
			for _, run := range []string{"0", "1"} {
				for k, p := range []string{"baseline", "x:control", "x:+", "x:-", "x:much+", "x:much-", "y:+", "y:-",
					"joint:x/y:++", "joint:x/y:+-", "joint:x/y:-+", "joint:x/y:--"} {
					s.WriteString(c + "," + m + "," + p + "," + string(rune('1'+(i*k+g+len(run))%7)) + "," + run + ",0\n")
				}
			}
		}
	}
	f.Add(s.String())
	f.Add("context,candidate,probe,score,run\na,p,baseline,1,0\na,q,baseline,1,0\na,p,x:control,2,0\n")
	f.Fuzz(func(t *testing.T, scores string) {
		rows, err := model.ReadScoresCSV(strings.NewReader(scores), "S")
		if err != nil {
			return
		}
		opts := Options{Bootstrap: 10, Seed: 1, MinContexts: 1}
		ctx := context.Background()
		w, err := Wording(ctx, rows, opts)
		if err == nil {
			if _, err := json.Marshal(w); err != nil {
				t.Fatal(err)
			}
			for _, a := range w.Attributes {
				if a.TooFew != "" && len(a.Levels) > 0 {
					t.Fatalf("too few with numbers: %+v", a)
				}
			}
		}
		j, err := Joint(ctx, rows, opts)
		if err == nil {
			if _, err := json.Marshal(j); err != nil {
				t.Fatal(err)
			}
		}
		shifted := make([]model.ScoreRow, len(rows))
		for i, r := range rows {
			r.Score++
			shifted[i] = r
		}
		r, err := Resolution(ctx, rows, shifted, "a", "b", opts)
		if err != nil {
			return
		}
		if _, err := json.Marshal(r); err != nil {
			t.Fatal(err)
		}
		if r.TooFew == "" {
			for _, e := range []Est{r.A.TiedShare, r.B.TiedShare} {
				if !(e.Value >= 0 && e.Value <= 1) {
					t.Fatalf("share %v", e.Value)
				}
			}
			// A shift by one keeps every tie and zero response (exactly so
			// for integer scores well inside float64's integer range).
			exact := true
			for _, x := range rows {
				exact = exact && x.Score == math.Trunc(x.Score) && math.Abs(x.Score) < 1e9
			}
			if exact && r.A.TiedPairs != r.B.TiedPairs || r.A.ZeroResponses != r.B.ZeroResponses {
				t.Fatalf("shifted scores changed ties or zeros: %+v", r)
			}
		}
	})
}
