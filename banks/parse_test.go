package banks

import (
	"bytes"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestBuiltinRoundTrip: each embedded file parses to the built-in bank;
// Marshal then Parse gives an equal bank with the same hash, and a second
// Marshal is byte-identical to the first.
func TestBuiltinRoundTrip(t *testing.T) {
	for _, b := range Builtins() {
		data, err := BuiltinFile(b.Name)
		if err != nil {
			t.Fatal(err)
		}
		fromFile, err := Parse(data, b.Name+".toml")
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(fromFile, b) {
			t.Errorf("%s: embedded file and Builtin differ", b.Name)
		}
		out, err := b.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		back, err := Parse(out, "marshalled")
		if err != nil {
			t.Fatalf("%s: Marshal output does not parse: %v\n%s", b.Name, err, out)
		}
		if !reflect.DeepEqual(back, b) {
			t.Errorf("%s: round trip lost information:\n got %+v\nwant %+v", b.Name, back, b)
		}
		if back.Hash() != b.Hash() {
			t.Errorf("%s: hash changed over a round trip", b.Name)
		}
		out2, _ := back.Marshal()
		if !bytes.Equal(out, out2) {
			t.Errorf("%s: second Marshal differs from the first", b.Name)
		}
	}
}

func TestBuiltinCopiesAreIndependent(t *testing.T) {
	a, _ := Builtin("quality")
	h := a.Hash()
	a.Attributes[0].Clause = "changed"
	a.Templates.Plus[0] = "changed [clause]"
	a.Tasks["news-summary"].Scale.Anchors[0].Label = "changed"
	b, _ := Builtin("quality")
	if b.Hash() != h {
		t.Error("editing a returned bank changed the built-in one")
	}
	if _, err := Builtin("nope"); err == nil || !strings.Contains(err.Error(), "quality, style8") {
		t.Errorf("Builtin(nope) error %v should list the built-in names", err)
	}
}

const minimal = `name = "mini"
[templates]
plus = ["More [clause]."]
minus = ["Less [clause]."]

[[attributes]]
name = "length"
clause = "how long it is"

[[neutrals]]
name = "calm"
text = "Stay calm."

[tasks.generic]
system = "You judge texts."
source_label = "Source"
candidate_label = "Text"
prompt = "Rate it."
answer = "Answer [format]."
[tasks.generic.scale]
min = 1
max = 5
`

// TestHashIgnoresFormatting: comments, blank lines, key order, quoting
// style and dotted keys leave the hash unchanged.
func TestHashIgnoresFormatting(t *testing.T) {
	base := mustParse(t, minimal)
	for name, src := range map[string]string{
		"comments and blank lines": "# a comment\n\n" + strings.ReplaceAll(minimal, "\n[", "\n# section\n\n["),
		"literal strings":          strings.Replace(minimal, `clause = "how long it is"`, `clause = 'how long it is'`, 1),
		"key order":                strings.Replace(minimal, "name = \"length\"\nclause = \"how long it is\"", "clause = \"how long it is\"\nname = \"length\"", 1),
		"dotted keys":              strings.Replace(minimal, "[tasks.generic.scale]\nmin = 1\nmax = 5", "scale.min = 1\nscale.max = 5", 1),
	} {
		b := mustParse(t, src)
		if b.Hash() != base.Hash() {
			t.Errorf("%s changed the hash", name)
		}
	}
}

// TestHashSeesWording: every change of wording that reaches the judge or
// names a probe gives a new hash.
func TestHashSeesWording(t *testing.T) {
	base := mustParse(t, minimal).Hash()
	seen := map[string]string{base: "base"}
	for name, edit := range map[string][2]string{
		"template":         {`"More [clause]."`, `"More  [clause]."`},
		"attribute name":   {`name = "length"`, `name = "size"`},
		"clause":           {`how long it is`, `how long it is!`},
		"neutral text":     {`Stay calm.`, `Stay calm!`},
		"neutral name":     {`name = "calm"`, `name = "still"`},
		"system":           {`You judge texts.`, `You judge text.`},
		"prompt":           {`Rate it.`, `Rate this.`},
		"answer":           {`Answer [format].`, `Reply [format].`},
		"source label":     {`source_label = "Source"`, `source_label = "Input"`},
		"candidate label":  {`candidate_label = "Text"`, `candidate_label = "Output"`},
		"scale":            {`max = 5`, `max = 7`},
		"task kind":        {`tasks.generic`, `tasks.story`},
		"context probe":    {"[tasks.generic]", "[[context_probes]]\nname = \"kid\"\ntext = \"For a kid.\"\n\n[tasks.generic]"},
		"scale text":       {`prompt = "Rate it."`, "prompt = \"Rate it.\"\nscale_text = \"Use [scale].\""},
		"bank name":        {`name = "mini"`, `name = "maxi"`},
		"description":      {`name = "mini"`, "name = \"mini\"\ndescription = \"d\""},
		"explicit wording": {`clause = "how long it is"`, "clause = \"how long it is\"\nplus = [\"More how long it is.\"]"},
	} {
		src := strings.ReplaceAll(minimal, edit[0], edit[1])
		if src == minimal {
			t.Fatalf("%s: edit did not apply", name)
		}
		h := mustParse(t, src).Hash()
		if prev, dup := seen[h]; dup {
			t.Errorf("%s gives the same hash as %s", name, prev)
		}
		seen[h] = name
	}
}

func mustParse(t *testing.T, src string) *Bank {
	t.Helper()
	b, err := Parse([]byte(src), "test.toml")
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	return b
}

// TestParseErrors: broken bank files are rejected with errors that name
// the file, the line and the field.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name, old, new string
		want           string // "file:line: field: message" prefix or substring
	}{
		{"syntax", `min = 1`, `min = = 1`, "test.toml:21"},
		{"type", `max = 5`, `max = "five"`, "test.toml:22:1: tasks.generic.scale.max: incompatible types"},
		{"unknown top key", `name = "mini"`, "name = \"mini\"\ncolour = \"red\"", "test.toml:2:1: colour: unknown key"},
		{"unknown attribute key", `clause = "how long it is"`, "clause = \"how long it is\"\nclauses = \"x\"", "test.toml:9:1: attributes[0].clauses: unknown key"},
		{"wrong case", `clause = "how long it is"`, `Clause = "how long it is"`, "test.toml:8:1: attributes[0].Clause: unknown key"},
		{"empty clause", `clause = "how long it is"`, `clause = ""`, "test.toml:8:1: attributes[0].clause: empty"},
		{"blank clause", `clause = "how long it is"`, `clause = "   "`, "test.toml:8:1: attributes[0].clause: empty"},
		{"padded clause", `clause = "how long it is"`, `clause = "how long it is "`, "test.toml:8:1: attributes[0].clause: starts or ends with white space"},
		{"bad name", `name = "length"`, `name = "Length"`, `test.toml:7:1: attributes[0].name: "Length" is not a valid name`},
		{"name with colon", `name = "length"`, `name = "len:gth"`, `test.toml:7:1: attributes[0].name: "len:gth" is not a valid name`},
		{"duplicate attribute", "[[neutrals]]", "[[attributes]]\nname = \"length\"\nclause = \"again\"\n\n[[neutrals]]", `test.toml:11:1: attributes[1].name: duplicate name "length"`},
		{"template without clause", `plus = ["More [clause]."]`, `plus = ["More."]`, "test.toml:3:1: templates.plus[0]: template has no [clause] placeholder"},
		{"no minus wording", `minus = ["Less [clause]."]`, ``, "test.toml:6:1: attributes[0].minus: no − wording"},
		{"min not below max", `max = 5`, `max = 1`, "test.toml:21:1: tasks.generic.scale.min: min 1 must be below max 1"},
		{"anchor outside", `max = 5`, "max = 5\nanchors = [{from = 0, to = 2, label = \"low\"}]", "test.toml:23:1: tasks.generic.scale.anchors[0]: 0–2 is outside the scale 1–5"},
		{"anchors overlap", `max = 5`, "max = 5\nanchors = [{from = 1, to = 3, label = \"low\"}, {from = 3, to = 5, label = \"high\"}]", "tasks.generic.scale.anchors[1]: starts at 3, not after the previous anchor's end 3"},
		{"unknown task", `tasks.generic`, `tasks.poem`, `test.toml:14:1: tasks.poem: unknown task kind "poem"`},
		{"answer without format", `answer = "Answer [format]."`, `answer = "Answer in JSON."`, "test.toml:19:1: tasks.generic.answer: has no [format] placeholder"},
		{"missing system", `system = "You judge texts."`, ``, "test.toml:14:1: tasks.generic.system: empty"},
		{"no tasks", "[tasks.generic]", "[other]", "unknown key"},
		{"empty neutral", `text = "Stay calm."`, `text = ""`, "test.toml:12:1: neutrals[0].text: empty"},
		{"multi-line text", `text = "Stay calm."`, "text = \"\"\"\nStay calm.\n\"\"\"", "test.toml:12:1: neutrals[0].text: starts or ends with white space"},
	} {
		src := strings.ReplaceAll(minimal, tc.old, tc.new)
		if src == minimal {
			t.Fatalf("%s: edit did not apply", tc.name)
		}
		_, err := Parse([]byte(src), "test.toml")
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error\n%v\nwant it to contain %q", tc.name, err, tc.want)
		}
		if _, ok := err.(Errors); !ok {
			t.Errorf("%s: error type %T, want Errors", tc.name, err)
		}
	}
}

// TestParseReportsAllErrors: several problems are all reported, in line
// order.
func TestParseReportsAllErrors(t *testing.T) {
	src := strings.NewReplacer(`clause = "how long it is"`, `clause = ""`, `text = "Stay calm."`, `text = " x"`, `max = 5`, `max = 0`).Replace(minimal)
	_, err := Parse([]byte(src), "f.toml")
	es, ok := err.(Errors)
	if !ok || len(es) != 3 {
		t.Fatalf("got %v, want 3 errors", err)
	}
	for i, want := range []int{8, 12, 21} {
		if es[i].Line != want || es[i].File != "f.toml" {
			t.Errorf("error %d at %s:%d, want f.toml:%d (%v)", i, es[i].File, es[i].Line, want, es[i])
		}
	}
}

func TestScanKeys(t *testing.T) {
	src := `a = 1 # c = 2
s = """
x = 3
"""
[t]
"q.k" = 'v = 1'
arr = [
  {x = 1},
  "y = 2",
]
[[r]]
k = 1
[[r]]
k = 2
[r.sub]
m = 3
`
	got := map[string]int{}
	for _, k := range scanKeys([]byte(src)) {
		got[k.path] = k.line
	}
	want := map[string]int{"a": 1, "s": 2, "t": 5, "t.q.k": 6, "t.arr": 7, "r[0]": 11, "r[0].k": 12, "r[1]": 13, "r[1].k": 14, "r[1].sub": 15, "r[1].sub.m": 16}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("scanKeys\n got %v\nwant %v", got, want)
	}
}

// TestErrorLineSkipsStrings: text inside a multi-line string that looks
// like a table header does not shift the reported line.
func TestErrorLineSkipsStrings(t *testing.T) {
	src := "name = \"x\"\ndescription = \"\"\"\n[[attributes]]\nname = \"fake\"\"\"\"\n" + strings.TrimPrefix(minimal, "name = \"mini\"\n")
	src = strings.Replace(src, `clause = "how long it is"`, `clause = ""`, 1)
	_, err := Parse([]byte(src), "s.toml")
	if err == nil || err.Error() != "s.toml:11:1: attributes[0].clause: empty" {
		t.Errorf("error %v, want s.toml:11:1: attributes[0].clause: empty", err)
	}
}

// TestHashCoversEveryField changes each string and int field of a bank
// that has every optional field set, one at a time, and expects a new hash
// each time, so a field added later without being hashed fails here.
func TestHashCoversEveryField(t *testing.T) {
	b := mustParse(t, compact)
	b.Description, b.Source = "d", "s"
	b.Attributes[0].Minus, b.Attributes[0].Source = []string{"m"}, "as"
	b.Neutrals[0].Source, b.ContextProbes[0].Source = "ns", "cs"
	h0 := b.Hash()
	n := 0
	var mutate func(v reflect.Value, path string, changed func(string))
	mutate = func(v reflect.Value, path string, changed func(string)) {
		switch v.Kind() {
		case reflect.Struct:
			for i := 0; i < v.NumField(); i++ {
				mutate(v.Field(i), path+"."+v.Type().Field(i).Name, changed)
			}
		case reflect.Slice:
			for i := 0; i < v.Len(); i++ {
				mutate(v.Index(i), path, changed)
			}
		case reflect.Map: // Tasks: values are not addressable; edit a copy and store it back
			for _, k := range v.MapKeys() {
				cp := reflect.New(v.Type().Elem()).Elem()
				cp.Set(v.MapIndex(k))
				mutate(cp, path+"["+k.String()+"]", func(p string) {
					orig := v.MapIndex(k)
					v.SetMapIndex(k, cp)
					changed(p)
					v.SetMapIndex(k, orig)
				})
			}
		case reflect.String:
			old := v.String()
			v.SetString(old + "x")
			changed(path)
			v.SetString(old)
			n++
		case reflect.Int:
			old := v.Int()
			v.SetInt(old + 1)
			changed(path)
			v.SetInt(old)
			n++
		default:
			t.Errorf("%s: field kind %v not covered by this test", path, v.Kind())
		}
	}
	mutate(reflect.ValueOf(b).Elem(), "Bank", func(path string) {
		if b.Hash() == h0 {
			t.Errorf("changing %s leaves the hash unchanged", path)
		}
	})
	// Bank 3 + templates 2 + attribute 5 + neutral 3 + context probe 3 +
	// task 9 texts, min, max, 2 anchors × 3, 1 extra × 2 + the levels'
	// and joint tables' sources = 37 (their lists: TestHashSeesLevels).
	if n != 37 {
		t.Errorf("mutated %d fields, want 37", n)
	}
	if b.Hash() != h0 {
		t.Fatal("test left the bank changed")
	}
	// The task kind (a map key) is covered by TestHashSeesWording.
}

// Builtin and BuiltinFile parse the named bank alone, once, safely from
// several goroutines at a time, and give what Builtins gives.
func TestBuiltinLoadsOneBank(t *testing.T) {
	e := &builtinBank{name: "story"}
	var wg sync.WaitGroup
	got := make([]*Bank, 4)
	for i := range got {
		wg.Add(1)
		go func() { defer wg.Done(); got[i] = e.load().bank }()
	}
	wg.Wait()
	for _, b := range got[1:] {
		if b != got[0] {
			t.Fatal("a bank was parsed more than once")
		}
	}
	all := Builtins()
	for i, name := range builtinOrder {
		b, err := Builtin(name)
		if err != nil || b.Hash() != all[i].Hash() {
			t.Fatalf("Builtin(%s): %v, or not Builtins' bank", name, err)
		}
		file, err := BuiltinFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if p, err := Parse(file, name); err != nil || p.Hash() != b.Hash() {
			t.Fatalf("BuiltinFile(%s) does not parse to the bank: %v", name, err)
		}
	}
	if got[0].Hash() != all[slices.Index(builtinOrder, "story")].Hash() {
		t.Fatal("a bank loaded alone differs from Builtins'")
	}
	if _, err := BuiltinFile("nope"); err == nil || !strings.Contains(err.Error(), "quality, style8") {
		t.Errorf("BuiltinFile(nope) error %v should list the built-in names", err)
	}
}
