package analysis

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prism-eval/prism/model/synthstudy"
	"github.com/prism-eval/prism/ui/cli/internal/clitest"
)

// TestFitWorkspaceEqualsCSVSynthetic: on a synthetic study (20 contexts ×
// 8 candidates × the quality bank, offline judge), the fit read from the
// workspace — from the score snapshot the run wrote, and from the request
// rows once the snapshot is gone — prints byte for byte the report of the
// same scores and labels exported as CSV.
func TestFitWorkspaceEqualsCSVSynthetic(t *testing.T) {
	dir := t.TempDir()
	ws, data := filepath.Join(dir, "w.db"), filepath.Join(dir, "d.jsonl")
	var buf bytes.Buffer
	if err := synthstudy.WriteJSONL(&buf, synthstudy.Dataset(20, 8, 3)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(data, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	clitest.MustRun(t, "data", "import", "jsonl", data, "--name", "synth", "--workspace", ws)
	clitest.MustRun(t, "run", "--bank", "quality", "--workspace", ws)
	clitest.MustRun(t, "export", "scores", "--workspace", ws, "-o", filepath.Join(dir, "s.csv"))
	clitest.MustRun(t, "export", "labels", "--workspace", ws, "-o", filepath.Join(dir, "l.csv"))
	fit := func(args ...string) string {
		t.Helper()
		out, _ := clitest.MustRun(t, append([]string{"fit", "--json", "--bootstrap", "200"}, args...)...)
		return withoutStudy(t, out)
	}
	fromCSV := fit("--scores", filepath.Join(dir, "s.csv"), "--labels", filepath.Join(dir, "l.csv"))
	if !strings.Contains(fromCSV, `"n_contexts":20`) {
		t.Fatalf("the CSV fit is not of the 20 contexts:\n%.400s", fromCSV)
	}

	db, err := sql.Open("sqlite", ws)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var parts int
	if err := db.QueryRow("SELECT count(*) FROM score_snapshots").Scan(&parts); err != nil || parts == 0 {
		t.Fatalf("the run wrote %d snapshot parts (%v)", parts, err)
	}
	if got := fit("--workspace", ws); got != fromCSV {
		t.Fatalf("fit from the workspace's snapshot differs from the CSV fit:\nworkspace %.600s\ncsv       %.600s", got, fromCSV)
	}
	if _, err := db.Exec("DELETE FROM score_snapshots"); err != nil {
		t.Fatal(err)
	}
	if got := fit("--workspace", ws); got != fromCSV {
		t.Fatalf("fit from the workspace's request rows differs from the CSV fit:\nworkspace %.600s\ncsv       %.600s", got, fromCSV)
	}
}

// withoutStudy is a fit's JSON report without its study, which only a
// workspace fit has, re-encoded (keys sorted).
func withoutStudy(t *testing.T, report string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(report), &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "study")
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
