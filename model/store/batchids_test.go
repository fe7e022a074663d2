package store

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

func TestBatchIDsAndJobs(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "ws.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.PutBatchIDs(ctx, map[string]string{"p1": "KEY:1", "p2": "saja:KEY:0"}); err != nil {
		t.Fatal(err)
	}
	// The same pair again is fine; another id under a short id is not.
	if err := s.PutBatchIDs(ctx, map[string]string{"p1": "KEY:1"}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutBatchIDs(ctx, map[string]string{"p1": "OTHER"}); err == nil || !strings.Contains(err.Error(), "already names") {
		t.Fatalf("a clash: %v", err)
	}
	if id, ok, err := s.BatchID(ctx, "p2"); err != nil || !ok || id != "saja:KEY:0" {
		t.Fatalf("BatchID(p2) = %q, %v, %v", id, ok, err)
	}
	if _, ok, err := s.BatchID(ctx, "p9"); ok || err != nil {
		t.Fatalf("BatchID(p9) = %v, %v", ok, err)
	}
}
