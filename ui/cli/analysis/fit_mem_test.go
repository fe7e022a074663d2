package analysis

import (
	"math"
	"runtime/debug"
	"testing"
)

// TestFitMemLimit: the limit is the starting heap plus 1.75× the design
// plus 8 MiB, grows with the design by an eighth or more, and is put back
// by restore; a limit set before (GOMEMLIMIT) is left alone.
func TestFitMemLimit(t *testing.T) {
	if debug.SetMemoryLimit(-1) != math.MaxInt64 {
		t.Skip("a memory limit is set (GOMEMLIMIT): fit leaves it alone")
	}
	l := newFitMemLimit()
	defer l.restore()
	if !l.on || l.base <= 0 {
		t.Fatalf("limit off (on %v, base %d)", l.on, l.base)
	}
	l.update(10 << 20)
	if got, want := debug.SetMemoryLimit(-1), l.base+35<<19+8<<20; got != want {
		t.Errorf("limit %d, want %d", got, want)
	}
	l.update(11 << 20) // under an eighth more: unchanged
	if got, want := debug.SetMemoryLimit(-1), l.base+35<<19+8<<20; got != want {
		t.Errorf("limit %d after a small growth, want %d", got, want)
	}
	l.update(12 << 20)
	if got, want := debug.SetMemoryLimit(-1), l.base+21<<20+8<<20; got != want {
		t.Errorf("limit %d, want %d", got, want)
	}
	// A second fit in the process while this limit holds leaves it alone.
	inner := newFitMemLimit()
	inner.update(1 << 30)
	inner.restore()
	if got, want := debug.SetMemoryLimit(-1), l.base+21<<20+8<<20; got != want {
		t.Errorf("limit %d after a nested fit, want %d", got, want)
	}
	l.restore()
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("limit %d after restore, want none", got)
	}
}

// TestFitRestoresMemoryLimit: prism fit from files leaves no limit behind.
func TestFitRestoresMemoryLimit(t *testing.T) {
	if debug.SetMemoryLimit(-1) != math.MaxInt64 {
		t.Skip("a memory limit is set (GOMEMLIMIT)")
	}
	scores, labels := writeFitFiles(t, 12)
	if code, _, errOut := runFitCmd("--scores", scores, "--labels", labels, "--bootstrap", "50", "--json"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("limit %d after prism fit, want none", got)
	}
}
