package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/prism-eval/prism/model/synthstudy"
)

// studyWorkspace1k is a workspace holding the answers of a judge to a
// quality-bank study of 1,000 contexts × 16 candidates (608,000 answers:
// baseline, 8 attributes × 2 signs × 2 wordings, 5 neutral clauses), the
// size of docs/performance.md's "Reading a study" rows. Building it takes
// a while; PRISM_BENCH_WORKSPACE names an existing copy to read instead
// (dataset synth, judge j).
func studyWorkspace1k(b *testing.B) *Store {
	b.Helper()
	ctx := context.Background()
	if p := os.Getenv("PRISM_BENCH_WORKSPACE"); p != "" {
		s, err := OpenReadOnly(ctx, p)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	}
	s, err := Open(ctx, filepath.Join(b.TempDir(), "study.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	fillStudy(b, s, 1000)
	return s
}

// fillStudy stores in s the answers of judge j (offline) to a
// quality-bank study of contexts × 16 candidates × 38 conditions on
// dataset synth (bank hash "bank"), with its score snapshot.
func fillStudy(b *testing.B, s *Store, contexts int) {
	b.Helper()
	ctx := context.Background()
	d := synthstudy.Dataset(contexts, 16, 1)
	if err := s.PutDataset(ctx, d, false); err != nil {
		b.Fatal(err)
	}
	if _, err := s.PutJudge(ctx, Judge{Name: "j", Backend: "offline", Model: "sim"}); err != nil {
		b.Fatal(err)
	}
	probes, wordings := conditions38()
	keyer, err := NewKeyer("offline", "sim", nil)
	if err != nil {
		b.Fatal(err)
	}
	var rs []Response
	for _, c := range d.Contexts {
		for i, k := range c.Candidates {
			for p := range probes {
				score := float64((i + 3*p) % 10)
				rs = append(rs, Response{
					Request: Request{Key: keyer.Key([]Message{{"system", probes[p] + wordings[p]}, {"user", c.ID + "/" + k.ID}}),
						Judge: "j", Dataset: d.Name, Context: c.ID, Candidate: k.ID,
						BankHash: "bank", Probe: probes[p], Wording: wordings[p], Run: "0"},
					Raw: fmt.Sprintf(`{"score": %g}`, score), Score: score,
				})
			}
		}
		if len(rs) >= 60800 {
			if err := s.PutResponses(ctx, rs); err != nil {
				b.Fatal(err)
			}
			rs = rs[:0]
		}
	}
	if err := s.PutResponses(ctx, rs); err != nil {
		b.Fatal(err)
	}
	if err := s.SnapshotScores(ctx, d.Name, "j", "bank"); err != nil { // as a run's end does
		b.Fatal(err)
	}
}

// BenchmarkScores1k reads the 608,000 answers of studyWorkspace1k as
// score rows, in Scores' order: what prism fit --workspace reads. A
// workspace of schema 5 reads the study's score snapshot.
func BenchmarkScores1k(b *testing.B) { benchScores1k(b, true) }

// BenchmarkScores1kScan is BenchmarkScores1k reading the request rows, as
// Scores does when a study has no current snapshot.
func BenchmarkScores1kScan(b *testing.B) { benchScores1k(b, false) }

func benchScores1k(b *testing.B, snapshots bool) {
	readSnapshots = snapshots
	defer func() { readSnapshots = true }()
	s := studyWorkspace1k(b)
	ctx := context.Background()
	dataset, judge := "synth", "j"
	if os.Getenv("PRISM_BENCH_WORKSPACE") != "" {
		dataset, judge = os.Getenv("PRISM_BENCH_DATASET"), os.Getenv("PRISM_BENCH_JUDGE")
	}
	b.ReportAllocs()
	for b.Loop() {
		rows, err := s.Scores(ctx, dataset, judge, "")
		if err != nil {
			b.Fatal(err)
		}
		if len(rows) == 0 {
			b.Fatal("no rows")
		}
		sink = rows
	}
}

// BenchmarkSnapshotScores1k writes the score snapshot of the 608,000
// answers of studyWorkspace1k: what a run's end costs (Lease.Release).
func BenchmarkSnapshotScores1k(b *testing.B) {
	if os.Getenv("PRISM_BENCH_WORKSPACE") != "" {
		b.Skip("writes: needs the built workspace")
	}
	s := studyWorkspace1k(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.w.Exec(`UPDATE studies SET generation = generation + 1`); err != nil { // make it stale
			b.Fatal(err)
		}
		if err := s.SnapshotScores(ctx, "synth", "j", "bank"); err != nil {
			b.Fatal(err)
		}
	}
}
