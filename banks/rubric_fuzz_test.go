package banks

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// FuzzParseRubric: ParseRubric never panics and returns Errors on failure;
// whatever it accepts survives Marshal → ParseRubric unchanged, hash
// included, and renders on every task: one SAJA request with a valid JSON
// schema, or one G-Eval request per criterion.
func FuzzParseRubric(f *testing.F) {
	f.Add([]byte(tinySAJA))
	f.Add([]byte(tinyGEval))
	f.Add([]byte(strings.Replace(tinyGEval, `steps = ["Read it."]`, `template = "{{Document}}\n{{Summary}} "`, 1)))
	f.Add([]byte("name=\"x\"\nkind=\"geval\"\n[[criteria]]\nname=\"a\"\ndefinition=\"d\"\nscale={min=0,max=1}\nsteps=['s']\n[tasks.generic]\ncandidate_label=\"C\"\nprompt=\"P\"\nanswer=\"[criterion]\""))
	f.Add([]byte("[[criteria]]\n[criteria.scale]\nmin = 1\n[[criteria]]\nname = 'b'"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ParseRubric(data, "fuzz.toml")
		if err != nil {
			if _, ok := err.(Errors); !ok {
				t.Fatalf("error of type %T, want Errors: %v", err, err)
			}
			return
		}
		out, err := r.Marshal()
		if err != nil {
			t.Fatalf("Marshal of a parsed rubric failed: %v", err)
		}
		back, err := ParseRubric(out, "marshalled.toml")
		if err != nil {
			t.Fatalf("Marshal output does not parse: %v\n%s", err, out)
		}
		if !reflect.DeepEqual(back, r) || back.Hash() != r.Hash() {
			t.Fatalf("round trip changed the rubric:\n got %#v\nwant %#v", back, r)
		}
		for _, task := range r.TaskNames() {
			ctx, err := Sample(task)
			if err != nil {
				t.Fatal(err)
			}
			reqs, err := r.Render(task, ctx, ctx.Candidates[0])
			if err != nil {
				t.Fatal(err)
			}
			want := 1
			if r.Kind == RubricGEval {
				want = len(r.Criteria)
			}
			if len(reqs) != want {
				t.Fatalf("%d requests, want %d", len(reqs), want)
			}
			for _, q := range reqs {
				if q.Scale.Min >= q.Scale.Max || q.Rubric == nil || len(q.Messages) == 0 {
					t.Fatalf("bad request %+v", q)
				}
				if s := q.Rubric.Schema(); r.Kind == RubricSAJA && !json.Valid(s) {
					t.Fatalf("invalid schema %s", s)
				}
			}
		}
	})
}
