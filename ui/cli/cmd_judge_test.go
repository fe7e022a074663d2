package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestJudgeTryOffline(t *testing.T) {
	var out, errb bytes.Buffer
	if code := runMain(context.Background(), []string{"judge", "try", "--repeats", "3", "--mode", "expected"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	s := out.String()
	if !strings.Contains(s, "offline (simulator)") || !strings.Contains(s, "baseline") {
		t.Errorf("output does not name the simulator and the baseline:\n%s", s)
	}
	out.Reset()
	if code := runMain(context.Background(), []string{"judge", "try", "--all"}, &out, &errb); code != 0 {
		t.Fatalf("--all exit %d: %s", code, errb.String())
	}
	if n := strings.Count(out.String(), ":+"); n < 2 {
		t.Errorf("--all printed %d plus probes:\n%s", n, out.String())
	}
}

func TestJudgeTryUsage(t *testing.T) {
	for _, args := range [][]string{{"judge"}, {"judge", "run"}, {"judge", "try", "--mode", "logits"}, {"judge", "try", "--candidate", "99"}, {"judge", "try", "--backend", "openai"}} {
		var out, errb bytes.Buffer
		if code := runMain(context.Background(), args, &out, &errb); code == 0 {
			t.Errorf("%v: exit 0", args)
		}
	}
}
