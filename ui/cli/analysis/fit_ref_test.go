package analysis

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/synthstudy"
)

// TestFitFilesMatchesReference runs `prism fit --json` on a synthetic
// study's CSV files (synthstudy: 150 contexts × 8 candidates × 3
// attributes, 2 wordings, some empty scores) and compares stdout byte for
// byte with testdata/fitref.json, written by this test
// (PRISM_WRITE_FITREF=1) from the code of commit 37ff07a, before the fit's
// memory work: the streamed read, the order the files are read in and the
// memory limit must change no number. Never rewrite it from later code.
func TestFitFilesMatchesReference(t *testing.T) {
	rows, labels := synthstudy.Scores(150, 8, 3, 2, 9)
	for i := range rows {
		if i%29 == 3 {
			rows[i].Missing, rows[i].Score = true, 0
		}
	}
	dir := t.TempDir()
	scores, labs := filepath.Join(dir, "s.csv"), filepath.Join(dir, "l.csv")
	var sb, lb bytes.Buffer
	if err := model.WriteScoresCSV(&sb, rows); err != nil {
		t.Fatal(err)
	}
	if err := model.WriteLabelsCSV(&lb, labels); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(scores, sb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(labs, lb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runFitCmd("--scores", scores, "--labels", labs, "--bootstrap", "300", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	path := filepath.Join("testdata", "fitref.json")
	if os.Getenv("PRISM_WRITE_FITREF") == "1" {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Errorf("prism fit --json differs from %s (%d bytes, want %d)", path, len(out), len(want))
	}
}
