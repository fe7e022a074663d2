package analysis

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prism-eval/prism/ui/cli/internal/clitest"
)

func writeFile(t *testing.T, path, text string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// agreeJSON is prism agree --json's shape (docs/agree.md).
type agreeJSON struct {
	Judges map[string]map[string]struct {
		Mean float64    `json:"mean"`
		CI   [2]float64 `json:"ci"`
		N    int        `json:"n"`
	} `json:"judges"`
	Order []string `json:"order"`
	Pairs []struct {
		A, B, Metric string
		Mean         float64
		CI           [2]float64
	} `json:"pairs"`
	Study  map[string]map[string]any `json:"study"`
	Files  map[string]string         `json:"files"`
	Scales map[string]string         `json:"shared_scale"`
	Metric string                    `json:"metric"`
}

func runAgreeJSON(t *testing.T, args ...string) agreeJSON {
	t.Helper()
	code, out, errOut := clitest.RunPrism(t, append([]string{"agree", "--json", "--bootstrap", "200"}, args...)...)
	if code != 0 {
		t.Fatalf("prism agree %v: exit %d: %s", args, code, errOut)
	}
	var r agreeJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return r
}

// TestAgreeFiles: two judges from two files (named by their base names),
// one candidate the second judge did not score left out for both, the
// within-context Spearman of a hand-made case and the pair ordered best
// first.
func TestAgreeFiles(t *testing.T) {
	dir := t.TempDir()
	labels := writeFile(t, filepath.Join(dir, "l.csv"), "context,candidate,human\na,x,1\na,y,2\na,z,3\nb,x,3\nb,y,1\nb,z,2\n")
	good := writeFile(t, filepath.Join(dir, "good.csv"), "context,candidate,score\na,x,1\na,y,2\na,z,3\nb,x,3\nb,y,1\nb,z,2\n")
	// A probe column keeps its baseline rows; repeats are averaged.
	bad := writeFile(t, filepath.Join(dir, "bad.csv"), "context,candidate,probe,score\na,x,baseline,3\na,y,baseline,2\na,y,baseline,2\na,z,baseline,1\na,z,len:+,9\nb,x,baseline,1\nb,y,baseline,3\n")
	r := runAgreeJSON(t, "--scores", good, "--scores", bad, "--labels", labels, "--scale", "1-3")
	if strings.Join(r.Order, ",") != "good,bad" {
		t.Fatalf("order %v, want good,bad", r.Order)
	}
	// Context a: good ranks as the labels (1), bad reverses them (−1);
	// context b keeps x and y only (bad has no z): good 1, bad −1.
	if g, b := r.Judges["good"]["spearman"], r.Judges["bad"]["spearman"]; g.Mean != 1 || b.Mean != -1 || g.N != 2 {
		t.Errorf("spearman good %+v bad %+v, want 1 and −1 over 2 contexts", g, b)
	}
	if len(r.Pairs) != 1 || r.Pairs[0].A != "good" || r.Pairs[0].Mean != 2 {
		t.Errorf("pairs %+v, want good − bad = 2", r.Pairs)
	}
	if _, ok := r.Judges["good"]["mae"]; !ok || r.Scales["bad"] != "1-3" {
		t.Errorf("--scale 1-3: no MAE or scale in %+v / %v", r.Judges["good"], r.Scales)
	}
	if r.Files["bad"] != bad {
		t.Errorf("files %v", r.Files)
	}
	baseOnly := writeFile(t, filepath.Join(dir, "b.csv"), "context,candidate,probe,score\na,x,baseline,1\na,y,baseline,2\na,z,baseline,3\n")
	code, _, errOut := clitest.RunPrism(t, "fit", "--scores", baseOnly, "--labels", labels)
	if code != 1 || !strings.Contains(errOut, "prism agree --scores S.csv --labels L.csv") {
		t.Errorf("prism fit of baseline-only files: exit %d, stderr %q; want a pointer to prism agree", code, errOut)
	}
	code, out, _ := clitest.RunPrism(t, "agree", "--bootstrap", "50", "--scores", good, "--scores", bad, "--labels", labels)
	if code != 0 || !strings.Contains(out, "good − bad") || !strings.Contains(out, "spearman_global") || strings.Contains(out, "mae") {
		t.Errorf("text report (exit %d):\n%s", code, out)
	}
}

func TestAgreeErrors(t *testing.T) {
	dir := t.TempDir()
	labels := writeFile(t, filepath.Join(dir, "l.csv"), "context,candidate,human\na,x,1\na,y,2\n")
	noScore := writeFile(t, filepath.Join(dir, "j.csv"), "context,candidate,value\na,x,1\n")
	badNum := writeFile(t, filepath.Join(dir, "k.csv"), "context,candidate,score\na,x,1\na,y,high\n")
	okScores := writeFile(t, filepath.Join(dir, "ok.csv"), "context,candidate,score\na,x,1\na,y,2\n")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--scores", noScore}, 2, "go together"},
		{[]string{"--scores", noScore, "--labels", labels}, 1, `j.csv: line 1: no "score" column`},
		{[]string{"--scores", badNum, "--labels", labels}, 1, `k.csv: line 3: field "score"`},
		{[]string{"--scores", okScores, "--scores", okScores, "--labels", labels}, 1, "also in"},
		{[]string{"--scores", badNum, "--labels", labels, "--metric", "mae"}, 2, "--metric"},
		{[]string{"--scores", badNum, "--labels", labels, "--scale", "5"}, 2, "--scale"},
		{[]string{"--scores", badNum, "--labels", labels, "--judge", "x"}, 2, "not both"},
	} {
		code, _, errOut := clitest.RunPrism(t, append([]string{"agree"}, tc.args...)...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("prism agree %v: exit %d, stderr %q; want exit %d mentioning %q", tc.args, code, errOut, tc.code, tc.want)
		}
	}
}

// TestAgreeWorkspace: the offline judge (probed) and an imported judge
// without probes, each read as its study; the JSON names both studies, and
// the imported judge keeps its own scale (no bias or MAE).
func TestAgreeWorkspace(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "w.db")
	imported := filepath.Join(dir, "rm.csv")
	for _, args := range [][]string{
		{"data", "import", "demo", "--workspace", ws},
		{"run", "--workspace", ws, "--bank", "quality", "--backend", "offline", "--repeats", "2"},
		{"export", "scores", "--workspace", ws, "--dataset", "demo", "--judge", "offline", "-o", filepath.Join(dir, "s.csv")},
	} {
		if code, _, errOut := clitest.RunPrism(t, args...); code != 0 {
			t.Fatalf("prism %s: exit %d: %s", strings.Join(args, " "), code, errOut)
		}
	}
	// A reward model's logits, baseline only: the offline judge's
	// baseline scores negated and shifted off any 1–10 scale.
	raw, err := os.ReadFile(filepath.Join(dir, "s.csv"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("context,candidate,probe,score\n")
	for _, line := range strings.Split(string(raw), "\n")[1:] {
		f := strings.Split(line, ",")
		if len(f) >= 4 && f[2] == "baseline" && (len(f) < 5 || f[4] == "" || f[4] == "1") {
			b.WriteString(f[0] + "," + f[1] + ",baseline,-" + f[3] + "\n")
		}
	}
	writeFile(t, imported, b.String())
	if code, _, errOut := clitest.RunPrism(t, "import", "scores", "--workspace", ws, "--judge", "rm", imported); code != 0 {
		t.Fatalf("import: %s", errOut)
	}
	// prism fit on the probe-less judge points to prism agree.
	if code, _, errOut := clitest.RunPrism(t, "fit", "--workspace", ws, "--judge", "rm", "--bootstrap", "20"); code != 1 || !strings.Contains(errOut, "prism agree --judge NAME") {
		t.Errorf("prism fit of a judge without probes: exit %d, stderr %q; want a pointer to prism agree", code, errOut)
	}
	// --scale 1-5 is not the offline judge's bank scale (1–10).
	if r := runAgreeJSON(t, "--workspace", ws, "--scale", "1-5"); r.Scales["offline"] != "" {
		t.Errorf("offline shares the labels' 1-5 scale: %v", r.Scales)
	}
	r := runAgreeJSON(t, "--workspace", ws)
	if len(r.Judges) != 2 || r.Study["rm"] == nil || r.Study["offline"] == nil {
		t.Fatalf("judges %v, studies %v: want offline and rm, each with its study", r.Order, r.Study)
	}
	if r.Study["rm"]["bank_hash"] != nil && r.Study["rm"]["bank_hash"] != "" {
		t.Errorf("the imported judge's study has a bank: %v", r.Study["rm"])
	}
	if r.Order[0] != "offline" || r.Judges["rm"]["spearman"].Mean >= 0 {
		t.Errorf("order %v, rm spearman %v: the negated judge should rank last, below 0", r.Order, r.Judges["rm"]["spearman"])
	}
	if _, ok := r.Judges["rm"]["mae"]; ok {
		t.Errorf("rm keeps its own scale: no MAE expected")
	}
}

// TestAgreeTarget: --target reads one criterion: a column of the label
// file (an empty cell is a missing label), or a criterion of the
// workspace dataset; the report and each study record it.
func TestAgreeTarget(t *testing.T) {
	dir := t.TempDir()
	labels := writeFile(t, filepath.Join(dir, "l.csv"), "context,candidate,human,fluency\na,x,1,3\na,y,2,2\na,z,3,\nb,x,1,1\nb,y,2,2\n")
	judge := writeFile(t, filepath.Join(dir, "j.csv"), "context,candidate,score\na,x,1\na,y,2\na,z,3\nb,x,1\nb,y,2\n")
	if r := runAgreeJSON(t, "--scores", judge, "--labels", labels); r.Judges["j"]["spearman"].Mean != 1 {
		t.Errorf("overall: spearman %v, want 1", r.Judges["j"]["spearman"])
	}
	// Fluency reverses context a (z unlabelled) and agrees on b: (−1 + 1)/2.
	code, out, errOut := clitest.RunPrism(t, "agree", "--json", "--bootstrap", "50", "--scores", judge, "--labels", labels, "--target", "fluency")
	if code != 0 || !strings.Contains(out, `"target": "fluency"`) {
		t.Fatalf("exit %d: %s %s", code, errOut, out)
	}
	var r agreeJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if e := r.Judges["j"]["spearman"]; e.Mean != 0 || r.Judges["j"]["pairwise"].Mean != 0.5 {
		t.Errorf("fluency: spearman %v pairwise %v, want 0 and ½", e, r.Judges["j"]["pairwise"])
	}
	if code, _, errOut := clitest.RunPrism(t, "agree", "--scores", judge, "--labels", labels, "--target", "grammar"); code != 1 || !strings.Contains(errOut, `no "grammar" column`) {
		t.Errorf("unknown column: exit %d %q", code, errOut)
	}

	ws := filepath.Join(dir, "w.db")
	for _, args := range [][]string{
		{"data", "import", "demo", "--workspace", ws},
		{"run", "--workspace", ws, "--bank", "quality", "--backend", "offline"},
	} {
		if code, _, errOut := clitest.RunPrism(t, args...); code != 0 {
			t.Fatalf("prism %v: %s", args, errOut)
		}
	}
	all := runAgreeJSON(t, "--workspace", ws)
	coh := runAgreeJSON(t, "--workspace", ws, "--target", "coherence")
	if coh.Study["offline"]["target"] != "coherence" {
		t.Errorf("study %v does not record the target", coh.Study["offline"])
	}
	if coh.Judges["offline"]["spearman"].Mean == all.Judges["offline"]["spearman"].Mean {
		t.Error("coherence and the overall target give the same Spearman")
	}
	if code, _, errOut := clitest.RunPrism(t, "agree", "--workspace", ws, "--target", "wit"); code != 1 || !strings.Contains(errOut, "its criteria: coherence, consistency, fluency, relevance") {
		t.Errorf("unknown criterion: exit %d %q", code, errOut)
	}
}
