package data

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/ui/cli/internal/clitest"
)

// TestHelpSteer2ImportFit: HelpSteer2's validation split in its published
// layout imports with prism data import helpsteer2, the offline judge
// answers it, and prism fit evaluates pairwise toward helpfulness or,
// with --target, another attribute: Vanilla per prompt is checked
// against the exported baseline scores and the file's ratings (a
// response pair rated equal is left out).
func TestHelpSteer2ImportFit(t *testing.T) {
	fixture := logFixture("helpsteer2", "validation.jsonl")
	ws := filepath.Join(t.TempDir(), "w.db")
	code, out, errOut := clitest.RunPrism(t, "data", "import", "helpsteer2", fixture, "--workspace", ws)
	if code != 0 || !strings.Contains(out, "imported helpsteer2: 6 contexts, 12 candidates (format helpsteer2, task answer, metric pairwise)") {
		t.Fatalf("import: exit %d %s %s", code, out, errOut)
	}
	if code, _, errOut := clitest.RunPrism(t, "run", "--workspace", ws, "--bank", "answer", "--backend", "offline"); code != 0 {
		t.Fatal(errOut)
	}
	s0 := clitest.BaselineScores(t, ws)
	// The file read here on its own: per prompt, the responses' ratings.
	f, err := os.Open(fixture)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rated := map[string][]map[string]float64{}
	var order []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r map[string]any
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256([]byte(r["prompt"].(string)))
		ctx := hex.EncodeToString(sum[:8])
		if rated[ctx] == nil {
			order = append(order, ctx)
		}
		m := map[string]float64{}
		for _, a := range []string{"helpfulness", "correctness"} {
			m[a] = r[a].(float64)
		}
		rated[ctx] = append(rated[ctx], m)
	}
	for _, target := range []string{"helpfulness", "correctness"} {
		args := []string{"fit", "--workspace", ws, "--json", "--bootstrap", "50"}
		if target != "helpfulness" {
			args = append(args, "--target", target)
		}
		code, out, errOut := clitest.RunPrism(t, args...)
		if code != 0 {
			t.Fatalf("%s: %s", target, errOut)
		}
		var rep calib.Report
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		want := map[string]float64{}
		for _, ctx := range order {
			rs := rated[ctx]
			h1, h2 := rs[0][target], rs[1][target]
			p1, p2 := s0[ctx+"/r1"], s0[ctx+"/r2"]
			switch {
			case h1 == h2:
				continue // a human tie: no pair
			case p1 == p2:
				want[ctx] = 0.5
			case (p1 > p2) == (h1 > h2):
				want[ctx] = 1
			default:
				want[ctx] = 0
			}
		}
		got := rep.Methods.Vanilla.PerContext
		if rep.Metric != "pairwise" || len(got) != len(want) {
			t.Errorf("%s: metric %s on %d contexts, want pairwise on %d", target, rep.Metric, len(got), len(want))
		}
		var mean float64
		for ctx, v := range want {
			mean += v
			if got[ctx] != v {
				t.Errorf("%s: context %s: Vanilla %v, want %v", target, ctx, got[ctx], v)
			}
		}
		if mean /= float64(len(want)); math.Abs(rep.Methods.Vanilla.Mean-mean) > 1e-12 {
			t.Errorf("%s: Vanilla mean %v, want %v", target, rep.Methods.Vanilla.Mean, mean)
		}
		if target != "helpfulness" && (rep.Study == nil || rep.Study.Target != target) {
			t.Errorf("the report does not record --target %s: %+v", target, rep.Study)
		}
	}
	if code, _, errOut := clitest.RunPrism(t, "data", "import", "helpsteer2", filepath.Join(t.TempDir(), "none.jsonl"), "--workspace", ws, "--name", "x"); code == 0 || !strings.Contains(errOut, "none.jsonl") {
		t.Errorf("missing file: exit %d %s", code, errOut)
	}
}
