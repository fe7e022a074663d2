package store

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// twoStores opens one workspace twice, as two prism processes would.
func twoStores(t *testing.T) (*Store, *Store) {
	t.Helper()
	a := openTemp(t)
	seedJudgeAndDataset(t, a)
	b, err := Open(context.Background(), a.Path())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return a, b
}

func TestLeaseOneRunPerStudy(t *testing.T) {
	ctx := context.Background()
	a, b := twoStores(t)
	l, err := a.AcquireStudy(ctx, "tiny", 0, "j", "bank1")
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.AcquireStudy(ctx, "tiny", 0, "j", "bank1")
	var busy *BusyError
	if !errors.As(err, &busy) || !errors.Is(err, ErrBusy) {
		t.Fatalf("second run on the same study: err = %v, want a BusyError", err)
	}
	if !strings.Contains(err.Error(), "pid "+strconv.Itoa(l.PID)) || busy.Holder.Judge != "j" {
		t.Errorf("the refusal does not name the other run: %v", err)
	}
	// Other studies of the same workspace run at once.
	for _, other := range [][2]string{{"j", "bank2"}, {"j2", "bank1"}} {
		l2, err := b.AcquireStudy(ctx, "tiny", 0, other[0], other[1])
		if err != nil {
			t.Fatalf("study %v: %v", other, err)
		}
		defer l2.Release(ctx)
	}
	runs, err := b.Runs(ctx)
	if err != nil || len(runs) != 3 {
		t.Fatalf("Runs = %v, %v; want 3 live runs", runs, err)
	}
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}
	l3, err := b.AcquireStudy(ctx, "tiny", 0, "j", "bank1")
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	l3.Release(ctx)
}

func TestLeaseLocksDataset(t *testing.T) {
	ctx := context.Background()
	a, b := twoStores(t)
	l, err := a.AcquireStudy(ctx, "tiny", 0, "j", "bank1")
	if err != nil {
		t.Fatal(err)
	}
	if err := b.PutDataset(ctx, tinyDataset("tiny"), true); !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "stop that run") {
		t.Errorf("replace under a run: err = %v, want ErrBusy", err)
	}
	if err := b.DeleteDataset(ctx, "tiny"); !errors.Is(err, ErrBusy) {
		t.Errorf("delete under a run: err = %v, want ErrBusy", err)
	}
	// The refusals changed nothing.
	if _, err := b.Dataset(ctx, "tiny"); err != nil {
		t.Fatal(err)
	}
	if err := l.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	l.Release(ctx)
	if err := b.DeleteDataset(ctx, "tiny"); err != nil {
		t.Fatalf("delete after the run: %v", err)
	}
}

// deadPID finds a pid with no process on this host.
func deadPID(t *testing.T) int {
	for pid := 4_000_000; pid > 3_000_000; pid -= 7919 {
		if !processAlive(pid) {
			return pid
		}
	}
	t.Fatal("no free pid found")
	return 0
}

func TestLeaseStaleIsTakenOver(t *testing.T) {
	ctx := context.Background()
	now := time.Now()
	cases := []struct {
		name      string
		pid       int
		host      string
		heartbeat time.Time
		stale     bool
	}{
		{"killed process on this host", deadPID(t), hostName(), now, true},
		{"live process, old heartbeat", 1, hostName(), now.Add(-2 * LeaseTTL), true},
		{"other host, old heartbeat", 1, "elsewhere", now.Add(-2 * LeaseTTL), true},
		{"other host, fresh heartbeat", 1, "elsewhere", now, false},
		{"live process on this host", 1, hostName(), now, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := openTemp(t)
			seedJudgeAndDataset(t, s)
			if _, err := s.w.ExecContext(ctx, `INSERT INTO runs(dataset_id, judge, bank_hash, token, pid, host, started, heartbeat)
				SELECT id, 'j', 'b', 'tok', ?, ?, ?, ? FROM datasets WHERE name = 'tiny'`,
				c.pid, c.host, formatTime(c.heartbeat), formatTime(c.heartbeat)); err != nil {
				t.Fatal(err)
			}
			l, err := s.AcquireStudy(ctx, "tiny", 0, "j", "b")
			if c.stale {
				if err != nil {
					t.Fatalf("stale lease not taken over: %v", err)
				}
				l.Release(ctx)
			} else if !errors.Is(err, ErrBusy) {
				t.Fatalf("live lease taken over: err = %v", err)
			}
			// A stale lease does not block deleting the dataset either.
			err = s.DeleteDataset(ctx, "tiny")
			if c.stale != (err == nil) {
				t.Errorf("DeleteDataset: err = %v, stale = %v", err, c.stale)
			}
		})
	}
}

func TestLeaseLostAndRevision(t *testing.T) {
	ctx := context.Background()
	a, b := twoStores(t)
	_, rev, err := a.DatasetAt(ctx, "tiny")
	if err != nil || rev == 0 {
		t.Fatalf("DatasetAt: rev %d, %v", rev, err)
	}
	// Replacing draws a new revision even when SQLite reuses the row id.
	if err := b.PutDataset(ctx, tinyDataset("tiny"), true); err != nil {
		t.Fatal(err)
	}
	rev2, err := b.DatasetRevision(ctx, "tiny")
	if err != nil || rev2 == rev {
		t.Fatalf("revision after replace = %d (was %d), %v", rev2, rev, err)
	}
	if _, err := a.AcquireStudy(ctx, "tiny", rev, "j", "b"); !errors.Is(err, ErrDatasetChanged) {
		t.Fatalf("acquire with the old revision: err = %v, want ErrDatasetChanged", err)
	}
	l, err := a.AcquireStudy(ctx, "tiny", rev2, "j", "b")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(ctx)
	// Someone removes the row (a takeover after a stall): the holder learns.
	if _, err := b.w.ExecContext(ctx, "DELETE FROM runs"); err != nil {
		t.Fatal(err)
	}
	if err := l.Refresh(ctx); !errors.Is(err, ErrLeaseLost) {
		t.Fatalf("Refresh after takeover: err = %v, want ErrLeaseLost", err)
	}
}

// TestZombieIsNotAlive: a killed child not yet reaped holds no lease.
func TestZombieIsNotAlive(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Skipf("no sleep command: %v", err) // not a prism feature: the OS lacks the tool
	}
	pid := cmd.Process.Pid
	if !processAlive(pid) {
		t.Fatal("a running child is not alive")
	}
	cmd.Process.Kill()
	// Until Wait reaps it the child is a zombie; wait until /proc says so.
	for i := 0; ; i++ {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			t.Skip("no /proc on this system")
		}
		if j := bytes.LastIndexByte(b, ')'); j >= 0 && b[j+2] == 'Z' {
			break
		}
		runtime.Gosched()
		if i > 1e7 {
			t.Fatal("the killed child never became a zombie")
		}
	}
	if processAlive(pid) {
		t.Error("a zombie counts as alive")
	}
	cmd.Wait()
}
