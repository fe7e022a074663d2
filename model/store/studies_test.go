package store

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestStudies(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	seedJudgeAndDataset(t, s)
	if st, err := s.Studies(ctx); err != nil || len(st) != 0 {
		t.Fatalf("Studies of an empty workspace = %+v, %v", st, err)
	}
	// b answered (after a failure); a failed twice; c answered.
	err := s.PutResponses(ctx, []Response{
		failure("c2", "b", "baseline", "0", "timeout"),
		answer("c2", "b", "baseline", "0", 4),
		failure("c2", "a", "baseline", "0", "timeout"),
		failure("c2", "a", "baseline", "0", "http-429"),
		answer("c1", "x", "baseline", "0", 2),
	})
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Studies(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := StudyInfo{Dataset: "tiny", Judge: "j", BankHash: testBank, Requests: 3, Answered: 2, Failed: 1, Failures: 3,
		PlanAnswered: 2, PlanFailed: 1, Runs: []string{"0"}, Generation: 1}
	if len(st) != 1 || !reflect.DeepEqual(st[0], want) {
		t.Errorf("Studies = %+v, want [%+v]", st, want)
	}
}

// A study's progress is counted against its plan: an interrupted run
// shows the requests it planned, of them those answered and failed; a
// diagnostic's extra runs are answers beyond the plan, and its name is
// recorded; a plan only widens.
func TestStudyPlanProgress(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	seedJudgeAndDataset(t, s)
	if err := s.PlanStudy(ctx, StudyPlan{Dataset: "tiny", Judge: "j", BankHash: testBank, Runs: 1, Requests: 10}); err != nil {
		t.Fatal(err)
	}
	one := func() StudyInfo {
		t.Helper()
		st, err := s.Studies(ctx)
		if err != nil || len(st) != 1 {
			t.Fatalf("Studies = %+v, %v", st, err)
		}
		return st[0]
	}
	if got := one(); got.Planned != 10 || got.PlannedRuns != 1 || got.Requests != 0 || got.PlanAnswered != 0 {
		t.Errorf("a planned study before any answer: %+v", got)
	}
	// Interrupted: 2 of the 10 answered, one failed; then a screen's run 1.
	err := s.PutResponses(ctx, []Response{
		answer("c1", "x", "baseline", "0", 4),
		answer("c2", "a", "baseline", "0", 5),
		failure("c2", "b", "baseline", "0", "timeout"),
		answer("c1", "x", "baseline", "1", 6),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.PlanStudy(ctx, StudyPlan{Dataset: "tiny", Judge: "j", BankHash: testBank, Runs: 2, Requests: 4, Diagnostic: "screen"}); err != nil {
		t.Fatal(err)
	}
	got := one()
	if got.Planned != 10 || got.PlannedRuns != 1 || got.PlanAnswered != 2 || got.PlanFailed != 1 || got.Answered != 3 ||
		!slices.Equal(got.Diagnostics, []string{"screen"}) || !slices.Equal(got.Runs, []string{"0", "1"}) {
		t.Errorf("after an interrupted run and a screen: %+v", got)
	}
	// A later run with fewer requests keeps the plan; one with more runs widens it.
	for _, p := range []StudyPlan{{Runs: 1, Requests: 5}, {Runs: 2, Requests: 20}} {
		p.Dataset, p.Judge, p.BankHash = "tiny", "j", testBank
		if err := s.PlanStudy(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if got := one(); got.Planned != 20 || got.PlannedRuns != 2 || got.PlanAnswered != 3 {
		t.Errorf("after a wider plan: %+v", got)
	}
}

func TestRunInPlan(t *testing.T) {
	for _, c := range []struct {
		run  string
		runs int
		want bool
	}{
		{"0", 1, true}, {"1", 1, false}, {"1", 2, true}, {"10", 2, false}, {"x", 2, false}, {"01", 2, false},
		{"o3", 1, true}, {"o3r1", 1, false}, {"o3r1", 2, true}, {"or1", 2, false}, {"", 1, false},
		{"anything", 0, true}, {"", 0, true},
	} {
		if got := RunInPlan(c.run, c.runs); got != c.want {
			t.Errorf("RunInPlan(%q, %d) = %v, want %v", c.run, c.runs, got, c.want)
		}
	}
}

// A stored report comes back newest first, with its study's generation.
func TestReportsStored(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	for i, body := range []string{`{"a":1}`, `{"a":2}`} {
		id, err := s.PutReport(ctx, StoredReport{Kind: "fit", Dataset: "d", Judge: "j", BankHash: "h", Runs: "planned", Generation: int64(i), Inputs: "x", Body: []byte(body)})
		if err != nil || id != int64(i+1) {
			t.Fatalf("PutReport = %d, %v", id, err)
		}
	}
	reps, err := s.Reports(ctx, "fit", "d", true)
	if err != nil || len(reps) != 2 || string(reps[0].Body) != `{"a":2}` || reps[0].Generation != 1 || reps[1].ID != 1 {
		t.Fatalf("Reports = %+v, %v", reps, err)
	}
	if reps, _ := s.Reports(ctx, "fit", "other", false); len(reps) != 0 {
		t.Errorf("another dataset's reports: %+v", reps)
	}
}

// StudiesOf names a judge's studies on a dataset with their plans,
// without counting; FailedRuns counts one study's failed requests per
// run.
func TestStudiesOfAndFailedRuns(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	seedJudgeAndDataset(t, s)
	if err := s.PlanStudy(ctx, StudyPlan{Dataset: "tiny", Judge: "j", BankHash: testBank, Runs: 1, Requests: 10}); err != nil {
		t.Fatal(err)
	}
	err := s.PutResponses(ctx, []Response{
		answer("c1", "x", "baseline", "0", 4),
		failure("c2", "b", "baseline", "0", "timeout"),
		failure("c2", "b", "baseline", "1", "timeout"),
		failure("c2", "a", "baseline", "1", "timeout"),
		failure("c2", "a", "baseline", "1", "timeout"),
	})
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.StudiesOf(ctx, "tiny", "j")
	if err != nil || len(st) != 1 || st[0].BankHash != testBank || st[0].PlannedRuns != 1 || st[0].Planned != 10 || st[0].Requests != 0 {
		t.Fatalf("StudiesOf = %+v, %v", st, err)
	}
	if other, err := s.StudiesOf(ctx, "tiny", "nobody"); err != nil || len(other) != 0 {
		t.Errorf("another judge's studies: %+v, %v", other, err)
	}
	failed, err := s.FailedRuns(ctx, "tiny", "j", testBank)
	if err != nil || failed["0"] != 1 || failed["1"] != 2 || len(failed) != 2 {
		t.Errorf("FailedRuns = %v, %v; want 0:1 1:2", failed, err)
	}
}

// Replies returns a candidate's answers in probe, wording, run order,
// without failures, other candidates or other banks.
func TestReplies(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	seedJudgeAndDataset(t, s)
	noScore := answer("c2", "b", "len:-", "0", 0)
	noScore.Score = math.NaN()
	other := answer("c2", "b", "baseline", "1", 9)
	other.BankHash = "other-bank"
	other.Key = keyOf("c2", "b", "other")
	err := s.PutResponses(ctx, []Response{
		answer("c2", "b", "len:+", "1", 4),
		answer("c2", "b", "len:+", "0", 5),
		answer("c2", "b", "baseline", "0", 3),
		noScore,
		failure("c2", "b", "baseline", "1", "timeout"),
		answer("c2", "a", "baseline", "0", 1),
		other,
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Replies(ctx, "tiny", "j", testBank, "c2", "b")
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		probe, run, raw string
		score           float64
	}{
		{"baseline", "0", `{"score": 3}`, 3},
		{"len:+", "0", `{"score": 5}`, 5},
		{"len:+", "1", `{"score": 4}`, 4},
		{"len:-", "0", `{"score": 0}`, math.NaN()},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d replies %+v, want %d", len(got), got, len(want))
	}
	for i, w := range want {
		g := got[i]
		sameScore := g.Score == w.score || (math.IsNaN(g.Score) && math.IsNaN(w.score))
		if g.Probe != w.probe || g.Run != w.run || g.Raw != w.raw || !sameScore {
			t.Errorf("reply %d = %+v, want %+v", i, g, w)
		}
	}
	all, err := s.Replies(ctx, "tiny", "j", "", "c2", "b")
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != len(want)+1 {
		t.Errorf("every bank: %d replies, want %d", len(all), len(want)+1)
	}
}

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

// A Tally counts answers, the answers without a score among them, and
// failed attempts by kind; Add sums two; the rows a run creates with one
// reply each count as requests, answers and failed attempts.
func TestTally(t *testing.T) {
	var a, b Tally
	a.Count("", 3)
	a.Count("", math.NaN())
	a.CountResponse(&Response{ErrKind: "timeout", Score: math.NaN()})
	b.Count("timeout", 0)
	b.Count("http-429", 0)
	b.Count("", 1)
	a.Add(b)
	want := Tally{Answered: 3, Missing: 1, Failed: 3, Errors: map[string]int{"timeout": 2, "http-429": 1}}
	if !reflect.DeepEqual(a, want) {
		t.Fatalf("tally %+v, want %+v", a, want)
	}
	if p := a.newRequests(); p != (Progress{Requests: 6, Answered: 3, Failures: 3}) {
		t.Errorf("progress %+v", p)
	}
	var none Tally
	none.Add(Tally{Answered: 1})
	if none.Errors != nil {
		t.Error("no failure made an error map")
	}
	if st := (StudyInfo{Answered: 7, PlanAnswered: 5}); st.BeyondPlan() != 2 {
		t.Errorf("beyond plan %d, want 2", st.BeyondPlan())
	}
}
