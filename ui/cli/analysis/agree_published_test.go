package analysis

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prism-eval/prism/calib/agree"
	"github.com/prism-eval/prism/model/shareddata"
	"github.com/prism-eval/prism/ui/cli/internal/clitest"
)

// The JudgeBench recipe of docs/agree.md on a real slice of the five
// reward models' published outputs (testdata/agree-judgebench,
// PROVENANCE.md): the pairs they score, read from the shared JudgeBench
// data, imported as the dataset, each model's two
// rewards per pair imported as its scores, then prism agree on the
// workspace. Each model's pairwise accuracy equals the share of pairs
// where JudgeBench's own decision (judgments[0].decision) is the label.
func TestAgreeJudgeBenchRewardModels(t *testing.T) {
	pairs := shareddata.Path(t, "judgebench/dataset=judgebench,response_model=gpt-4o-2024-05-13.jsonl")
	dir := filepath.Join("testdata", "agree-judgebench")
	ws := filepath.Join(t.TempDir(), "jb.db")
	outs, err := filepath.Glob(filepath.Join(dir, "*judge_name=reward_model,judge_model=*.jsonl"))
	if err != nil || len(outs) != 5 {
		t.Fatalf("%d reward-model outputs (%v), want 5", len(outs), err)
	}
	clitest.MustRun(t, "data", "import", "judgebench", scoredPairs(t, pairs, outs[0]), "--workspace", ws)
	want := map[string]float64{}
	for _, f := range outs {
		j := strings.TrimSuffix(f[strings.LastIndex(f, "judge_model=")+len("judge_model="):], ".jsonl")
		for _, side := range [][2]string{{"=A", "judgments[0].judgment.scores[0]"}, {"=B", "judgments[0].judgment.scores[1]"}} {
			clitest.MustRun(t, "import", "scores", "--workspace", ws, "--format", "jsonl", "--judge", j, "--dataset", "judgebench",
				"--context", "pair_id", "--candidate", side[0], "--score", side[1], f)
		}
		want[j] = decisionAccuracy(t, f)
	}
	out, _ := clitest.MustRun(t, "agree", "--json", "--workspace", ws)
	var got agree.Result
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got.Metric != agree.KeyPairwise || got.Contexts != 6 || got.Candidates != 12 || len(got.Judges) != 5 {
		t.Fatalf("metric %s, %d contexts, %d candidates, %d judges; want pairwise, 6, 12, 5", got.Metric, got.Contexts, got.Candidates, len(got.Judges))
	}
	for j, w := range want {
		if e, ok := got.Judges[j][agree.KeyPairwise]; !ok || math.Abs(e.Mean-w) > 1e-12 {
			t.Errorf("%s: pairwise %+v, want %g (JudgeBench's decisions)", j, e, w)
		}
	}
	if len(got.Pairs) != 10 {
		t.Errorf("%d paired differences, want 10", len(got.Pairs))
	}
}

// scoredPairs writes, in a temporary file, the lines of the JudgeBench
// pairs file whose pair_id an output file scores.
func scoredPairs(t *testing.T, pairs, output string) string {
	t.Helper()
	ids := map[string]bool{}
	for _, line := range jsonLines(t, output) {
		ids[pairID(t, line)] = true
	}
	var kept []string
	for _, line := range jsonLines(t, pairs) {
		if ids[pairID(t, line)] {
			kept = append(kept, line)
		}
	}
	if len(kept) != len(ids) {
		t.Fatalf("%s holds %d of the %d pairs %s scores", pairs, len(kept), len(ids), output)
	}
	path := filepath.Join(t.TempDir(), "judgebench-pairs.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(kept, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// jsonLines are a JSONL file's non-blank lines.
func jsonLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

func pairID(t *testing.T, line string) string {
	t.Helper()
	var o struct {
		PairID string `json:"pair_id"`
	}
	if err := json.Unmarshal([]byte(line), &o); err != nil || o.PairID == "" {
		t.Fatalf("a line without pair_id: %.80s (%v)", line, err)
	}
	return o.PairID
}

// decisionAccuracy is the share of a JudgeBench output's lines whose
// first judgment's decision is the label.
func decisionAccuracy(t *testing.T, path string) float64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var n, right float64
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var o struct {
			Label     string `json:"label"`
			Judgments []struct {
				Decision string `json:"decision"`
			} `json:"judgments"`
		}
		if err := json.Unmarshal(sc.Bytes(), &o); err != nil {
			t.Fatal(err)
		}
		n++
		if o.Judgments[0].Decision == o.Label {
			right++
		}
	}
	if err := sc.Err(); err != nil || n == 0 {
		t.Fatalf("%s: %v, %g lines", path, err, n)
	}
	return right / n
}

// The HANNA recipe of docs/agree.md on files in the published layouts
// (testdata/agree-hanna, PROVENANCE.md): docs/hanna_llm_scores.py turns
// hanna_metric_scores_llm.csv's per-generator lists into one scores file
// per LLM judge, keyed as prism data import hanna keys the stories. The
// fixture's ChatGPT ratings (prompt 1) are the human means and Beluga's
// their mirror image, so a story matched to the wrong candidate would
// break Spearman 1 and −1; ChatGPT's coherence ratings are the human
// coherence means, measured with --target coherence.
func TestAgreeHANNALLMJudges(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found: the HANNA recipe's converter is a Python script")
	}
	dir := filepath.Join("testdata", "agree-hanna")
	ann, met := filepath.Join(dir, "hanna_stories_annotations.csv"), filepath.Join(dir, "hanna_metric_scores_llm.csv")
	tmp := t.TempDir()
	ws := filepath.Join(tmp, "hanna.db")
	clitest.MustRun(t, "data", "import", "hanna", ann, "--workspace", ws)
	convert := func(out string, args ...string) []string {
		cmd := exec.Command(py, append([]string{filepath.Join("..", "..", "..", "docs", "hanna_llm_scores.py"), ann, met, out}, args...)...)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("hanna_llm_scores.py: %v\n%s", err, b)
		}
		files, _ := filepath.Glob(filepath.Join(out, "*.csv"))
		return files
	}
	files := convert(filepath.Join(tmp, "avg"))
	if len(files) != 5 {
		t.Fatalf("%d judges' files, want 5 (Beluga-13B, ChatGPT, Llama-13B, Mistral-7B, OrcaPlatypus)", len(files))
	}
	for _, f := range files {
		clitest.MustRun(t, "import", "scores", "--workspace", ws, "--judge", strings.TrimSuffix(filepath.Base(f), ".csv"), f)
	}
	got := agreeOf(t, "--workspace", ws)
	if len(got.Judges) != 5 || got.Contexts != 3 || got.Candidates != 9 {
		t.Fatalf("%d judges, %d contexts, %d candidates; want 5, 3, 9", len(got.Judges), got.Contexts, got.Candidates)
	}
	for j, want := range map[string]float64{"ChatGPT": 1, "Beluga-13B": -1} {
		for _, m := range []string{agree.KeySpearman, agree.KeyPearsonGlobal} {
			if e := got.Judges[j][m]; math.Abs(e.Mean-want) > 1e-12 {
				t.Errorf("%s %s: %g, want %g", j, m, e.Mean, want)
			}
		}
	}
	if got.Order[0] != "ChatGPT" || got.Order[4] != "Beluga-13B" {
		t.Errorf("order %v: want ChatGPT first, Beluga-13B last", got.Order)
	}
	ch := convert(filepath.Join(tmp, "ch"), "--criterion", "CH", "--prompt", "1")
	clitest.MustRun(t, "import", "scores", "--workspace", ws, "--judge", "ChatGPT-CH", filepath.Join(tmp, "ch", "ChatGPT.csv"))
	if len(ch) != 5 {
		t.Errorf("--criterion CH: %d files, want 5", len(ch))
	}
	got = agreeOf(t, "--workspace", ws, "--judge", "ChatGPT-CH", "--target", "coherence")
	if e := got.Judges["ChatGPT-CH"][agree.KeySpearman]; math.Abs(e.Mean-1) > 1e-12 {
		t.Errorf("ChatGPT's coherence ratings against the coherence labels: Spearman %g, want 1", e.Mean)
	}
}

func agreeOf(t *testing.T, args ...string) agree.Result {
	t.Helper()
	out, _ := clitest.MustRun(t, append([]string{"agree", "--json"}, args...)...)
	var r agree.Result
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	return r
}
