package store

import (
	"context"
	"path/filepath"
	"testing"
)

// TestBatchJobsHoldUntilImported: a job's requests are held while it is
// creating, running or ended, and released once imported or failed; the
// row survives reopening the workspace (a crash after submit).
func TestBatchJobsHoldUntilImported(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "w.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	j := &BatchJob{Provider: "openai", Tag: "t1", Endpoint: "http://x/v1", State: JobCreating}
	if err := s.PutBatchJob(ctx, j, []string{"a", "b:1"}); err != nil {
		t.Fatal(err)
	}
	held, err := s.BatchHeld(ctx)
	if err != nil || len(held) != 2 || held["a"] != "t1" {
		t.Fatalf("held %v, %v", held, err)
	}
	j.BatchID, j.State, j.Files = "batch_1", JobSubmitted, map[string]string{"input_file_id": "file-1"}
	if err := s.UpdateBatchJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s, err = Open(ctx, path); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	jobs, err := s.BatchJobs(ctx)
	if err != nil || len(jobs) != 1 {
		t.Fatalf("jobs %v, %v", jobs, err)
	}
	got := jobs[0]
	if got.BatchID != "batch_1" || got.State != JobSubmitted || got.Files["input_file_id"] != "file-1" || got.Requests != 2 || got.Created.IsZero() {
		t.Fatalf("job after reopening: %+v", got)
	}
	if held, _ := s.BatchHeld(ctx); held["b:1"] != "batch_1" {
		t.Fatalf("held %v", held)
	}
	got.State = JobImported
	if err := s.UpdateBatchJob(ctx, &got); err != nil {
		t.Fatal(err)
	}
	if held, _ := s.BatchHeld(ctx); len(held) != 0 {
		t.Fatalf("an imported job still holds %v", held)
	}
}
