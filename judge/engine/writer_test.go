package engine

import (
	"context"
	"database/sql"
	"path/filepath"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/model/store"
)

// paidRun starts d's study as a server judge's (its workers wait for
// their answers to be kept) with js standing in for the server, which is
// never contacted.
func paidRun(t *testing.T, st *store.Store, conc int, js func(inner judge.Judge, calls int) judge.Judge, opts Options) (*Run, *Plan) {
	t.Helper()
	d := tinyDataset("tiny")
	spec := offlineSpec(t, d, 1)
	spec.Config.Backend, spec.Config.Model, spec.Config.BaseURL = judge.BackendOpenAI, "m", "http://127.0.0.1:1/v1"
	spec.JudgeName = "srv"
	spec.Limits.Concurrency = conc
	ctx := context.Background()
	p, err := NewPlan(ctx, st, spec)
	if err != nil {
		t.Fatal(err)
	}
	inner, err := NewJudges(offlineSpec(t, d, 1).Config, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Start(ctx, st, []judge.Judge{js(inner[0], len(p.Sends))}, p, opts)
	if err != nil {
		t.Fatal(err)
	}
	return r, p
}

// steppedPaidRun is paidRun at concurrency 2 with a stepJudge, whose
// calls the test releases one by one.
func steppedPaidRun(t *testing.T, st *store.Store, opts Options) (*Run, *Plan, *stepJudge) {
	t.Helper()
	var sj *stepJudge
	r, p := paidRun(t, st, 2, func(inner judge.Judge, calls int) judge.Judge {
		sj = &stepJudge{inner: inner, started: make(chan struct{}, calls), proceed: make(chan struct{})}
		return sj
	}, opts)
	return r, p, sj
}

// answerFiles lists what the answer journals of older prism versions
// were, beside the workspace path: a run leaves none.
func answerFiles(t *testing.T, path string) []string {
	t.Helper()
	m, err := filepath.Glob(path + ".answers-*")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// A server judge's answer is committed to the tables before its worker
// sends its next request, while the other worker's call is still in
// flight: a transaction of its own (it waits for nothing else), and no
// file beside the workspace.
func TestServerAnswerIsInTheTablesBeforeTheNextCall(t *testing.T) {
	st, path := openStore(t, tinyDataset("tiny"))
	commits := make(chan int, 256)
	r, p, sj := steppedPaidRun(t, st, Options{committed: func(n int) { commits <- n }})
	<-sj.started
	<-sj.started             // both calls in flight
	sj.proceed <- struct{}{} // one answers; the other stays held
	<-sj.started             // its worker's next call
	select {
	case n := <-commits:
		if n != 1 {
			t.Fatalf("first commit held %d responses, want the lone answer", n)
		}
	default:
		t.Fatal("a worker sent its next request before its answer was committed")
	}
	prog, err := st.Progress(context.Background(), p.Spec.Dataset.Name, p.Spec.JudgeName, p.BankHash)
	if err != nil || prog.Answered != 1 {
		t.Fatalf("the tables hold %d answers (err %v) with the next call in flight, want 1", prog.Answered, err)
	}
	if files := answerFiles(t, path); len(files) != 0 {
		t.Errorf("files beside the workspace: %v", files)
	}
	sum := finishHeld(t, r, sj)
	if sum.Stored != len(p.Items) || sum.Study.Answered != len(p.Items) {
		t.Fatalf("stored %d, the study holds %d, want %d", sum.Stored, sum.Study.Answered, len(p.Items))
	}
}

// A canceled run keeps what was answered before the cancel.
func TestCanceledRunKeepsItsAnswers(t *testing.T) {
	st, _ := openStore(t, tinyDataset("tiny"))
	commits := make(chan int, 256)
	r, _, sj := steppedPaidRun(t, st, Options{committed: func(n int) { commits <- n }})
	<-sj.started
	<-sj.started
	sj.proceed <- struct{}{} // one answer, the other call held
	<-commits
	r.Cancel()
	sum, _ := r.Wait()
	if !sum.Canceled || sum.Stored != 1 || sum.Study.Answered != 1 {
		t.Fatalf("canceled %v, stored %d, study %d: want the one answer stored", sum.Canceled, sum.Stored, sum.Study.Answered)
	}
}

// someFailJudge fails every fourth call with a timeout.
type someFailJudge struct {
	judge.Judge
	calls atomic.Int64
}

func (j *someFailJudge) Score(ctx context.Context, r banks.Request) (judge.Result, error) {
	if j.calls.Add(1)%4 == 0 {
		e := &judge.Error{Kind: judge.KindTimeout, Msg: "timeout"}
		return judge.Result{Err: e}, e
	}
	return j.Judge.Score(ctx, r)
}

// A run on a new study ends on the snapshot and the count its writer
// made as it went (store: run_snapshot.go), a server judge's and the
// offline simulator's alike: its
// summary's count of the study is the store's, and the scores read
// through the snapshot are the ones read from the tables. A second run,
// on a study that already holds rows, reads the study back instead, and
// ends the same.
func TestNewStudysRunEndsOnItsOwnSnapshot(t *testing.T) {
	ctx := context.Background()
	for _, backend := range []string{"server", "offline"} {
		t.Run(backend, func(t *testing.T) {
			st, path := openStore(t, tinyDataset("tiny"))
			db, err := sql.Open("sqlite", path) // to drop the snapshot
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			wrap := func(inner judge.Judge, _ int) judge.Judge { return &someFailJudge{Judge: inner} }
			for run, built := range []bool{true, false} {
				var r *Run
				var p *Plan
				if backend == "server" {
					r, p = paidRun(t, st, 3, wrap, Options{})
				} else {
					spec := offlineSpec(t, tinyDataset("tiny"), 1)
					if p, err = NewPlan(ctx, st, spec); err != nil {
						t.Fatal(err)
					}
					js, err := NewJudges(spec.Config, 1, nil)
					if err != nil {
						t.Fatal(err)
					}
					if r, err = Start(ctx, st, []judge.Judge{wrap(js[0], 0)}, p, Options{}); err != nil {
						t.Fatal(err)
					}
				}
				sum, err := r.Wait()
				if err != nil {
					t.Fatal(err)
				}
				if _, ok := r.lease.StudyProgress(); ok != built {
					t.Errorf("run %d: the release used the run's own snapshot: %v, want %v", run, ok, built)
				}
				want, err := st.Progress(ctx, p.Spec.Dataset.Name, p.Spec.JudgeName, p.BankHash)
				if err != nil {
					t.Fatal(err)
				}
				if sum.Study != want || want.Failures == 0 {
					t.Errorf("run %d: the summary counts %+v, the store %+v (want failures)", run, sum.Study, want)
				}
				got, err := st.Scores(ctx, p.Spec.Dataset.Name, p.Spec.JudgeName, p.BankHash)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := db.ExecContext(ctx, `DELETE FROM score_snapshots`); err != nil {
					t.Fatal(err)
				}
				scanned, err := st.Scores(ctx, p.Spec.Dataset.Name, p.Spec.JudgeName, p.BankHash)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, scanned) || len(got) == 0 {
					t.Errorf("run %d: %d scores through the snapshot differ from the %d read from the tables", run, len(got), len(scanned))
				}
			}
		})
	}
}

// The writer's transaction holds what is queued, up to FlushEvery
// responses; one a worker waits for is also cut at CommitWithin (here
// 0: at the first check, after 64 responses), one nobody waits for is
// not; a call's several responses are never split.
func TestGatherIsBoundedByCountAndByTimeWhenWaitedFor(t *testing.T) {
	old := CommitWithin
	CommitWithin = 0
	t.Cleanup(func() { CommitWithin = old })
	ack := make(chan struct{}, 1)
	for _, c := range []struct {
		name       string
		flush, n   int
		ack        chan<- struct{}
		call       int // responses per call (write.many; 0: one response)
		want, acks int
	}{
		{"count", 100, 300, nil, 0, 100, 0},
		{"no waiter, no time bound", 1000, 300, nil, 0, 300, 0},
		{"a waiter, the time bound", 1000, 300, ack, 0, 64, 64},
		{"count, calls of 8 kept whole", 100, 300, nil, 8, 104, 0},
		{"time, calls of 3 kept whole", 1000, 300, ack, 3, 66, 22},
	} {
		r := &Run{opts: Options{FlushEvery: c.flush}, writes: make(chan write, c.n)}
		for range c.n {
			w := write{ack: c.ack}
			if c.call > 0 {
				w.many = make([]store.Response, c.call)
			}
			r.writes <- w
		}
		var tx txn
		tx.take(<-r.writes)
		r.gather(&tx)
		if len(tx.buf) != c.want || len(tx.acks) != c.acks {
			t.Errorf("%s: a transaction of %d responses, %d acknowledgements; want %d, %d", c.name, len(tx.buf), len(tx.acks), c.want, c.acks)
		}
	}
}
