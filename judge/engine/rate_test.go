package engine

import (
	"testing"
	"time"
)

// Rate and ETA are computed over the run's active time: while it is
// paused they stand still however long the pause lasts, and after a
// resume the pause does not count.
func TestRateExcludesPausedTime(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	r := &Run{start: t0, lim: NewLimiter(Limits{}), gate: make(chan struct{})}
	close(r.gate)
	r.prog.Total, r.prog.Done, r.prog.Sent = 100, 10, 10
	r.prog.Errors = map[string]int{}

	running := r.snapshotAt(t0.Add(10 * time.Second))
	if running.Rate != 1 || running.ETA != 90*time.Second || running.Active != 10*time.Second {
		t.Fatalf("running: rate %v ETA %v active %v, want 1/s, 90s, 10s", running.Rate, running.ETA, running.Active)
	}
	r.pauseLocked(t0.Add(10 * time.Second))
	for _, after := range []time.Duration{time.Second, time.Minute, time.Hour} {
		p := r.snapshotAt(t0.Add(10*time.Second + after))
		if p.Rate != running.Rate || p.ETA != running.ETA || p.Active != running.Active {
			t.Errorf("paused for %v: rate %v ETA %v active %v, want them as at the pause (%v, %v, %v)",
				after, p.Rate, p.ETA, p.Active, running.Rate, running.ETA, running.Active)
		}
		if p.Elapsed != 10*time.Second+after {
			t.Errorf("paused for %v: elapsed %v, want the wall time", after, p.Elapsed)
		}
	}
	resumed := t0.Add(10*time.Second + time.Hour)
	r.resumeLocked(resumed)
	r.prog.Done, r.prog.Sent = 20, 20
	p := r.snapshotAt(resumed.Add(10 * time.Second))
	if p.Active != 20*time.Second || p.Rate != 1 || p.ETA != 80*time.Second {
		t.Errorf("resumed: active %v rate %v ETA %v, want 20s, 1/s, 80s", p.Active, p.Rate, p.ETA)
	}
	// A second pause adds to the first.
	r.pauseLocked(resumed.Add(10 * time.Second))
	r.resumeLocked(resumed.Add(40 * time.Second))
	if p := r.snapshotAt(resumed.Add(50 * time.Second)); p.Active != 30*time.Second {
		t.Errorf("after two pauses: active %v, want 30s", p.Active)
	}
}

func TestRateETA(t *testing.T) {
	for _, tc := range []struct {
		sent, remaining int
		active          time.Duration
		rate            float64
		eta             time.Duration
	}{
		{0, 10, time.Second, 0, 0},
		{10, 10, 0, 0, 0},
		{10, 0, 5 * time.Second, 2, 0},
		{10, 20, 5 * time.Second, 2, 10 * time.Second},
	} {
		rate, eta := rateETA(tc.sent, tc.remaining, tc.active)
		if rate != tc.rate || eta != tc.eta {
			t.Errorf("rateETA(%d, %d, %v) = %v, %v; want %v, %v", tc.sent, tc.remaining, tc.active, rate, eta, tc.rate, tc.eta)
		}
	}
}
