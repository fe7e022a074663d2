package engine

import (
	"context"
	"crypto/sha256"
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/model/synthstudy"
)

// sendLog records, in order, what its judges were sent: the run and a
// digest of the messages.
type sendLog struct {
	mu   sync.Mutex
	sent []string
}

type loggedJudge struct {
	judge.Judge
	run int
	log *sendLog
}

func (j loggedJudge) Score(ctx context.Context, req banks.Request) (judge.Result, error) {
	h := sha256.New()
	for _, m := range req.Messages {
		fmt.Fprintf(h, "%s\x00%s\x00", m.Role, m.Content)
	}
	j.log.mu.Lock()
	j.log.sent = append(j.log.sent, fmt.Sprintf("%d/%x", j.run, h.Sum(nil)[:8]))
	j.log.mu.Unlock()
	return j.Judge.Score(ctx, req)
}

// runPlan starts p with logged offline judges at concurrency 1 (so the
// log is the send order) and waits for the end.
func runPlan(t *testing.T, st *store.Store, p *Plan) (Summary, []string) {
	t.Helper()
	js, err := NewJudges(p.Spec.Config, p.Spec.Repeats, nil)
	if err != nil {
		t.Fatal(err)
	}
	log := &sendLog{}
	for r := range js {
		js[r] = loggedJudge{js[r], r, log}
	}
	run, err := Start(context.Background(), st, js, p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := run.Wait()
	if err != nil {
		t.Fatal(err)
	}
	return sum, log.sent
}

// streamPair opens two workspaces holding d, for a whole and a streamed
// run of the same study.
func streamPair(t *testing.T, d *model.Dataset) (whole, streamed *store.Store) {
	whole, _ = openStore(t, d)
	streamed, _ = openStore(t, d)
	return whole, streamed
}

// bothPlans plans spec whole in wst and streamed in sst.
func bothPlans(t *testing.T, wst, sst *store.Store, spec Spec) (whole, streamed *Plan) {
	t.Helper()
	ctx := context.Background()
	whole, err := NewPlan(ctx, wst, spec)
	if err != nil {
		t.Fatal(err)
	}
	if streamed, err = NewRunPlan(ctx, sst, spec); err != nil {
		t.Fatal(err)
	}
	return whole, streamed
}

// scoresOf is the study's stored scores (Store.Scores' order).
func scoresOf(t *testing.T, st *store.Store, p *Plan) []model.ScoreRow {
	t.Helper()
	rows, err := st.Scores(context.Background(), p.Spec.Dataset.Name, p.Spec.JudgeName, p.BankHash)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// sameScores compares two studies' scores bit for bit.
func sameScores(t *testing.T, a, b []model.ScoreRow) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%d rows vs %d", len(a), len(b))
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.Context != y.Context || x.Candidate != y.Candidate || x.Probe != y.Probe || x.Wording != y.Wording || x.Run != y.Run ||
			x.Missing != y.Missing || math.Float64bits(x.Score) != math.Float64bits(y.Score) {
			t.Fatalf("row %d: %+v vs %+v", i, x, y)
		}
	}
}

// A streamed plan sends what NewPlan's sends, in the same order, and
// stores the same answers, bit for bit, whatever the chunk size (chunks
// ending mid-candidate and mid-context included).
func TestStreamedRunEqualsWholeRun(t *testing.T) {
	d := synthstudy.Dataset(5, 3, 11)
	for _, chunk := range []int{1, 7, 38, 100, 1 << 20} {
		t.Run(fmt.Sprint(chunk), func(t *testing.T) {
			wst, sst := streamPair(t, d)
			spec := offlineSpec(t, d, 2)
			spec.Limits.Concurrency = 1
			wp, sp := bothPlans(t, wst, sst, spec)
			if !sp.Streamed() || len(sp.Items) != 0 || sp.Estimate != wp.Estimate || sp.PendingCount() != len(wp.Pending) {
				t.Fatalf("streamed plan: %v, %d items, %+v, %d pending; whole: %+v, %d pending",
					sp.Streamed(), len(sp.Items), sp.Estimate, sp.PendingCount(), wp.Estimate, len(wp.Pending))
			}
			sp.chunk = chunk
			wsum, wsent := runPlan(t, wst, wp)
			ssum, ssent := runPlan(t, sst, sp)
			if !slices.Equal(wsent, ssent) {
				t.Fatalf("sent %d requests streamed, %d whole, or in another order", len(ssent), len(wsent))
			}
			if n := d.NumCandidates() * 38 * 2; len(ssent) != n || ssum.Total != n || ssum.Done != n || ssum.Stored != n || ssum.Answered != wsum.Answered {
				t.Fatalf("streamed summary %+v, whole %+v; want %d requests", ssum.Progress, wsum.Progress, n)
			}
			sameScores(t, scoresOf(t, wst, wp), scoresOf(t, sst, sp))
		})
	}
}

// A streamed plan resolves each chunk as NewPlan resolves its items: in
// a workspace holding some of the study's answers, a failure, and
// answers to the same messages under another judge name, it sends
// exactly what NewPlan's run sends and stores the cache hits.
func TestStreamedRunResumesAndUsesTheCache(t *testing.T) {
	d := synthstudy.Dataset(4, 3, 5)
	wst, sst := streamPair(t, d)
	spec := offlineSpec(t, d, 3)
	spec.Limits.Concurrency = 1
	for _, st := range []*store.Store{wst, sst} {
		other := offlineSpec(t, d, 2)
		other.JudgeName = "other"
		if _, _, err := runToEnd(t, st, other, Options{}); err != nil {
			t.Fatal(err)
		}
		storeScattered(t, st, spec, 4)
	}
	wp, sp := bothPlans(t, wst, sst, spec)
	if e := sp.Estimate; e != wp.Estimate || e.Answered == 0 || e.CacheHits == 0 || e.Send == 0 {
		t.Fatalf("streamed estimate %+v, whole %+v: want answered, cached and sent requests", sp.Estimate, wp.Estimate)
	}
	sp.chunk = 10
	wsum, wsent := runPlan(t, wst, wp)
	ssum, ssent := runPlan(t, sst, sp)
	if !slices.Equal(wsent, ssent) || len(ssent) != wp.Estimate.Send {
		t.Fatalf("sent %d streamed, %d whole (plan: %d), or in another order", len(ssent), len(wsent), wp.Estimate.Send)
	}
	if ssum.Total != wsum.Total || ssum.CacheHits != wsum.CacheHits || ssum.Sent != wsum.Sent || ssum.Stored != wsum.Stored {
		t.Fatalf("streamed summary %+v\nwhole %+v", ssum.Progress, wsum.Progress)
	}
	sameScores(t, scoresOf(t, wst, wp), scoresOf(t, sst, sp))
}

// storeScattered stores, for spec's study in st, an answer (score 3) at
// every n-th request of its plan, every third of them a failure instead.
func storeScattered(t *testing.T, st *store.Store, spec Spec, n int) {
	t.Helper()
	ctx := context.Background()
	p, err := NewPlan(ctx, st, spec)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.PutJudge(ctx, p.Judge); err != nil {
		t.Fatal(err)
	}
	var rs []store.Response
	for i := 0; i < len(p.Items); i += n {
		r := store.Response{Request: p.Row(&p.Items[i]), Score: 3}
		if i%3 == 0 {
			r.Score, r.ErrKind, r.Err = math.NaN(), "timeout", "slow"
		}
		rs = append(rs, r)
	}
	if err := st.PutResponses(ctx, rs); err != nil {
		t.Fatal(err)
	}
}

// A streamed run canceled part-way stores what it finished, and a new
// streamed plan sends only the rest.
func TestStreamedRunCancelAndResume(t *testing.T) {
	ctx := context.Background()
	d := synthstudy.Dataset(4, 3, 9)
	st, _ := openStore(t, d)
	spec := offlineSpec(t, d, 1)
	spec.Limits.Concurrency = 1
	p, err := NewRunPlan(ctx, st, spec)
	if err != nil {
		t.Fatal(err)
	}
	p.chunk = 25
	js, err := NewJudges(spec.Config, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	step := &stepJudge{inner: js[0], started: make(chan struct{}), proceed: make(chan struct{})}
	run, err := Start(ctx, st, []judge.Judge{step}, p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for range 60 { // 60 calls answered: more than two chunks
		<-step.started
		step.proceed <- struct{}{}
	}
	<-step.started // the 61st is in flight: abandoned by the cancel
	run.Cancel()
	sum, _ := run.Wait()
	if !sum.Canceled || sum.Stored != 60 {
		t.Fatalf("canceled run: %+v", sum.Progress)
	}
	again, err := NewRunPlan(ctx, st, spec)
	if err != nil {
		t.Fatal(err)
	}
	n := d.NumCandidates() * 38
	if again.Estimate.Answered != sum.Stored || again.PendingCount() != n-sum.Stored {
		t.Fatalf("after the cancel: %+v, want %d answered", again.Estimate, sum.Stored)
	}
	again.chunk = 25
	rest, sent := runPlan(t, st, again)
	if len(sent) != n-sum.Stored || rest.Stored != n-sum.Stored {
		t.Fatalf("resume sent %d, stored %d; want %d", len(sent), rest.Stored, n-sum.Stored)
	}
	if pr, err := st.Progress(ctx, d.Name, spec.JudgeName, again.BankHash); err != nil || pr.Answered != n {
		t.Fatalf("study %+v %v, want %d answered", pr, err, n)
	}
}

// A streamed plan's first chunk is firstChunk items, so that a run's
// first requests do not wait for a whole chunk to be made; the others
// are streamChunk items, and together they are the plan's items in
// order.
func TestStreamedPlanFirstChunkIsSmall(t *testing.T) {
	d := synthstudy.Dataset(30, 16, 3) // 30 × 16 × 38 = 18,240 items
	st, _ := openStore(t, d)
	spec := offlineSpec(t, d, 1)
	spec.Limits.Concurrency = 4
	ctx := context.Background()
	whole, err := NewPlan(ctx, st, spec)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := NewRunPlan(ctx, st, spec)
	if err != nil {
		t.Fatal(err)
	}
	if !sp.Streamed() {
		t.Fatal("the plan does not stream")
	}
	out := make(chan *Plan)
	errc := make(chan error, 1)
	go func() { errc <- sp.chunks(ctx, st, out) }()
	var sizes []int
	var items []Item
	for cp := range out {
		sizes = append(sizes, len(cp.Items))
		items = append(items, cp.Items...)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	first := firstChunk(4)
	if first != 256 || len(whole.Items) <= first+streamChunk {
		t.Fatalf("firstChunk(4) = %d for a plan of %d items: the test needs three chunks", first, len(whole.Items))
	}
	// A chunk is its size, and then the rest of its last context, so
	// that a context's identical requests are in one chunk.
	want := []int{first, streamChunk}
	if len(sizes) != 3 {
		t.Fatalf("chunks of %v items, want 3", sizes)
	}
	at := 0
	for c, n := range sizes[:2] {
		at += n
		last, next := items[at-1].Context, items[at].Context
		ctxItems := len(d.Contexts[last].Candidates) * 38
		if n < want[c] || n >= want[c]+ctxItems || last == next {
			t.Fatalf("chunk %d of %d items (contexts %d, then %d), want %d and the rest of its last context", c, n, last, next, want[c])
		}
	}
	// Lead indexes the item's own chunk: the rest must be equal.
	noLead := func(its []Item) []Item {
		its = slices.Clone(its)
		for i := range its {
			its[i].Lead = 0
		}
		return its
	}
	if !slices.Equal(noLead(items), noLead(whole.Items)) {
		t.Fatal("the chunks' items are not the plan's, in order")
	}
	if got := firstChunk(128); got != 1024 {
		t.Fatalf("firstChunk(128) = %d, want 8 rounds of 128", got)
	}
}
