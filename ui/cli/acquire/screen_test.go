package acquire

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prism-eval/prism/ui/cli/internal/clitest"
)

// TestScreenDemo: the screen runs the quality bank on 6 of the demo's 12
// contexts with 2 runs, reports every unit, and what it sent is reused by
// a rerun and by a later full run.
func TestScreenDemo(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "ws.db")
	clitest.MustRun(t, "data", "import", "demo", "--workspace", ws)
	out, errOut := clitest.MustRun(t, "screen", "--workspace", ws, "--mode", "expected", "--contexts", "6", "--bootstrap", "200", "--json")
	var doc screenJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(errOut, "2280 to send") { // 30 candidates × 38 conditions × 2 runs
		t.Errorf("stderr:\n%s", errOut)
	}
	r := doc.Signal
	if len(doc.Contexts) != 6 || doc.Bank != "quality" || doc.Judge != "offline-expected" || r.Runs != 2 || r.Contexts != 6 || len(r.Units) != 8 {
		t.Fatalf("contexts %v, bank %s, judge %s, runs %d, %d contexts, %d units", doc.Contexts, doc.Bank, doc.Judge, r.Runs, r.Contexts, len(r.Units))
	}
	if !r.Pooled.Pass || r.Neutral.N == 0 || !(r.RepeatRMS > 0) {
		t.Errorf("pooled %+v, neutral %+v, repeat %v", r.Pooled, r.Neutral, r.RepeatRMS)
	}
	if r.Pooling != "wording-mean" {
		t.Errorf("pooling %q, want wording-mean by default", r.Pooling)
	}
	for _, u := range r.Units {
		if u.N != 30*2*2 || u.Contexts != 6 || u.TooFew { // candidates × runs × signs: wordings averaged
			t.Errorf("unit %s: N %d over %d contexts (too few %v), want 120 over 6", u.Name, u.N, u.Contexts, u.TooFew)
		}
	}

	// --per-wording pools each of the 2 wordings separately: twice the N,
	// and a different ratio.
	out, _ = clitest.MustRun(t, "screen", "--workspace", ws, "--mode", "expected", "--contexts", "6", "--bootstrap", "200", "--per-wording", "--json")
	var pw screenJSON
	if err := json.Unmarshal([]byte(out), &pw); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if pw.Signal.Pooling != "per-wording" || len(pw.Signal.Units) != len(r.Units) {
		t.Fatalf("--per-wording: pooling %q, %d units", pw.Signal.Pooling, len(pw.Signal.Units))
	}
	for i, u := range pw.Signal.Units {
		if u.N != 30*2*2*2 || u.Ratio == r.Units[i].Ratio { // candidates × runs × signs × wordings
			t.Errorf("--per-wording unit %s: N %d ratio %v (default %v), want N 240 and another ratio", u.Name, u.N, u.Ratio, r.Units[i].Ratio)
		}
	}

	out, _ = clitest.MustRun(t, "screen", "--workspace", ws, "--mode", "expected", "--contexts", "6", "--bootstrap", "200")
	for _, want := range []string{"2280 answered, 0 from cache, 0 to send", "signal screen", "wordings averaged within sign and run", "coverage", "pooled", "units pass", "components across runs", "neutral clauses across runs"} {
		if !strings.Contains(out, want) {
			t.Errorf("rerun output lacks %q:\n%s", want, out)
		}
	}
	out, _ = clitest.MustRun(t, "run", "--workspace", ws, "--bank", "quality", "--mode", "expected", "--repeats", "2", "--dry-run")
	if !strings.Contains(out, "4560 in all, 2280 answered") {
		t.Errorf("full run after the screen:\n%s", out)
	}
	// Selection on what the screen scored: the other candidates are left out.
	out, errOut = clitest.MustRun(t, "select", "--workspace", ws, "--judge", "offline-expected", "--forward=false", "--json")
	var sel struct {
		NContexts int `json:"n_contexts"`
	}
	if err := json.Unmarshal([]byte(out), &sel); err != nil || sel.NContexts != 6 || !strings.Contains(errOut, "30 labelled candidates") {
		t.Errorf("select after the screen: %d contexts, %v, stderr %q", sel.NContexts, err, errOut)
	}
}

func TestScreenUsageErrors(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "ws.db")
	clitest.MustRun(t, "data", "import", "demo", "--workspace", ws)
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"screen", "--workspace", ws, "--repeats", "0"}, 2, "--repeats 0: want at least 1"},
		{[]string{"screen", "--workspace", ws, "--runs", "0"}, 2, "--repeats 0: want at least 1"},
		{[]string{"screen", "--workspace", ws, "--runs", "2", "--repeats", "2"}, 2, "give only --repeats"},
		{[]string{"screen", "--workspace", ws, "--contexts", "-1"}, 2, "--contexts -1"},
		{[]string{"screen", "--workspace", ws, "--bootstrap", "0"}, 2, "--bootstrap 0"},
		{[]string{"screen", "--workspace", ws, "x"}, 2, `unexpected argument "x"`},
		{[]string{"screen", "--workspace", ws, "--bank", "nope"}, 1, `no bank "nope"`},
		{[]string{"screen", "--workspace", filepath.Join(t.TempDir(), "none.db")}, 1, "no workspace"},
	}
	for _, tt := range tests {
		code, _, errOut := clitest.RunCmd(tt.args...)
		if code != tt.code || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tt.args[1:], code, errOut, tt.code, tt.want)
		}
	}
}

// TestScreenOneRun: with --repeats 1 there is no repeat reference; the table
// says so instead of printing numbers. Four contexts are fewer than
// signal.MinContexts: no unit gets a verdict or an interval.
func TestScreenOneRun(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "ws.db")
	clitest.MustRun(t, "data", "import", "demo", "--workspace", ws)
	out, _ := clitest.MustRun(t, "screen", "--workspace", ws, "--contexts", "4", "--repeats", "1", "--bootstrap", "100")
	if !strings.Contains(out, "one run: no repeat reference") || strings.Contains(out, "components across runs") {
		t.Errorf("output:\n%s", out)
	}
	if !strings.Contains(out, "0 of 8 units pass; 8 too few to judge") || strings.Contains(out, " pass\n") || strings.Contains(out, " fail\n") {
		t.Errorf("4 contexts should give no verdicts:\n%s", out)
	}
	for _, name := range []string{"accuracy", "safety", "pooled"} {
		if line := lineOf(out, name+" "); !strings.HasSuffix(strings.TrimSpace(line), "too few (4 contexts)") || strings.Contains(line, "[") {
			t.Errorf("row of %s: %q", name, line)
		}
	}
}

// lineOf is the first line of s that starts with prefix.
func lineOf(s, prefix string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}
