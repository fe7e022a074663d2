package store

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prism-eval/prism/model"
)

// A registered key inside imported data (a dataset's texts, ids and
// extras; an imported score's run label) never reaches the file, and the
// caller's dataset is left as it was.
func TestImportedDataScrubbed(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ws.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	const key = "plain-opaque-credential-77"
	s.AddSecret(key)
	d := tinyDataset("tiny")
	d.Contexts[1].ID = "c1-" + key
	d.Contexts[1].Candidates[0].Text = "pasted " + key + " here"
	d.Contexts[0].Extra["note"] = key
	d.Contexts[0].Candidates[1].Extra["k"] = key
	if err := s.PutDataset(ctx, d, false); err != nil {
		t.Fatal(err)
	}
	if d.Contexts[1].ID != "c1-"+key {
		t.Fatal("PutDataset changed the caller's dataset")
	}
	rows := []model.ScoreRow{{Context: "c1-" + key, Candidate: "x", Probe: "baseline", Score: 3, Run: "r-" + key, Line: 2}}
	if _, err := s.ImportScores(ctx, "tiny", "imp", rows); err != nil {
		t.Fatal(err)
	}
	got, err := s.Dataset(ctx, "tiny")
	if err != nil {
		t.Fatal(err)
	}
	if c := got.Contexts[1]; c.ID != "c1-[redacted]" || !strings.Contains(c.Candidates[0].Text, "[redacted]") {
		t.Fatalf("stored context %q, text %q: want the key redacted", c.ID, c.Candidates[0].Text)
	}
	s.Close()
	for _, suffix := range []string{"", "-wal"} {
		b, err := os.ReadFile(path + suffix)
		if err == nil && bytes.Contains(b, []byte(key)) {
			t.Errorf("%s%s holds the registered key", filepath.Base(path), suffix)
		}
	}
}
