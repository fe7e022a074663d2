package engine

import (
	"context"
	"net/http"
	"testing"

	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/model/datasets"
)

func batchedSpec(t testing.TB, orders, repeats int) Spec {
	d := datasets.Demo()
	s := offlineSpec(t, d, repeats)
	s.JudgeName, s.Orders, s.OrderSeed = "offline-batched", orders, 7
	s.Probes = []string{"baseline", "coverage:+", "coverage:-"}
	return s
}

// A batched study makes one call per context, condition, order and run,
// stores every candidate's score under its order's run label, the score
// being the one the judge gave at the candidate's position; a second run
// sends nothing, and another judge name with the same configuration is
// filled from the cache.
func TestBatchedStudyStoresEachCandidate(t *testing.T) {
	ctx := context.Background()
	spec := batchedSpec(t, 4, 2)
	d := spec.Dataset
	st, _ := openStore(t, d)
	p, sum, err := runToEnd(t, st, spec, Options{})
	if err != nil {
		t.Fatal(err)
	}
	conds := p.Conditions()
	n := d.NumCandidates() * conds * 4 * 2
	calls := len(d.Contexts) * conds * 4 * 2
	if len(p.Items) != n || p.Estimate.Send != calls || sum.Answered != n || sum.Failed != 0 {
		t.Fatalf("items %d (want %d), calls %d (want %d), answered %d failed %d", len(p.Items), n, p.Estimate.Send, calls, sum.Answered, sum.Failed)
	}
	stored, err := st.Judge(ctx, "offline-batched")
	if err != nil {
		t.Fatal(err)
	}
	if seed, ok := stored.OrderSeed(); !ok || seed != 7 {
		t.Fatalf("stored judge params %v: order seed %d %v", stored.Params, seed, ok)
	}
	rows, err := st.Scores(ctx, d.Name, "offline-batched", p.BankHash)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != n {
		t.Fatalf("%d stored rows, want %d", len(rows), n)
	}
	got := map[[5]string]float64{}
	for _, r := range rows {
		if r.Missing {
			t.Fatalf("missing score %+v", r)
		}
		got[[5]string{r.Context, r.Candidate, r.Probe, r.Wording, r.Run}] = r.Score
	}
	// Recompute one call independently: context 0, the baseline, order 1
	// (the reversal of order 0), run 1, with run 1's judge.
	js, err := NewJudges(spec.Config, spec.Repeats, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := d.Contexts[0]
	ids := make([]string, len(c.Candidates))
	for i, cand := range c.Candidates {
		ids[i] = cand.ID
	}
	order := judge.NewOrderPlan(7, c.ID, ids).Order(1)
	for i := range p.Items {
		it := &p.Items[i]
		if it.Context != 0 || it.Order != 1 || it.Run != 1 || p.probe(it) != "baseline" || it.Part != 0 {
			continue
		}
		req, err := p.Request(i)
		if err != nil {
			t.Fatal(err)
		}
		for pos, ki := range order {
			if req.BatchIDs[pos] != ids[ki] {
				t.Fatalf("position %d shows %s, want %s", pos, req.BatchIDs[pos], ids[ki])
			}
		}
		res, err := js[1].Score(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		for pos, item := range res.Items {
			key := [5]string{c.ID, item.ID, "baseline", "0", "o1r1"}
			if v, ok := got[key]; !ok || v != item.Score {
				t.Errorf("%v stored %v (%v), the judge gives %v at position %d", key, v, ok, item.Score, pos)
			}
		}
		break
	}
	// Orders change scores (the offline judge's order effects).
	differ := 0
	for k, v := range got {
		if k[4] == "o0" {
			if w := got[[5]string{k[0], k[1], k[2], k[3], "o1"}]; w != v {
				differ++
			}
		}
	}
	if differ == 0 {
		t.Error("order 0 and its reversal gave identical scores everywhere")
	}
	again, err := NewPlan(ctx, st, spec)
	if err != nil {
		t.Fatal(err)
	}
	if again.Estimate.Send != 0 || again.Estimate.Answered != n {
		t.Errorf("rerun sends %d (answered %d)", again.Estimate.Send, again.Estimate.Answered)
	}
	// More orders: only the new ones are sent.
	more := spec
	more.Orders = 6
	mp, err := NewPlan(ctx, st, more)
	if err != nil {
		t.Fatal(err)
	}
	if want := len(d.Contexts) * conds * 2 * 2; mp.Estimate.Send != want {
		t.Errorf("6 orders after 4: %d calls to send, want %d", mp.Estimate.Send, want)
	}
	other := spec
	other.JudgeName = "copy"
	op, err := NewPlan(ctx, st, other)
	if err != nil {
		t.Fatal(err)
	}
	if op.Estimate.CacheHits != n || op.Estimate.Send != 0 {
		t.Errorf("another name: %d from the cache, %d to send; want %d and 0", op.Estimate.CacheHits, op.Estimate.Send, n)
	}
}

func TestBatchedSpecErrors(t *testing.T) {
	ctx := context.Background()
	spec := batchedSpec(t, -1, 1)
	st, _ := openStore(t, spec.Dataset)
	if _, err := NewPlan(ctx, st, spec); err == nil {
		t.Error("negative orders accepted")
	}
	spec = batchedSpec(t, 2, 1)
	r := rubricSpec(t, spec.Dataset, "saja-broad")
	r.Orders = 2
	if _, err := NewPlan(ctx, st, r); err == nil {
		t.Error("a batched rubric study accepted")
	}
}

// Through an OpenAI-compatible server: each candidate's stored score is
// the one the reply gives the label of its position; a reply that rates
// only some candidates stores the others as answers without a score; a
// reply that rates none fails every candidate of the call, and a rerun
// sends only that call again.
func TestBatchedStudyThroughServer(t *testing.T) {
	ctx := context.Background()
	d := tinyDataset("tiny") // 2 contexts × 2 candidates
	st, _ := openStore(t, d)
	s := newChatServer(t)
	broken, partial := "", ""
	s.fault = func(id string, seen int) (int, http.Header, string) {
		switch {
		case id == broken && seen == 0:
			return 200, nil, completionJSON("Both read well.")
		case id == partial:
			return 200, nil, completionJSON(`{"scores": {"1": 3}}`)
		}
		return 200, nil, completionJSON(`{"scores": {"1": 3, "2": 8}}`)
	}
	spec := serverSpec(t, s, d, 1, Limits{Concurrency: 2})
	spec.JudgeName, spec.Orders, spec.OrderSeed = "srv-batched", 2, 42
	spec.Probes = []string{"baseline"}
	p, err := NewPlan(ctx, st, spec)
	if err != nil {
		t.Fatal(err)
	}
	// The first call's reply has no score, the second's only label 1's.
	if len(p.Sends) != 4 {
		t.Fatalf("%d calls, want 4 (2 contexts × 2 orders)", len(p.Sends))
	}
	broken, partial = itemIdentity(t, p, p.Sends[0]), itemIdentity(t, p, p.Sends[1])
	_, sum, err := runToEnd(t, st, spec, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed != 2 {
		t.Errorf("failed %d, want the 2 candidates of the broken call", sum.Failed)
	}
	rows, err := st.Scores(ctx, d.Name, "srv-batched", p.BankHash)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(p.Items)-2 {
		t.Fatalf("%d stored rows, want %d", len(rows), len(p.Items)-2)
	}
	missing := 0
	for _, r := range rows {
		if r.Missing {
			missing++
		}
		k, _, ok := judge.ParseOrderRunLabel(r.Run)
		if !ok {
			t.Fatalf("run label %q", r.Run)
		}
		ci, ki := d.Locate(r.Context, r.Candidate)
		c := d.Contexts[ci]
		plan := judge.NewOrderPlan(42, c.ID, []string{c.Candidates[0].ID, c.Candidates[1].ID})
		pos := plan.Positions(k)[ki]
		switch {
		case pos == 0 && (r.Missing || r.Score != 3):
			t.Errorf("%+v: position 0 should hold 3", r)
		case pos == 1 && !r.Missing && r.Score != 8:
			t.Errorf("%+v: position 1 should hold 8 or be missing", r)
		}
	}
	if missing != 1 {
		t.Errorf("%d answers without a score, want 1 (the partial reply's position 1)", missing)
	}
	again, err := NewPlan(ctx, st, spec)
	if err != nil {
		t.Fatal(err)
	}
	if again.Estimate.Send != 1 || len(again.Pending) != 2 {
		t.Errorf("rerun: %d calls for %d pending scores, want 1 call for 2", again.Estimate.Send, len(again.Pending))
	}
}
