package cli

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prism-eval/prism/calib/agree"
)

// The JudgeBench recipe of docs/agree.md on a real slice of the five
// reward models' published outputs (testdata/agree-judgebench,
// PROVENANCE.md): the pairs imported as the dataset, each model's two
// rewards per pair imported as its scores, then prism agree on the
// workspace. Each model's pairwise accuracy equals the share of pairs
// where JudgeBench's own decision (judgments[0].decision) is the label.
func TestAgreeJudgeBenchRewardModels(t *testing.T) {
	dir := filepath.Join("testdata", "agree-judgebench")
	ws := filepath.Join(t.TempDir(), "jb.db")
	mustRun(t, "data", "import", "judgebench", filepath.Join(dir, "dataset=judgebench,response_model=gpt-4o-2024-05-13.jsonl"), "--workspace", ws)
	outs, err := filepath.Glob(filepath.Join(dir, "*judge_name=reward_model,judge_model=*.jsonl"))
	if err != nil || len(outs) != 5 {
		t.Fatalf("%d reward-model outputs (%v), want 5", len(outs), err)
	}
	want := map[string]float64{}
	for _, f := range outs {
		j := strings.TrimSuffix(f[strings.LastIndex(f, "judge_model=")+len("judge_model="):], ".jsonl")
		for _, side := range [][2]string{{"=A", "judgments[0].judgment.scores[0]"}, {"=B", "judgments[0].judgment.scores[1]"}} {
			mustRun(t, "import", "scores", "--workspace", ws, "--format", "jsonl", "--judge", j, "--dataset", "judgebench",
				"--context", "pair_id", "--candidate", side[0], "--score", side[1], f)
		}
		want[j] = decisionAccuracy(t, f)
	}
	out, _ := mustRun(t, "agree", "--json", "--workspace", ws)
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
