package banks

import (
	"reflect"
	"strings"
	"testing"
)

// compact uses every key of the format in few bytes.
const compact = `name="c"
[templates]
plus=["+[clause]"]
minus=["-[clause]"]
[[attributes]]
name="a"
clause="x"
plus=["p"]
[[neutrals]]
name="n"
text="t"
[[context_probes]]
name="k"
text='u'
[tasks.dialogue]
system="""s"""
source_label="S"
candidate_label="C"
task_label="T"
prompt="P"
batch_prompt="B"
scale_text="[scale]: [anchors]"
answer="[format]"
batch_answer="[format]!"
scale={min=0,max=3,anchors=[{from=0,to=1,label="l"},{from=3,to=3,label="h"}]}
extras=[{field="knowledge",label="F"}]
`

// FuzzParse: Parse never panics; whatever it accepts renders on every task
// without panicking and survives Marshal → Parse unchanged, hash included.
func FuzzParse(f *testing.F) {
	// Seeds are small on purpose: Go minimizes every new input with a
	// quadratic number of runs, so kilobyte seeds (a built-in file is up to
	// 10 kB) would spend a 10-second CI run minimizing. Built-in files are
	// parsed by TestBuiltinRoundTrip instead.
	f.Add([]byte(compact))
	f.Add([]byte(minimal))
	f.Add([]byte(withLevels))
	f.Add([]byte(strings.Replace(minimal, `clause = "how long it is"`, `clause = """
multi"""`, 1)))
	f.Add([]byte(strings.Replace(minimal, `max = 5`, "max = 5\nanchors = [{from = 1, to = 1, label = \"x\"}]", 1)))
	f.Add([]byte("[[a]]\n[a.b]\nc = 1\n[[a]]\n\"q.k\" = '''\nx = 1\n'''"))
	f.Add([]byte("name = \"x\"\n[tasks.generic]\nextras = [{field = \"f\", label = \"F\"}]"))
	// Around the nesting limit (model.MaxTOMLDepth): refused past it.
	f.Add([]byte("x = " + strings.Repeat("{a=", 33) + "1" + strings.Repeat("}", 33)))
	f.Add([]byte("x = " + strings.Repeat("[", 32) + strings.Repeat("]", 32)))
	f.Add([]byte(strings.Repeat("a.", 32) + "a = 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		scanKeys(data) // must not panic on any input
		b, err := Parse(data, "fuzz.toml")
		if err != nil {
			if _, ok := err.(Errors); !ok {
				t.Fatalf("error of type %T, want Errors: %v", err, err)
			}
			return
		}
		out, err := b.Marshal()
		if err != nil {
			t.Fatalf("Marshal of a parsed bank failed: %v", err)
		}
		back, err := Parse(out, "marshalled.toml")
		if err != nil {
			t.Fatalf("Marshal output does not parse: %v\n%s", err, out)
		}
		if !reflect.DeepEqual(back, b) {
			t.Fatalf("round trip changed the bank:\n got %#v\nwant %#v", back, b)
		}
		if back.Hash() != b.Hash() {
			t.Fatal("round trip changed the hash")
		}
		for _, task := range b.TaskNames() {
			ctx, err := Sample(task)
			if err != nil {
				t.Fatal(err)
			}
			// The first few and the last condition: rendering all of them
			// would slow each run and starve the fuzzer's minimizer.
			conds := b.Conditions()
			if len(conds) > 4 {
				conds = append(conds[:3], conds[len(conds)-1])
			}
			for _, c := range conds {
				if _, err := b.Render(task, ctx, ctx.Candidates[0], c); err != nil {
					t.Fatalf("Render %s %s: %v", task, c.Probe, err)
				}
			}
			if _, err := b.RenderBatch(task, ctx, ctx.Candidates, Baseline); err != nil {
				t.Fatalf("RenderBatch %s: %v", task, err)
			}
		}
	})
}
