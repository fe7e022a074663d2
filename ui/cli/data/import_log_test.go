package data

import (
	"archive/zip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/prism-eval/prism/ui/cli/internal/clitest"
)

// The logs here are real files written by Inspect AI and promptfoo
// (model/datasets/testdata/*/PROVENANCE.md).
func logFixture(dir, name string) string {
	return filepath.Join("..", "..", "..", "model", "datasets", "testdata", dir, name)
}

// exportedRows runs prism export scores and returns its rows as sorted
// "context,candidate,run,score" lines.
func exportedRows(t *testing.T, ws string, args ...string) []string {
	t.Helper()
	code, out, errOut := clitest.RunPrism(t, append([]string{"export", "scores", "--workspace", ws}, args...)...)
	if code != 0 {
		t.Fatalf("export scores: exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if lines[0] != "context,candidate,probe,score,run,wording" {
		t.Fatalf("header %q", lines[0])
	}
	var rows []string
	for _, l := range lines[1:] {
		f := strings.Split(l, ",")
		rows = append(rows, f[0]+","+f[1]+","+f[4]+","+f[3])
	}
	sort.Strings(rows)
	return rows
}

func gnum(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// inspectValue converts a scorer's value as Inspect's value_to_float
// does, written here again so that the check does not share the
// importer's code.
func inspectValue(v any) string {
	switch x := v.(type) {
	case float64:
		return gnum(x)
	case bool:
		if x {
			return "1"
		}
		return "0"
	case string:
		switch strings.ToLower(x) {
		case "c", "yes", "true":
			return "1"
		case "i", "n", "no", "false":
			return "0"
		case "p":
			return "0.5"
		}
	}
	return fmt.Sprint("?", v)
}

// readInspectIndependently reads a log with encoding/json and
// archive/zip: the rows (sample id, model, epoch, value) it should give.
func readInspectIndependently(t *testing.T, file string) []string {
	t.Helper()
	type sample struct {
		ID     any                       `json:"id"`
		Epoch  int                       `json:"epoch"`
		Scores map[string]map[string]any `json:"scores"`
	}
	var model string
	var samples []sample
	if strings.HasSuffix(file, ".json") {
		var log struct {
			Eval    struct{ Model string }
			Samples []sample
		}
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &log); err != nil {
			t.Fatal(err)
		}
		model, samples = log.Eval.Model, log.Samples
	} else {
		zr, err := zip.OpenReader(file)
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		for _, f := range zr.File {
			rc, _ := f.Open()
			b, _ := io.ReadAll(rc)
			rc.Close()
			switch {
			case f.Name == "header.json":
				var h struct{ Eval struct{ Model string } }
				json.Unmarshal(b, &h)
				model = h.Eval.Model
			case strings.HasPrefix(f.Name, "samples/"):
				var s sample
				json.Unmarshal(b, &s)
				samples = append(samples, s)
			}
		}
	}
	var rows []string
	for _, s := range samples {
		rows = append(rows, fmt.Sprintf("%v,%s,%d,%s", s.ID, model, s.Epoch, inspectValue(s.Scores["match"]["value"])))
	}
	return rows
}

func TestImportInspectExportMatches(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "w.db")
	files := []string{logFixture("inspect", "log_formats.eval"), logFixture("inspect", "log_read_sample.json"), logFixture("inspect", "popularity_gpt-4o-mini.eval")}
	// One log, the exact invocation.
	code, out, errOut := clitest.RunPrism(t, "import", "scores", "--format", "inspect", "--judge", "one", "--workspace", ws, "--dataset", "single", files[0])
	if code != 0 || !strings.Contains(out, "created dataset single: 1 contexts, 1 candidates") {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	if got, want := exportedRows(t, ws, "--judge", "one", "--dataset", "single"), readInspectIndependently(t, files[0]); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("export\n%v\nwant\n%v", got, want)
	}
	// Three logs of the task, one per model: one dataset.
	code, out, errOut = clitest.RunPrism(t, append([]string{"import", "scores", "--format", "inspect", "--judge", "match", "--workspace", ws}, files...)...)
	if code != 0 || !strings.Contains(out, "created dataset popularity: 10 contexts, 12 candidates") {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	var want []string
	for _, f := range files {
		want = append(want, readInspectIndependently(t, f)...)
	}
	sort.Strings(want)
	got := exportedRows(t, ws, "--judge", "match", "--dataset", "popularity")
	if strings.Join(got, "\n") != strings.Join(want, "\n") || len(got) != 12 {
		t.Errorf("export\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// A second judge on the same task reuses the stored dataset; a log
	// of a model it lacks is refused, naming the way out.
	code, _, errOut = clitest.RunPrism(t, "import", "scores", "--format", "inspect", "--judge", "again", "--workspace", ws, files[2])
	if code != 0 {
		t.Fatalf("re-use: %s", errOut)
	}
	code, _, errOut = clitest.RunPrism(t, "import", "scores", "--format", "inspect", "--judge", "other", "--workspace", ws, logFixture("inspect", "log_formats.json"), "--dataset", "single")
	if code != 0 {
		t.Fatalf("same candidates: %s", errOut)
	}
	code, _, errOut = clitest.RunPrism(t, "import", "scores", "--format", "inspect", "--judge", "x", "--workspace", ws, "--dataset", "single", files[2])
	if code != 1 || !strings.Contains(errOut, `is not in the stored dataset "single"`) {
		t.Errorf("unknown candidate: exit %d %s", code, errOut)
	}
}

// readPromptfooIndependently reads a promptfoo results file with
// encoding/json: doc, system, repeat (counted), and the chosen score.
func readPromptfooIndependently(t *testing.T, file, score string) []string {
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Results struct {
			Results []struct {
				Vars        map[string]string
				NamedScores map[string]float64
				Response    struct{ Output string }
			}
		}
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	reply := regexp.MustCompile(`^Score: (\d+)$`)
	seen := map[string]int{}
	var rows []string
	for _, r := range f.Results.Results {
		key := r.Vars["doc"] + "," + r.Vars["system"]
		seen[key]++
		v := gnum(r.NamedScores["quality"])
		if score == "output" {
			v = reply.FindStringSubmatch(r.Response.Output)[1]
		}
		rows = append(rows, fmt.Sprintf("%s,%d,%s", key, seen[key], v))
	}
	sort.Strings(rows)
	return rows
}

func TestImportPromptfooExportMatches(t *testing.T) {
	for _, file := range []string{"results.json", "export.json"} {
		ws := filepath.Join(t.TempDir(), "w.db")
		path := logFixture("promptfoo", file)
		for _, score := range []string{"output", "namedScores.quality"} {
			name := strings.ReplaceAll(score, ".", "-")
			// The exact invocation.
			code, _, errOut := clitest.RunPrism(t, "import", "scores", "--format", "promptfoo", "--judge", name, "--context", "doc", "--candidate", "system", "--score", score, path, "--workspace", ws)
			if code != 0 {
				t.Fatalf("%s --score %s: exit %d: %s", file, score, code, errOut)
			}
			got := exportedRows(t, ws, "--judge", name)
			want := readPromptfooIndependently(t, path, score)
			if strings.Join(got, "\n") != strings.Join(want, "\n") || len(got) != 12 {
				t.Errorf("%s --score %s: export\n%s\nwant\n%s", file, score, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		}
	}
}

func TestImportLogLabels(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "w.db")
	path := logFixture("promptfoo", "results.json")
	code, out, errOut := clitest.RunPrism(t, "import", "scores", "--format", "promptfoo", "--judge", "q", "--context", "doc", "--candidate", "system", "--score", "namedScores.quality", "--label", "human", path, "--workspace", ws)
	if code != 0 || !strings.Contains(out, "6 labels") {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	_, labels, _ := clitest.RunPrism(t, "export", "labels", "--workspace", ws)
	if want := "context,candidate,human\nd1,M1,4\nd1,M2,2\nd2,M1,5\nd2,M2,3\nd3,M1,1\nd3,M2,4\n"; labels != want {
		t.Errorf("labels\n%s\nwant\n%s", labels, want)
	}
	// Labels from a CSV for a dataset the import creates.
	csv := filepath.Join(dir, "labels.csv")
	os.WriteFile(csv, []byte("context,candidate,human\n1,ollama/llama3.1,2.5\n"), 0o644)
	code, out, errOut = clitest.RunPrism(t, "import", "scores", "--format", "inspect", "--judge", "m", "--labels", csv, logFixture("inspect", "log_formats.eval"), "--workspace", ws)
	if code != 0 || !strings.Contains(out, "1 labels") {
		t.Fatalf("--labels: exit %d: %s %s", code, out, errOut)
	}
	_, labels, _ = clitest.RunPrism(t, "export", "labels", "--dataset", "popularity", "--workspace", ws)
	if labels != "context,candidate,human\n1,ollama/llama3.1,2.5\n" {
		t.Errorf("--labels gave %q", labels)
	}
	os.WriteFile(csv, []byte("context,candidate,human\n1,nobody,2.5\n"), 0o644)
	code, _, errOut = clitest.RunPrism(t, "import", "scores", "--format", "inspect", "--judge", "m2", "--dataset", "new", "--labels", csv, logFixture("inspect", "log_formats.eval"), "--workspace", ws)
	if code != 1 || !strings.Contains(errOut, "labels.csv:2: context \"1\" candidate \"nobody\" is not scored in the logs") {
		t.Errorf("stray label: exit %d %s", code, errOut)
	}
}

func TestImportLogErrors(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "w.db")
	eval := logFixture("inspect", "log_formats.eval")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--format", "nope", "--judge", "j", eval}, 2, `--format "nope": want one of inspect, promptfoo`},
		{[]string{"--format", "inspect", "--judge", "j"}, 2, "want one or more FILEs"},
		{[]string{"--format", "inspect", "--judge", "j", "-"}, 2, "reads files, not standard input"},
		{[]string{"--format", "jsonl", "--judge", "j", "--context", "a", eval}, 2, "needs --context, --candidate and --score PATHs"},
		{[]string{"--format", "promptfoo", "--judge", "j", "--scorer", "s", eval}, 2, "--scorer is for --format inspect"},
		{[]string{"--judge", "j", "--context", "a", eval}, 2, "--context is for --format"},
		{[]string{"--format", "promptfoo", "--judge", "j", eval}, 1, "log_formats.eval:1:1: invalid JSON"},
		{[]string{"--format", "inspect", "--judge", "j", "--scorer", "zz", eval}, 1, `log_formats.eval: --scorer "zz": no such scorer (the log has match)`},
	} {
		code, _, errOut := clitest.RunPrism(t, append(append([]string{"import", "scores"}, tc.args...), "--workspace", ws)...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d %q, want %d %q", tc.args, code, errOut, tc.code, tc.want)
		}
	}
	// A failed import leaves no dataset behind: a judge name that a
	// prism judge holds is refused after the dataset was created.
	if code, _, errOut := clitest.RunPrism(t, "data", "import", "demo", "--workspace", ws); code != 0 {
		t.Fatal(errOut)
	}
	if code, _, errOut := clitest.RunPrism(t, "import", "scores", "--format", "inspect", "--judge", "j", eval, "--workspace", ws, "--bank", "summeval-v1"); code != 1 || !strings.Contains(errOut, "log_formats.eval") {
		t.Errorf("--bank on a generic dataset: exit %d %s", code, errOut)
	}
	_, out, _ := clitest.RunPrism(t, "data", "ls", "--workspace", ws)
	if strings.Contains(out, "popularity") {
		t.Errorf("a failed import left its dataset:\n%s", out)
	}
}

// The JudgeBench recipe of docs/import.md: a reward model's two scores per
// pair, imported onto the stored JudgeBench dataset one response at a time.
func TestImportMappedJudgeBenchRecipe(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "w.db")
	if code, _, errOut := clitest.RunPrism(t, "data", "import", "judgebench", logFixture("mapped", "judgebench_pairs.jsonl"), "--workspace", ws); code != 0 {
		t.Fatal(errOut)
	}
	out := logFixture("mapped", "judgebench_reward_model.jsonl")
	for i, cand := range []string{"A", "B"} {
		code, _, errOut := clitest.RunPrism(t, "import", "scores", "--format", "jsonl", "--judge", "skywork", "--dataset", "judgebench",
			"--context", "pair_id", "--candidate", "="+cand, "--score", fmt.Sprintf("judgments[0].judgment.scores[%d]", i), out, "--workspace", ws)
		if code != 0 {
			t.Fatalf("%s: %s", cand, errOut)
		}
	}
	got := exportedRows(t, ws, "--judge", "skywork")
	if want := "p1,A,,12.5 p1,B,,-3.25 p2,A,,1.5 p2,B,,7"; strings.Join(got, " ") != want {
		t.Errorf("export %v, want %s", got, want)
	}
	// MT-Bench's judgments create their dataset, named after the file.
	code, stdout, errOut := clitest.RunPrism(t, "import", "scores", "--format", "jsonl", "--judge", "gpt-4", "--context", "question_id,turn",
		"--candidate", "model", "--score", "score", logFixture("mapped", "gpt-4_single.jsonl"), "--workspace", ws)
	if code != 0 || !strings.Contains(stdout, "created dataset gpt-4_single: 3 contexts, 5 candidates") {
		t.Errorf("MT-Bench: exit %d %s %s", code, stdout, errOut)
	}
}

// MT-Bench: the human judgments make the dataset (contexts question/turn,
// target the win rate); GPT-4's single-answer ratings import onto it.
func TestDataImportMTBenchWithJudgments(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "w.db")
	code, out, errOut := clitest.RunPrism(t, "data", "import", "mtbench", logFixture("", "mt_bench_human_judgments.jsonl"), "--workspace", ws)
	if code != 0 || !strings.Contains(out, "imported mtbench: 2 contexts, 5 candidates (format mtbench, task answer, metric pairwise)") {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	b, err := os.ReadFile(logFixture("mapped", "gpt-4_single.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var keep []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if strings.Contains(l, `"question_id": 81,`) {
			keep = append(keep, l)
		}
	}
	judged := filepath.Join(dir, "gpt-4_single.81.jsonl")
	os.WriteFile(judged, []byte(strings.Join(keep, "\n")+"\n"), 0o644)
	code, _, errOut = clitest.RunPrism(t, "import", "scores", "--format", "jsonl", "--judge", "gpt-4", "--dataset", "mtbench",
		"--context", "question_id,turn", "--candidate", "model", "--score", "score", judged, "--workspace", ws)
	if code != 0 {
		t.Fatal(errOut)
	}
	if got := strings.Join(exportedRows(t, ws, "--judge", "gpt-4"), " "); got != "81/1,alpaca-13b,,4 81/1,gpt-4,,9 81/2,alpaca-13b,,2 81/2,gpt-4,,8" {
		t.Errorf("export %s", got)
	}
}
