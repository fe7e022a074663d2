package data

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/prism-eval/prism/ui/cli/internal/clitest"
)

// helpSteer2Row is HelpSteer2's published layout (validation split:
// prompt, response and five 0-4 attributes).
type helpSteer2Row struct {
	Prompt      string `parquet:"prompt"`
	Response    string `parquet:"response"`
	Helpfulness int64  `parquet:"helpfulness"`
	Correctness int64  `parquet:"correctness"`
	Coherence   int64  `parquet:"coherence"`
	Complexity  int64  `parquet:"complexity"`
	Verbosity   int64  `parquet:"verbosity"`
}

func TestDataImportParquetAndExportParquet(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "w.db")
	file := filepath.Join(dir, "validation.parquet")
	rows := []helpSteer2Row{
		{"Name a prime.", "7", 4, 4, 4, 1, 1},
		{"Name a prime.", "9", 0, 0, 3, 1, 1},
		{"Say hi.", "Hi!", 3, 4, 4, 0, 0},
		{"Say hi.", "Hello there, friend.", 2, 4, 4, 0, 2},
	}
	if err := parquet.WriteFile(file, rows); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := clitest.RunPrism(t, "data", "import", "parquet", file, "--context", "prompt", "--candidate", "#", "--text", "response",
		"--source", "prompt", "--human", "helpfulness", "--name", "helpsteer2", "--workspace", ws)
	if code != 0 || !strings.Contains(out, "imported helpsteer2: 2 contexts, 4 candidates (format parquet") {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	_, labels, _ := clitest.RunPrism(t, "export", "labels", "--workspace", ws)
	if want := "context,candidate,human\nName a prime.,1,4\nName a prime.,2,0\nSay hi.,1,3\nSay hi.,2,2\n"; labels != want {
		t.Errorf("labels\n%s\nwant\n%s", labels, want)
	}
	// The criteria's mean as the target, from JSON Lines.
	jl := filepath.Join(dir, "h.jsonl")
	os.WriteFile(jl, []byte(`{"q": "a", "r": "x", "s": {"c": 1, "d": 3}}`+"\n"+`{"q": "a", "r": "y", "s": {"c": 2, "d": 2}}`+"\n"), 0o644)
	code, _, errOut = clitest.RunPrism(t, "data", "import", "jsonl", jl, "--context", "q", "--candidate", "#", "--text", "r", "--criteria", "s.c,s.d", "--workspace", ws)
	if code != 0 {
		t.Fatal(errOut)
	}
	if _, labels, _ = clitest.RunPrism(t, "export", "labels", "--dataset", "h", "--workspace", ws); labels != "context,candidate,human\na,1,2\na,2,2\n" {
		t.Errorf("criteria labels %q", labels)
	}
	code, _, errOut = clitest.RunPrism(t, "data", "import", "parquet", file, "--context", "prompt", "--candidate", "#", "--text", "nope", "--human", "helpfulness", "--name", "x", "--workspace", ws)
	if code != 1 || !strings.Contains(errOut, "validation.parquet: row 1: nope: missing (--text nope)") {
		t.Errorf("missing column: exit %d %s", code, errOut)
	}

	// Scores out as Parquet: the same rows as the CSV export.
	scores := filepath.Join(dir, "s.csv")
	os.WriteFile(scores, []byte("context,candidate,probe,score,run\nName a prime.,1,baseline,3,1\nName a prime.,2,baseline,,1\nSay hi.,1,baseline,2.5,1\n"), 0o644)
	if code, _, errOut := clitest.RunPrism(t, "import", "scores", "--dataset", "helpsteer2", "--judge", "j", scores, "--workspace", ws); code != 0 {
		t.Fatal(errOut)
	}
	pq := filepath.Join(dir, "s.parquet")
	if code, _, errOut := clitest.RunPrism(t, "export", "scores", "--dataset", "helpsteer2", "--judge", "j", "--format", "parquet", "-o", pq, "--workspace", ws); code != 0 {
		t.Fatal(errOut)
	}
	type scoreRow struct {
		Context   string   `parquet:"context"`
		Candidate string   `parquet:"candidate"`
		Probe     string   `parquet:"probe"`
		Score     *float64 `parquet:"score,optional"`
		Run       string   `parquet:"run"`
	}
	got, err := parquet.ReadFile[scoreRow](pq)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range got {
		s := ""
		if r.Score != nil {
			s = gnum(*r.Score)
		}
		b.WriteString(r.Context + "," + r.Candidate + "," + r.Probe + "," + s + "," + r.Run + "\n")
	}
	if want := "Name a prime.,1,baseline,3,1\nName a prime.,2,baseline,,1\nSay hi.,1,baseline,2.5,1\n"; b.String() != want {
		t.Errorf("parquet export\n%s\nwant\n%s", b.String(), want)
	}
	lq := filepath.Join(dir, "l.parquet")
	if code, _, errOut := clitest.RunPrism(t, "export", "labels", "--dataset", "helpsteer2", "--format", "parquet", "-o", lq, "--workspace", ws); code != 0 {
		t.Fatal(errOut)
	}
	type labelRow struct {
		Context   string  `parquet:"context"`
		Candidate string  `parquet:"candidate"`
		Human     float64 `parquet:"human"`
	}
	ls, err := parquet.ReadFile[labelRow](lq)
	if err != nil || len(ls) != 4 || ls[1].Human != 0 || ls[3].Candidate != "2" {
		t.Errorf("parquet labels %v %v", ls, err)
	}
	if code, _, errOut := clitest.RunPrism(t, "export", "scores", "--format", "parquet", "--workspace", ws, "--dataset", "helpsteer2"); code != 2 || !strings.Contains(errOut, "needs -o FILE") {
		t.Errorf("parquet to stdout: exit %d %s", code, errOut)
	}
}
