package analysis

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prism-eval/prism/ui/cli/internal/clitest"
)

// prism fit --protocol confirm on the demo (offline judge, quality bank):
// the workspace and the exported CSV files give the same report; under the
// dataset's name the 12 articles split 8 exploration / 4 confirmation
// (docs/protocol.md §13); the printed report is shaped like Table 21.
func TestFitConfirmDemo(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "w.db")
	s, l := filepath.Join(dir, "s.csv"), filepath.Join(dir, "l.csv")
	for _, args := range [][]string{
		{"data", "import", "demo", "--workspace", ws},
		{"run", "--workspace", ws, "--bank", "quality", "--backend", "offline", "--repeats", "2"},
		{"export", "scores", "--workspace", ws, "--dataset", "demo", "--judge", "offline", "-o", s},
		{"export", "labels", "--workspace", ws, "--dataset", "demo", "-o", l},
	} {
		if code, _, errOut := clitest.RunPrism(t, args...); code != 0 {
			t.Fatalf("prism %s: exit %d: %s", strings.Join(args, " "), code, errOut)
		}
	}
	confirm := func(args ...string) (string, map[string]any) {
		t.Helper()
		code, out, errOut := clitest.RunPrism(t, append([]string{"fit", "--protocol", "confirm", "--bootstrap", "300"}, args...)...)
		if code != 0 {
			t.Fatalf("prism fit --protocol confirm %v: exit %d: %s", args, code, errOut)
		}
		var m map[string]any
		if strings.Contains(strings.Join(args, " "), "--json") {
			if err := json.Unmarshal([]byte(out), &m); err != nil {
				t.Fatal(err)
			}
		}
		return out, m
	}
	wsOut, fromWS := confirm("--workspace", ws, "--json")
	csvOut, _ := confirm("--scores", s, "--labels", l, "--benchmark", "demo", "--json")
	if wsOut != csvOut {
		t.Fatalf("workspace and CSV confirmations differ:\n%s\n%s", wsOut, csvOut)
	}
	if fromWS["benchmark"] != "demo" || fromWS["metric"] != "pairwise" || fromWS["protocol"] != "confirm" {
		t.Errorf("benchmark %v, metric %v, protocol %v", fromWS["benchmark"], fromWS["metric"], fromWS["protocol"])
	}
	split := fromWS["split"].(map[string]any)
	if n, c := len(split["exploration"].([]any)), len(split["confirmation"].([]any)); n != 8 || c != 4 {
		t.Errorf("split %d / %d, want 8 / 4", n, c)
	}
	pools := fromWS["pools"].([]any)
	if len(pools) != 5 {
		t.Fatalf("%d pools, want 5", len(pools))
	}
	if p := pools[4].(map[string]any); p["name"] != "one-sided" || p["applicable"] != false {
		t.Errorf("one-sided pool on a bank without context probes: %v", p)
	}
	if p := pools[2].(map[string]any); p["name"] != "all" || len(p["columns"].([]any)) != 16 {
		t.Errorf("all-units pool: %v", p)
	}

	text, _ := confirm("--workspace", ws)
	for _, want := range []string{"benchmark demo: 8 exploration contexts", "Rubric-free", "Vanilla",
		"PRISM: all passing (primary)", "PRISM: all units", "α-PRISM: all units", "not applicable:", "one-sided instructions only"} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
	// Another benchmark name is another split (news: 7 exploration
	// contexts); --metric overrides pairwise.
	_, other := confirm("--workspace", ws, "--json", "--benchmark", "news", "--metric", "spearman", "--pools", "all")
	if other["metric"] != "spearman" || len(other["pools"].([]any)) != 1 {
		t.Errorf("metric %v, %d pools", other["metric"], len(other["pools"].([]any)))
	}
	if n := len(other["split"].(map[string]any)["exploration"].([]any)); n != 7 {
		t.Errorf("benchmark news (%d exploration, want 7)", n)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--protocol", "holdout", "--workspace", ws}, `--protocol "holdout"`},
		{[]string{"--benchmark", "x", "--workspace", ws}, "--benchmark applies to --protocol confirm"},
		{[]string{"--protocol", "confirm", "--save", filepath.Join(dir, "c.json"), "--workspace", ws}, "--save does not apply"},
		{[]string{"--protocol", "confirm", "--scores", s, "--labels", l}, "needs --benchmark"},
		{[]string{"--protocol", "confirm", "--pools", "primary,best", "--workspace", ws}, `pool "best"`},
	} {
		code, _, errOut := clitest.RunPrism(t, append([]string{"fit"}, tc.args...)...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("prism fit %v: exit %d, stderr %q; want exit 2 mentioning %q", tc.args, code, errOut, tc.want)
		}
	}
}
