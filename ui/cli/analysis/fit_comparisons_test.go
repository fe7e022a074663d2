package analysis

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/ui/cli/internal/clitest"
)

// mtbenchFixture is MT-Bench's expert judgments in their published
// layout (testdata/mtbench/PROVENANCE.md).
var mtbenchFixture = filepath.Join("testdata", "mtbench", "mt_bench_human_judgments.jsonl")

// fixtureComparisons reads the fixture's non-tie judgments as
// "QUESTION/TURN" → [winner, loser] pairs, without prism's loader.
func fixtureComparisons(t *testing.T) map[string][][2]string {
	t.Helper()
	f, err := os.Open(mtbenchFixture)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][][2]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r struct {
			Q      int    `json:"question_id"`
			Turn   int    `json:"turn"`
			A      string `json:"model_a"`
			B      string `json:"model_b"`
			Winner string `json:"winner"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		ctx := fmt.Sprintf("%d/%d", r.Q, r.Turn)
		switch r.Winner {
		case "model_a":
			out[ctx] = append(out[ctx], [2]string{r.A, r.B})
		case "model_b":
			out[ctx] = append(out[ctx], [2]string{r.B, r.A})
		}
	}
	return out
}

// TestFitMTBenchOnComparisons: MT-Bench's judgments in their published
// layout import (target: the win rate), the offline judge answers the
// answer bank, and prism fit (metric pairwise, the dataset's own)
// evaluates on the individual non-tie comparisons: Vanilla's value per
// context is the share of its comparisons the baseline scores order so
// (½ for a tie), computed here from the fixture and the exported scores.
func TestFitMTBenchOnComparisons(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "w.db")
	for _, args := range [][]string{
		{"data", "import", "mtbench", mtbenchFixture, "--workspace", ws},
		{"run", "--workspace", ws, "--bank", "answer", "--backend", "offline"},
	} {
		if code, _, errOut := clitest.RunPrism(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
	}
	code, out, errOut := clitest.RunPrism(t, "fit", "--workspace", ws, "--json", "--bootstrap", "200")
	if code != 0 {
		t.Fatalf("fit: exit %d: %s", code, errOut)
	}
	var rep calib.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	comps := fixtureComparisons(t)
	s0 := clitest.BaselineScores(t, ws)
	want := map[string]float64{}
	total := 0
	for ctx, cs := range comps {
		var credit float64
		for _, c := range cs {
			w, l := s0[ctx+"/"+c[0]], s0[ctx+"/"+c[1]]
			switch {
			case w > l:
				credit++
			case w == l:
				credit += 0.5
			}
		}
		want[ctx] = credit / float64(len(cs))
		total += len(cs)
	}
	if rep.Metric != "pairwise" || rep.Comparisons != total || total == 0 {
		t.Errorf("metric %s on %d comparisons; want pairwise on the fixture's %d", rep.Metric, rep.Comparisons, total)
	}
	got := rep.Methods.Vanilla.PerContext
	ctxs := make([]string, 0, len(want))
	for c := range want {
		ctxs = append(ctxs, c)
	}
	sort.Strings(ctxs)
	var mean float64
	for _, c := range ctxs {
		mean += want[c]
		if got[c] != want[c] {
			t.Errorf("context %s: Vanilla %v, want %v", c, got[c], want[c])
		}
	}
	mean /= float64(len(ctxs))
	if len(got) != len(want) || math.Abs(rep.Methods.Vanilla.Mean-mean) > 1e-12 {
		t.Errorf("Vanilla %v over %d contexts, want %v over %d", rep.Methods.Vanilla.Mean, len(got), mean, len(want))
	}
	if rep.Methods.PRISM == nil || len(rep.Methods.PRISM.PerContext) != len(want) {
		t.Error("PRISM not evaluated on the contexts with comparisons")
	}
	// The human-readable report names the comparisons.
	if code, out, _ := clitest.RunPrism(t, "fit", "--workspace", ws, "--bootstrap", "50"); code != 0 ||
		!strings.Contains(out, fmt.Sprintf("metric pairwise on %d human comparisons", total)) {
		t.Errorf("report header: %s", out)
	}
}

// TestFitComparisonsFile: --comparisons with every pair of unequal labels
// gives the report of --metric pairwise (but for the count); errors name
// the file and line, and misuse is a usage error.
func TestFitComparisonsFile(t *testing.T) {
	scores, labels := writeFitFiles(t, 6)
	dir := t.TempDir()
	recs, err := readCSVFile(labels)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("context,winner,loser\n")
	n := 0
	for i, a := range recs[1:] {
		for _, c := range recs[i+2:] {
			ha, _ := strconv.ParseFloat(a[2], 64)
			hc, _ := strconv.ParseFloat(c[2], 64)
			switch {
			case a[0] != c[0] || ha == hc:
				continue
			case ha > hc:
				fmt.Fprintf(&b, "%s,%s,%s\n", a[0], a[1], c[1])
			default:
				fmt.Fprintf(&b, "%s,%s,%s\n", a[0], c[1], a[1])
			}
			n++
		}
	}
	comps := filepath.Join(dir, "C.csv")
	os.WriteFile(comps, []byte(b.String()), 0o644)
	code, plain, errOut := runFitCmd("--scores", scores, "--labels", labels, "--metric", "pairwise", "--json", "--bootstrap", "100")
	if code != 0 {
		t.Fatal(errOut)
	}
	code, withC, errOut := runFitCmd("--scores", scores, "--labels", labels, "--comparisons", comps, "--json", "--bootstrap", "100")
	if code != 0 {
		t.Fatal(errOut)
	}
	count := fmt.Sprintf("  \"comparisons\": %d,\n", n)
	if !strings.Contains(withC, count) || strings.Replace(withC, count, "", 1) != plain {
		t.Errorf("--comparisons of every unequal pair: the report is not --metric pairwise's plus %q", count)
	}

	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("context,winner,loser\ndoc00,sys1,sys2\ndoc00,sys3,sys3\n"), 0o644)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--scores", scores, "--labels", labels, "--comparisons", bad}, 1, "bad.csv:3:"},
		{[]string{"--scores", scores, "--labels", labels, "--comparisons", comps, "--metric", "spearman"}, 2, "not with --metric spearman"},
		{[]string{"--scores", scores, "--labels", labels, "--comparisons", comps, "--global"}, 2, "not with --global"},
		{[]string{"--workspace", filepath.Join(dir, "none.db"), "--comparisons", comps}, 2, "--comparisons goes with --scores and --labels"},
	} {
		code, _, errOut := runFitCmd(tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d %q; want %d and %q", tc.args, code, errOut, tc.code, tc.want)
		}
	}
}

func readCSVFile(path string) ([][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return csv.NewReader(f).ReadAll()
}
