package acquire

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/model/shareddata"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
	"github.com/prism-eval/prism/ui/cli/internal/clitest"
)

// readLines is a JSONL file's lines.
func readLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.TrimSpace(string(b))
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func writeBatchFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

var anthropicIDPattern = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// anthropicExport exports the demo's baseline requests in the anthropic
// format and checks the file: 60 lines, unique ids of Anthropic's pattern,
// and complete Messages API params.
func anthropicExport(t *testing.T, ws, in string, backend ...string) []engine.AnthropicInput {
	t.Helper()
	clitest.MustRun(t, "data", "import", "demo", "--workspace", ws)
	if len(backend) == 0 {
		backend = []string{"--backend", "anthropic"}
	}
	args := append([]string{"batch", "export", "--format", "anthropic", "--workspace", ws, "--bank", "quality",
		"--probes", "baseline", "--model", "claude-haiku-4-5", "--temperature", "0", "-o", in}, backend...)
	_, errOut := clitest.MustRun(t, args...)
	if !strings.Contains(errOut, "exported 60 requests") {
		t.Fatalf("export: %s", errOut)
	}
	lines := readLines(t, in)
	if len(lines) != 60 {
		t.Fatalf("%d lines, want 60", len(lines))
	}
	seen := map[string]bool{}
	var out []engine.AnthropicInput
	for i, l := range lines {
		var in engine.AnthropicInput
		if err := json.Unmarshal([]byte(l), &in); err != nil {
			t.Fatal(err)
		}
		if !anthropicIDPattern.MatchString(in.CustomID) || seen[in.CustomID] {
			t.Fatalf("line %d: custom_id %q invalid or repeated", i+1, in.CustomID)
		}
		seen[in.CustomID] = true
		var p struct {
			Model       string   `json:"model"`
			MaxTokens   int      `json:"max_tokens"`
			System      string   `json:"system"`
			Temperature *float64 `json:"temperature"`
			Messages    []struct {
				Role, Content string
			} `json:"messages"`
		}
		if err := json.Unmarshal(in.Params, &p); err != nil {
			t.Fatal(err)
		}
		if p.Model != "claude-haiku-4-5" || p.MaxTokens < 1 || p.System == "" || p.Temperature == nil || *p.Temperature != 0 ||
			len(p.Messages) == 0 || p.Messages[0].Role != "user" || p.Messages[0].Content == "" {
			t.Fatalf("line %d: params incomplete: %s", i+1, in.Params)
		}
		out = append(out, in)
	}
	return out
}

// anthropicResults answers an Anthropic export: line i scores 1 + i%5,
// the lines in errored fail.
func anthropicResults(ins []engine.AnthropicInput, errored map[int]string) string {
	var sb strings.Builder
	for i, in := range ins {
		if kind, ok := errored[i]; ok {
			switch kind {
			case "errored":
				fmt.Fprintf(&sb, `{"custom_id":%q,"result":{"type":"errored","error":{"type":"error","error":{"type":"invalid_request_error","message":"bad"}}}}`+"\n", in.CustomID)
			default:
				fmt.Fprintf(&sb, `{"custom_id":%q,"result":{"type":%q}}`+"\n", in.CustomID, kind)
			}
			continue
		}
		text, _ := json.Marshal(fmt.Sprintf(`{"score": %d}`, 1+i%5))
		fmt.Fprintf(&sb, `{"custom_id":%q,"result":{"type":"succeeded","message":{"id":"msg_%d","type":"message","role":"assistant","model":"claude-haiku-4-5","content":[{"type":"text","text":%s}],"stop_reason":"end_turn","usage":{"input_tokens":300,"output_tokens":6}}}}`+"\n", in.CustomID, i, text)
	}
	return sb.String()
}

func TestBatchAnthropicRoundTrip(t *testing.T) {
	dir := t.TempDir()
	ws, in := filepath.Join(dir, "ws.db"), filepath.Join(dir, "in.jsonl")
	ins := anthropicExport(t, ws, in)
	dry := []string{"run", "--workspace", ws, "--bank", "quality", "--probes", "baseline", "--backend", "anthropic",
		"--model", "claude-haiku-4-5", "--temperature", "0", "--dry-run"}

	// An id the export never wrote: refused, nothing stored.
	bad := anthropicResults(ins, nil) + `{"custom_id":"pdeadbeef","result":{"type":"expired"}}` + "\n"
	writeBatchFile(t, filepath.Join(dir, "bad.jsonl"), bad)
	var o, e bytes.Buffer
	if code := clikit.RunMain(context.Background(), []string{"batch", "import", filepath.Join(dir, "bad.jsonl"), "--workspace", ws}, &o, &e); code == 0 ||
		!strings.Contains(e.String(), "bad.jsonl:61:1: custom_id") || !strings.Contains(e.String(), "pdeadbeef") {
		t.Fatalf("exit %d, stderr %s", code, e.String())
	}
	if got, _ := clitest.MustRun(t, dry...); !strings.Contains(got, "0 answered, 0 from cache, 60 to send") {
		t.Fatalf("after a refused import: %s", got)
	}

	// Succeeded answers stored; errored, canceled and expired failures.
	writeBatchFile(t, filepath.Join(dir, "out.jsonl"), anthropicResults(ins, map[int]string{0: "errored", 1: "canceled", 2: "expired"}))
	got, _ := clitest.MustRun(t, "batch", "import", filepath.Join(dir, "out.jsonl"), "--workspace", ws)
	if !strings.Contains(got, "imported 60 results") || !strings.Contains(got, "57 answers, 3 failures") {
		t.Fatalf("import: %s", got)
	}
	if got, _ := clitest.MustRun(t, dry...); !strings.Contains(got, "57 answered, 0 from cache, 3 to send") {
		t.Fatalf("after import: %s", got)
	}
}

// rayAnswer answers a Ray export as contrib/ray/run.py writes rows: line
// i scores 1 + i%5, line 0 fails.
func rayAnswer(t *testing.T, in string) string {
	var sb strings.Builder
	for i, l := range readLines(t, in) {
		var row engine.RayRow
		if err := json.Unmarshal([]byte(l), &row); err != nil {
			t.Fatal(err)
		}
		if row.Model == "" || len(row.Messages) < 10 || row.SamplingParams["temperature"] != 0.0 {
			t.Fatalf("line %d: %s", i+1, l)
		}
		if i == 0 {
			fmt.Fprintf(&sb, `{"id":%q,"error":"engine died"}`+"\n", row.ID)
			continue
		}
		text, _ := json.Marshal(fmt.Sprintf(`{"score": %d}`, 1+i%5))
		fmt.Fprintf(&sb, `{"id":%q,"generated_text":%s,"num_input_tokens":300,"num_generated_tokens":6,"finish_reason":"stop"}`+"\n", row.ID, text)
	}
	return sb.String()
}

func TestBatchRayRoundTrip(t *testing.T) {
	dir := t.TempDir()
	ws, in := filepath.Join(dir, "ws.db"), filepath.Join(dir, "in.jsonl")
	clitest.MustRun(t, "data", "import", "demo", "--workspace", ws)
	study := []string{"--workspace", ws, "--bank", "quality", "--probes", "baseline", "--backend", "openai", "--model", "qwen", "--temperature", "0"}
	clitest.MustRun(t, append([]string{"batch", "export", "--format", "ray", "-o", in}, study...)...)
	writeBatchFile(t, filepath.Join(dir, "out.jsonl"), rayAnswer(t, in))
	got, _ := clitest.MustRun(t, "batch", "import", filepath.Join(dir, "out.jsonl"), "--workspace", ws)
	if !strings.Contains(got, "imported 60 results") || !strings.Contains(got, "59 answers, 1 failures") {
		t.Fatalf("import: %s", got)
	}
}

// Shards of SummEval × 38 split at 10,000 lines: every file within the
// cap, the shards disjoint, their union the whole unsharded export.
func TestBatchShardsSummEval(t *testing.T) {
	path := shareddata.Path(t, "summeval/data.json")
	if testing.Short() || clitest.RaceEnabled {
		t.Skip("four exports of 58,748 lines: not in -short or -race runs")
	}
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws.db")
	clitest.MustRun(t, "data", "import", "summeval", path, "--name", "summeval", "--workspace", ws)
	study := []string{"--workspace", ws, "--bank", "quality", "--backend", "openai", "--model", "gpt-4o-mini", "--max-lines", "10000"}
	// Each file's lines by custom_id (the first field of a line, a key
	// and run that need no escaping), each id with the hash of its line
	// and how often it came: reading 200 MB of lines as JSON took a third
	// of the test.
	type seen struct {
		line uint64
		n    int
	}
	seed := maphash.MakeSeed()
	ids := func(prefix string) map[string]seen {
		files, _ := filepath.Glob(filepath.Join(dir, prefix+"*.jsonl"))
		got := map[string]seen{}
		for _, f := range files {
			lines := readLines(t, f)
			if len(lines) > 10000 {
				t.Fatalf("%s has %d lines", f, len(lines))
			}
			for _, l := range lines {
				rest, ok := strings.CutPrefix(l, `{"custom_id":"`)
				id, _, closed := strings.Cut(rest, `"`)
				if !ok || !closed {
					t.Fatalf("%s: a line without a leading custom_id: %.80s", f, l)
				}
				got[id] = seen{maphash.String(seed, l), got[id].n + 1}
			}
		}
		return got
	}
	clitest.MustRun(t, append([]string{"batch", "export", "-o", filepath.Join(dir, "all.jsonl")}, study...)...)
	all := ids("all")
	// 60,800 requests, 2,052 of them sharing another's line.
	if len(all) != 58748 {
		t.Fatalf("%d ids in the unsharded export", len(all))
	}
	union := map[string]seen{}
	for i := 1; i <= 3; i++ {
		_, errOut := clitest.MustRun(t, append([]string{"batch", "export", "--shard", fmt.Sprintf("%d/3", i), "-o", filepath.Join(dir, fmt.Sprintf("s%d.jsonl", i))}, study...)...)
		if !strings.Contains(errOut, fmt.Sprintf("(shard %d/3)", i)) {
			t.Errorf("shard %d: %s", i, errOut)
		}
		for id, s := range ids(fmt.Sprintf("s%d", i)) {
			union[id] = seen{s.line, union[id].n + s.n}
		}
	}
	for id, s := range all {
		if u := union[id]; s.n != 1 || u.n != 1 || u.line != s.line {
			t.Fatalf("%s: %d times in the export, %d in the shards (the same line: %v)", id, s.n, u.n, u.line == s.line)
		}
	}
	if len(union) != len(all) {
		t.Fatalf("the shards have %d ids, the export %d", len(union), len(all))
	}
}

func TestBatchExportSplitsAndRefuses(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws.db")
	clitest.MustRun(t, "data", "import", "demo", "--workspace", ws)
	study := []string{"--workspace", ws, "--bank", "quality", "--probes", "baseline", "--backend", "openai", "--model", "m"}
	_, errOut := clitest.MustRun(t, append([]string{"batch", "export", "--max-lines", "25", "-o", filepath.Join(dir, "in.jsonl")}, study...)...)
	if !strings.Contains(errOut, "3 files") {
		t.Errorf("export: %s", errOut)
	}
	for i, want := range []int{25, 25, 10} {
		if got := len(readLines(t, filepath.Join(dir, fmt.Sprintf("in.%03d.jsonl", i+1)))); got != want {
			t.Errorf("part %d: %d lines, want %d", i+1, got, want)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--max-lines", "25"}, "give -o FILE"},
		{[]string{"--max-bytes", "100", "-o", filepath.Join(dir, "x.jsonl")}, "larger than a file may be"},
		{[]string{"--format", "csv"}, "--format \"csv\""},
		{[]string{"--shard", "4/3"}, "1 ≤ I ≤ N"},
		{[]string{"--format", "anthropic", "--mode", "expected"}, "no logprobs"},
	} {
		var o, e bytes.Buffer
		code := clikit.RunMain(context.Background(), append(append([]string{"batch", "export"}, study...), c.args...), &o, &e)
		if code == 0 || !strings.Contains(e.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %s", c.args, code, e.String())
		}
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "x*")); len(m) > 0 {
		t.Errorf("a refused export left %v", m)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".*part*")); len(m) > 0 {
		t.Errorf("temporary files left: %v", m)
	}
}
