package study

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/model/store"
)

// bankSpec is an offline run of the built-in bank name on the tiny
// dataset, runs runs, acquired by diagnostic ("" for prism run).
func bankSpec(t *testing.T, name string, runs int, diagnostic string) engine.Spec {
	t.Helper()
	b, err := banks.Builtin(name)
	if err != nil {
		t.Fatal(err)
	}
	return engine.Spec{Dataset: tinyDataset("tiny"), Bank: b, BankSource: "builtin:" + name, JudgeName: "offline",
		Config: judge.Defaults(), Repeats: runs, Limits: engine.Limits{Concurrency: 2}, Diagnostic: diagnostic}
}

// Pick takes the study prism run planned, names it when diagnostics hold
// others, reads its planned runs only, and refuses two planned studies.
func TestPickAndRead(t *testing.T) {
	ctx := context.Background()
	st, _ := openStore(t, tinyDataset("tiny"))
	if _, _, err := Pick(ctx, st, "tiny", "offline", ""); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("no study yet: %v", err)
	}
	runSpec(t, st, bankSpec(t, "quality", 1, ""), 0, 0)
	runSpec(t, st, bankSpec(t, "quality", 2, "screen"), 0, 0) // a second run of the same study
	runSpec(t, st, bankSpec(t, "ladder", 1, "diagnose wording"), 0, 0)

	info, note, err := Pick(ctx, st, "tiny", "offline", "")
	if err != nil || info.BankName != "quality" || info.PlannedRuns != 1 || !strings.Contains(note, "1 other bank versions hold only diagnostics' answers") {
		t.Fatalf("Pick = %+v, %q, %v", info, note, err)
	}
	d, err := Read(ctx, st, info, Runs{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range d.Rows {
		if r.Run != "0" {
			t.Fatalf("a planned read holds run %q", r.Run)
		}
	}
	s := d.Study
	if s.Runs != "planned" || s.RunsPerContext != [2]int{1, 1} || s.Answers != len(d.Rows) || s.Contexts != 2 || s.Candidates != 4 ||
		s.Bank != "quality" || s.Scale != "1–10" || s.Backend != judge.BackendOffline {
		t.Errorf("the planned read's study: %+v", s)
	}
	all, err := Read(ctx, st, info, Runs{All: true})
	if err != nil || len(all.Rows) != 2*len(d.Rows) || all.Study.RunsPerContext != [2]int{2, 2} {
		t.Errorf("--runs all: %d rows (want %d), %+v, %v", len(all.Rows), 2*len(d.Rows), all.Study.RunsPerContext, err)
	}

	runSpec(t, st, bankSpec(t, "style8", 1, ""), 0, 0)
	var amb *AmbiguousError
	if _, _, err := Pick(ctx, st, "tiny", "offline", ""); !errors.As(err, &amb) || len(amb.Studies) != 3 ||
		!strings.Contains(err.Error(), "never pooled") || !strings.Contains(err.Error(), "style8 ") {
		t.Fatalf("two planned studies: %v", err)
	}
	b, _ := banks.Builtin("style8")
	if info, _, err := Pick(ctx, st, "tiny", "offline", b.Hash()); err != nil || info.BankName != "style8" {
		t.Errorf("--bank style8: %+v, %v", info, err)
	}
}

func TestParseRuns(t *testing.T) {
	for in, want := range map[string]Runs{"": {}, "planned": {}, "all": {All: true}, "3": {N: 3}} {
		if got, err := ParseRuns(in); err != nil || got != want {
			t.Errorf("ParseRuns(%q) = %+v, %v", in, got, err)
		}
	}
	for _, bad := range []string{"0", "-1", "x", "1.5"} {
		if _, err := ParseRuns(bad); err == nil {
			t.Errorf("ParseRuns(%q) accepted", bad)
		}
	}
}
