package datasets

import (
	"archive/zip"
	"bytes"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/prism-eval/prism/model"
)

func inspectFile(name string) string { return filepath.Join("testdata", "inspect", name) }

func loadLogs(t *testing.T, format string, opts LogOptions, files ...string) *ScoreLog {
	t.Helper()
	l, err := LoadScoreLogs(format, files, opts)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// rowText renders rows as context/candidate/run=score lines for comparing.
func rowText(rows []model.ScoreRow) string {
	var b strings.Builder
	for _, r := range rows {
		s := "NA"
		if !r.Missing {
			s = strings.TrimSuffix(strings.TrimRight(sprintf("%.6f", r.Score), "0"), ".")
		}
		b.WriteString(r.Context + "/" + r.Candidate + "/" + r.Run + "=" + s + "\n")
	}
	return b.String()
}

func TestInspectRealLogs(t *testing.T) {
	for _, tc := range []struct{ file, want, task string }{
		{"log_formats.eval", "1/ollama/llama3.1/1=0\n", "popularity"},
		{"log_formats.json", "1/ollama/llama3.1/1=0\n", "popularity"},
		{"log_read_sample.eval", "1/ollama/gemma3/1=1\n", "popularity"},
		{"log_read_sample.json", "1/ollama/gemma3/1=1\n", "popularity"},
		{"popularity_gpt-4o-mini.json", "1/openai/gpt-4o-mini/1=1\n2/openai/gpt-4o-mini/1=1\n3/openai/gpt-4o-mini/1=0\n", "popularity"},
		{"mmlu-summary-choices.eval", "1/openai/gpt-4o/1=0\n", "inspect_evals/mmlu_0_shot"},
	} {
		l := loadLogs(t, LogInspect, LogOptions{}, inspectFile(tc.file))
		if got := rowText(l.Rows); got != tc.want {
			t.Errorf("%s: rows\n%swant\n%s", tc.file, got, tc.want)
		}
		if l.Dataset.Name != tc.task {
			t.Errorf("%s: dataset %q, want %q", tc.file, l.Dataset.Name, tc.task)
		}
		c := l.Dataset.Contexts[0]
		if c.Source == "" || c.Candidates[0].Text == "" {
			t.Errorf("%s: texts missing: source %q, output %q", tc.file, c.Source, c.Candidates[0].Text)
		}
		if !math.IsNaN(c.Candidates[0].Human) {
			t.Errorf("%s: a Yes/No target gave label %v", tc.file, c.Candidates[0].Human)
		}
	}
	// The popularity log's texts are attachments: they are resolved.
	l := loadLogs(t, LogInspect, LogOptions{}, inspectFile("popularity_gpt-4o-mini.json"))
	if src := l.Dataset.Contexts[0].Source; strings.Contains(src, "attachment://") || !strings.Contains(src, "Positive posts") {
		t.Errorf("source %q: attachment not resolved", src)
	}
	if out := l.Dataset.Contexts[0].Candidates[0].Text; out != "Yes" {
		t.Errorf("output %q, want Yes", out)
	}
}

// Ten samples in natural id order (the zip holds them in completion order).
func TestInspectEvalOrder(t *testing.T) {
	l := loadLogs(t, LogInspect, LogOptions{}, inspectFile("popularity_gpt-4o-mini.eval"))
	var ids []string
	for _, c := range l.Dataset.Contexts {
		ids = append(ids, c.ID)
	}
	if got := strings.Join(ids, ","); got != "1,2,3,4,5,6,7,8,9,10" {
		t.Errorf("contexts %s", got)
	}
	if got := rowText(l.Rows); !strings.HasPrefix(got, "1/openai/gpt-4o-mini/1=1\n2/openai/gpt-4o-mini/1=1\n3/openai/gpt-4o-mini/1=0\n") {
		t.Errorf("rows %s", got)
	}
}

// Three logs of one task, one model each, make one dataset: context 1
// has a candidate per model.
func TestInspectMergeModels(t *testing.T) {
	l := loadLogs(t, LogInspect, LogOptions{}, inspectFile("log_formats.eval"), inspectFile("log_read_sample.json"), inspectFile("popularity_gpt-4o-mini.eval"))
	c := l.Dataset.Contexts[0]
	var cands []string
	for _, k := range c.Candidates {
		cands = append(cands, k.ID)
	}
	if c.ID != "1" || strings.Join(cands, ",") != "ollama/llama3.1,ollama/gemma3,openai/gpt-4o-mini" || len(l.Dataset.Contexts) != 10 || len(l.Rows) != 12 {
		t.Errorf("context %s candidates %v, %d contexts, %d rows", c.ID, cands, len(l.Dataset.Contexts), len(l.Rows))
	}
	// The same model's log twice scores the same coordinates twice.
	_, err := LoadScoreLogs(LogInspect, []string{inspectFile("log_formats.eval"), inspectFile("log_formats.json")}, LogOptions{})
	if err == nil || !strings.Contains(err.Error(), "already scored at") || !strings.Contains(err.Error(), "log_formats.eval") {
		t.Errorf("repeated log: %v", err)
	}
	// Logs of two tasks are refused.
	_, err = LoadScoreLogs(LogInspect, []string{inspectFile("log_formats.eval"), inspectFile("mmlu-summary-choices.eval")}, LogOptions{})
	if err == nil || !strings.Contains(err.Error(), "differs from task") {
		t.Errorf("two tasks: %v", err)
	}
}

// recompress rewrites a .eval zip with every member zstd-compressed, as
// Inspect writes it when asked for zstd.
func recompress(t *testing.T, data []byte) []byte {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	zw.RegisterCompressor(zipZstd, func(w io.Writer) (io.WriteCloser, error) { return zstd.NewWriter(w) })
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(rc)
		rc.Close()
		w, err := zw.CreateHeader(&zip.FileHeader{Name: f.Name, Method: zipZstd})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(body)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func TestInspectZstd(t *testing.T) {
	data, err := os.ReadFile(inspectFile("popularity_gpt-4o-mini.eval"))
	if err != nil {
		t.Fatal(err)
	}
	z := recompress(t, data)
	if bytes.Equal(z, data) {
		t.Fatal("not recompressed")
	}
	a, err := ReadScoreLog(LogInspect, data, "deflate.eval", LogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := ReadScoreLog(LogInspect, z, "zstd.eval", LogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rowText(a.Rows) != rowText(b.Rows) || len(b.Rows) != 10 {
		t.Errorf("zstd rows differ:\n%s\n%s", rowText(a.Rows), rowText(b.Rows))
	}
}

// inspectJSON is a small .json log by the EvalLog schema.
func inspectJSON(samples string) []byte {
	return []byte(`{"eval": {"task": "t", "model": "m"}, "samples": [` + samples + `]}`)
}

func TestInspectValues(t *testing.T) {
	// value_to_float: C 1, I 0, P 0.5, N 0, numbers as they are, yes/true
	// 1, no/false 0, numeric strings; a numeric target is a label.
	samples := `{"id": 1, "epoch": 1, "target": "4", "scores": {"s": {"value": "C"}}},
	{"id": 2, "epoch": 1, "scores": {"s": {"value": "I"}}},
	{"id": 3, "epoch": 1, "scores": {"s": {"value": "P"}}},
	{"id": 4, "epoch": 1, "scores": {"s": {"value": "N"}}},
	{"id": 5, "epoch": 1, "scores": {"s": {"value": 0.25}}},
	{"id": 6, "epoch": 1, "scores": {"s": {"value": true}}},
	{"id": 7, "epoch": 2, "scores": {"s": {"value": "Yes"}}},
	{"id": 8, "epoch": 1, "scores": {"s": {"value": "false"}}},
	{"id": "x", "epoch": 1, "scores": {"s": {"value": "2.5"}}},
	{"id": 9, "epoch": 1, "error": "boom"}`
	l, err := ReadScoreLog(LogInspect, inspectJSON(samples), "v.json", LogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := "1/m/1=1\n2/m/1=0\n3/m/1=0.5\n4/m/1=0\n5/m/1=0.25\n6/m/1=1\n7/m/2=1\n8/m/1=0\nx/m/1=2.5\n9/m/1=NA\n"
	if got := rowText(l.Rows); got != want {
		t.Errorf("rows\n%swant\n%s", got, want)
	}
	if h := l.Dataset.Contexts[0].Candidates[0].Human; h != 4 {
		t.Errorf("label %v, want 4 (the numeric target)", h)
	}
	// A dict value is read by --scorer NAME.KEY.
	dict := `{"id": 1, "scores": {"s": {"value": {"acc": "C", "f1": 0.5}}}}`
	l, err = ReadScoreLog(LogInspect, inspectJSON(dict), "d.json", LogOptions{Scorer: "s.f1"})
	if err != nil || rowText(l.Rows) != "1/m/1=0.5\n" {
		t.Errorf("dict value: %v %v", l, err)
	}
	// Context and candidate from the metadata.
	meta := `{"id": 1, "metadata": {"q": "qa", "who": "sys-1"}, "scores": {"s": {"value": 1}}}`
	l, err = ReadScoreLog(LogInspect, inspectJSON(meta), "m.json", LogOptions{Context: "metadata.q", Candidate: "metadata.who"})
	if err != nil || rowText(l.Rows) != "qa/sys-1/1=1\n" {
		t.Errorf("metadata coordinates: %v %v", l, err)
	}
}

func TestInspectErrors(t *testing.T) {
	for _, tc := range []struct {
		data string
		opts LogOptions
		want string
	}{
		{`{"eval": {"task": "t"}, "samples": []}`, LogOptions{}, "e.json:1:10: eval.model: missing"},
		{`{"eval": {"task": "t", "model": "m"}}`, LogOptions{}, "e.json:1:1: samples: missing"},
		{string(inspectJSON(`{"epoch": 1}`)), LogOptions{}, "e.json:1:51: samples.0.id: missing"},
		{string(inspectJSON(`{"id": 1, "scores": {"s": {"value": "maybe"}}}`)), LogOptions{}, `e.json:1:87: samples.0.scores.s.value: "maybe" is not a score`},
		{string(inspectJSON(`{"id": 1, "scores": {"s": {"value": {"a": 1}}}}`)), LogOptions{}, "scores.s.value: a dict of values (a): name one with --scorer s.KEY"},
		{string(inspectJSON(`{"id": 1, "scores": {"s": {"value": 1}, "r": {"value": 1}}}`)), LogOptions{}, "e.json: the log has scorers r, s; choose one with --scorer NAME"},
		{string(inspectJSON(`{"id": 1, "scores": {"s": {"value": 1}}}`)), LogOptions{Scorer: "z"}, `--scorer "z": no such scorer (the log has s)`},
		{string(inspectJSON(`{"id": 1}`)), LogOptions{}, "e.json: no sample has scores"},
		{string(inspectJSON(`{"id": 1, "scores": {"s": {"value": 1}}}`)), LogOptions{Context: "metadata.q"}, "e.json:1:51: samples.0.metadata.q: missing"},
		{string(inspectJSON(`{"id": 1, "scores": {"s": {"value": 1}}}, {"id": 1, "scores": {"s": {"value": 0}}}`)), LogOptions{}, "was already scored at e.json: sample 1 epoch 1"},
		{"PK\x03\x04junk", LogOptions{}, "e.json: not a readable .eval zip"},
	} {
		_, err := ReadScoreLog(LogInspect, []byte(tc.data), "e.json", tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.60s: error %v, want %q", tc.data, err, tc.want)
		}
	}
	// A zip member's error names the file and the member.
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("header.json")
	w.Write([]byte(`{"eval": {"task": "t", "model": "m"}}`))
	w, _ = zw.Create("samples/1_epoch_1.json")
	w.Write([]byte(`{"id": 1, "scores": {"s": {"value": "zz"}}}`))
	zw.Close()
	_, err := ReadScoreLog(LogInspect, buf.Bytes(), "z.eval", LogOptions{})
	if err == nil || !strings.HasPrefix(err.Error(), "z.eval: samples/1_epoch_1.json:1:") || !strings.Contains(err.Error(), "scores.s.value") {
		t.Errorf("zip member error: %v", err)
	}
}
