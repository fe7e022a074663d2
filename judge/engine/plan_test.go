package engine

import (
	"testing"

	"github.com/prism-eval/prism/judge"
)

func TestDefaultJudgeName(t *testing.T) {
	cases := []struct {
		cfg  judge.Config
		want string
	}{
		{judge.Config{Backend: judge.BackendOpenAI, Model: "gpt-4o-mini", Mode: judge.ModeInteger}, "gpt-4o-mini"},
		{judge.Config{Backend: judge.BackendOpenAI, Model: "gpt-4o-mini", Mode: judge.ModeExpected}, "gpt-4o-mini-expected"},
		{judge.Config{Backend: judge.BackendOffline, Mode: judge.ModeInteger}, judge.BackendOffline},
		// A simulator variant (docs/judge.md) is a judge of its own.
		{judge.Config{Backend: judge.BackendOffline, Model: "strict", Mode: judge.ModeExpected}, "offline-strict-expected"},
	}
	for _, c := range cases {
		if got := DefaultJudgeName(c.cfg); got != c.want {
			t.Errorf("DefaultJudgeName(%s, %s, %s) = %q, want %q", c.cfg.Backend, c.cfg.Model, c.cfg.Mode, got, c.want)
		}
	}
}
