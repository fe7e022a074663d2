package offline_test

import (
	"strings"
	"testing"

	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/judge/offline"
)

// TestVariantNames: each simulator is labelled a simulator, and its
// answers are stored under a name of their own.
func TestVariantNames(t *testing.T) {
	for _, tc := range []struct{ model, name, stored string }{
		{"", "offline (simulator)", "offline"},
		{"verbose", "offline-verbose (simulator)", "offline-verbose"},
		{"strict", "offline-strict (simulator)", "offline-strict"},
	} {
		cfg := judge.Config{Backend: judge.BackendOffline, Model: tc.model, Mode: judge.ModeInteger, Repeats: 1}
		j, err := offline.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if j.Name() != tc.name || engine.DefaultJudgeName(cfg) != tc.stored {
			t.Errorf("model %q: name %q, stored as %q; want %q, %q", tc.model, j.Name(), engine.DefaultJudgeName(cfg), tc.name, tc.stored)
		}
	}
	_, err := offline.New(judge.Config{Backend: judge.BackendOffline, Model: "gpt-4o"})
	if err == nil || !strings.Contains(err.Error(), "strict, verbose") {
		t.Errorf("unknown variant: %v", err)
	}
}
