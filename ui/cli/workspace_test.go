package cli

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/cli/internal/clitest"
)

// TestCommandsRefuseForeignDatabase: every command, reading or writing,
// leaves another program's SQLite file exactly as it was.
func TestCommandsRefuseForeignDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"PRAGMA journal_mode = DELETE", "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	before, _ := os.ReadFile(path)
	for _, args := range [][]string{
		{"data", "ls", "--workspace", path},
		{"bank", "ls", "--workspace", path},
		{"data", "import", "demo", "--workspace", path},
		{"run", "--bank", "quality", "--dry-run", "--workspace", path},
	} {
		code, _, stderr := clitest.RunCmd(args...)
		if code == 0 || !strings.Contains(stderr, "not a prism workspace") {
			t.Errorf("prism %s: exit %d, stderr %q", strings.Join(args, " "), code, stderr)
		}
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Error("a command changed the foreign database")
	}
}

// TestReadCommandsWriteNothing: listing and exporting read a workspace
// without touching the file; a fit adds its report and nothing else.
func TestReadCommandsWriteNothing(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "ws.db")
	clitest.MustRun(t, "data", "import", "demo", "--workspace", ws)
	clitest.MustRun(t, "run", "--bank", "quality", "--workspace", ws)
	before, _ := os.ReadFile(ws)
	for _, args := range [][]string{
		{"data", "ls", "--workspace", ws},
		{"bank", "ls", "--workspace", ws},
	} {
		clitest.MustRun(t, args...)
	}
	after, _ := os.ReadFile(ws)
	if !bytes.Equal(before, after) {
		t.Error("a read-only command changed the workspace")
	}
	lsBefore, _ := clitest.MustRun(t, "ls", "--workspace", ws)
	clitest.MustRun(t, "fit", "--judge", "offline", "--workspace", ws)
	lsAfter, _ := clitest.MustRun(t, "ls", "--workspace", ws)
	if kept, _, _ := strings.Cut(lsAfter, "\nfits ("); kept != lsBefore || !strings.Contains(lsAfter, "\nfits (1)") {
		t.Errorf("a fit changed more than its stored report:\nbefore %s\nafter %s", lsBefore, lsAfter)
	}
	st, err := store.OpenReadOnly(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.DeleteDataset(context.Background(), "demo"); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("write on a read-only open: %v", err)
	}
}
