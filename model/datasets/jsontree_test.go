package datasets

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

func TestParseJSONKeepsOrderAndSpans(t *testing.T) {
	src := "{\n \"b\": 1,\n \"a\": [true, null, \"x\"],\n \"c\": {\"z\": 2.5e1}\n}"
	loc := newLocator("t.json", []byte(src))
	n, err := parseJSON(loc, 0, len(src))
	if err != nil {
		t.Fatal(err)
	}
	if !equalStrings(n.keys, []string{"b", "a", "c"}) {
		t.Fatalf("keys %v, want file order b a c", n.keys)
	}
	a := n.get("a")
	if line, col := loc.pos(a.off); line != 3 || col != 7 {
		t.Errorf("a at %d:%d, want 3:7", line, col)
	}
	if got := loc.asText(a); got != `[true,null,"x"]` {
		t.Errorf("asText(a) = %s", got)
	}
	z := n.get("c").get("z")
	if f, err := loc.asNumber(z, "c.z"); err != nil || f != 25 {
		t.Errorf("c.z = %v, %v", f, err)
	}
}

func TestParseJSONErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"{\n \"a\": 1,\n \"b\": tru\n}", "t.json:3:"},
		{"{\"a\": 1, \"a\": 2}", "t.json:1:10: a: duplicate key"},
		{"", "t.json:1:1: invalid JSON"},
		{"[1, 2", "t.json:1:"},
		{"{} {}", "t.json:1:"},
		{bigObject(20) + `, "k3": 0}`, "t.json:1:" + strconv.Itoa(len(bigObject(20))+3) + ": k3: duplicate key"},
		{bigObject(20) + `, "k19": 0}`, "t.json:1:" + strconv.Itoa(len(bigObject(20))+3) + ": k19: duplicate key"},
	} {
		loc := newLocator("t.json", []byte(tc.src))
		_, err := parseJSON(loc, 0, len(tc.src))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("parseJSON(%q) error = %v, want prefix %q", tc.src, err, tc.want)
		}
	}
}

func TestUnquoteMatchesEncodingJSON(t *testing.T) {
	for _, lit := range []string{
		`"plain"`, `"\u00e9t\u00E9"`, `"\ud83d\ude00"`, `"\ud83d"`, `"\ud83dx"`, `"\ude00\ud83d"`,
		`"\ud83d\u0041"`, `"a\/b\\c\"d"`, `"\b\f\n\r\t"`, "\"\xff\xfe ok\"", "\"caf\xc3\xa9\"", "\"\xe2\x82\"",
	} {
		var want string
		if err := json.Unmarshal([]byte(lit), &want); err != nil {
			t.Fatalf("%s: %v", lit, err)
		}
		loc := newLocator("t", []byte(lit))
		n, err := parseJSON(loc, 0, len(lit))
		if err != nil {
			t.Fatalf("%s: %v", lit, err)
		}
		if n.text != want {
			t.Errorf("%s: got %q, want %q (encoding/json)", lit, n.text, want)
		}
	}
}

// bigObject writes {"k0": 0, …, "kN-1": N-1 without its closing brace: more
// keys than the linear duplicate search handles.
func bigObject(n int) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, `"k%d": %d`, i, i)
	}
	return b.String()
}
