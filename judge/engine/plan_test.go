package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/model/synthstudy"
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

// TestItemCompact: an Item is 64 bytes and holds no pointer, so a plan's
// Items are memory the collector does not scan.
func TestItemCompact(t *testing.T) {
	if n := unsafe.Sizeof(Item{}); n != 64 {
		t.Errorf("Item is %d bytes, want 64", n)
	}
	typ := reflect.TypeFor[Item]()
	for i := range typ.NumField() {
		switch f := typ.Field(i); f.Type.Kind() {
		case reflect.Int16, reflect.Int32, reflect.Uint16:
		case reflect.Array:
			if f.Type.Elem().Kind() != reflect.Uint8 {
				t.Errorf("field %s is %s", f.Name, f.Type)
			}
		default:
			t.Errorf("field %s is %s: an Item holds no pointer", f.Name, f.Type)
		}
	}
}

// TestPlanInt16Limits: what an Item keeps in an int16 is bounded when
// planning, with an error naming the field, not wrapped around.
func TestPlanInt16Limits(t *testing.T) {
	ctx := context.Background()
	spec := batchedSpec(t, math.MaxInt16+1, 1)
	st, _ := openStore(t, spec.Dataset)
	if _, err := NewPlan(ctx, st, spec); err == nil || !strings.Contains(err.Error(), "orders: 32768, at most 32767") {
		t.Errorf("orders 32768: %v", err)
	}
	if _, err := EstimatePlan(ctx, st, spec); err == nil || !strings.Contains(err.Error(), "orders: 32768") {
		t.Errorf("estimate, orders 32768: %v", err)
	}
	spec.Orders = math.MaxInt16
	spec.Dataset.Contexts[0].Candidates = slices.Repeat(spec.Dataset.Contexts[0].Candidates[:1], math.MaxInt16+1)
	if _, err := NewPlan(ctx, st, spec); err == nil || !strings.Contains(err.Error(), "candidates, at most 32767 in a listwise call") {
		t.Errorf("32768 candidates: %v", err)
	}
}

// Spec.Probes plans only the listed probes' conditions (every wording),
// never a neutral clause unless listed, under the full bank's hash: the
// answers are the same study as a full run's, so a full run afterwards
// sends only the rest, and a subset plan after a full run sends nothing.
func TestPlanProbesSubset(t *testing.T) {
	d := tinyDataset("tiny")
	st, _ := openStore(t, d)
	ctx := context.Background()
	full, err := NewPlan(ctx, st, offlineSpec(t, d, 2))
	if err != nil {
		t.Fatal(err)
	}
	spec := offlineSpec(t, d, 2)
	spec.Probes = []string{"baseline", "coverage:+", "coverage:-", "fluency:+"}
	sub, err := NewPlan(ctx, st, spec)
	if err != nil {
		t.Fatal(err)
	}
	// baseline (1 wording) + coverage:± (2 each) + fluency:+ (2) = 7.
	if sub.Conditions() != 7 || full.Conditions() != 38 {
		t.Fatalf("planned %d and %d conditions, want 7 and 38", sub.Conditions(), full.Conditions())
	}
	if got, want := len(sub.Items), 4*7*2; got != want {
		t.Fatalf("%d items, want %d (4 candidates × 7 conditions × 2 runs)", got, want)
	}
	if sub.BankHash != full.BankHash {
		t.Errorf("subset plan hash %s, full bank %s", sub.BankHash, full.BankHash)
	}
	perProbe := map[string]int{}
	fullKeys := map[string]bool{}
	for _, it := range full.Items {
		fullKeys[full.Row(&it).Key+"|"+full.Row(&it).Probe+"|"+full.Row(&it).Wording+"|"+full.Row(&it).Run] = true
	}
	for i, it := range sub.Items {
		perProbe[sub.Row(&it).Probe]++
		if strings.HasPrefix(sub.Row(&it).Probe, "neutral:") {
			t.Errorf("item %d asks neutral clause %s", i, sub.Row(&it).Probe)
		}
		if !fullKeys[sub.Row(&it).Key+"|"+sub.Row(&it).Probe+"|"+sub.Row(&it).Wording+"|"+sub.Row(&it).Run] {
			t.Errorf("item %d (%s wording %s) is not a request of the full study", i, sub.Row(&it).Probe, sub.Row(&it).Wording)
		}
		// Condition still indexes the full bank: the request renders with
		// the probe the row names.
		if got := full.conds[it.Condition].Probe; got != sub.Row(&it).Probe {
			t.Errorf("item %d: condition %d is %s, row says %s", i, it.Condition, got, sub.Row(&it).Probe)
		}
	}
	want := map[string]int{"baseline": 8, "coverage:+": 16, "coverage:-": 16, "fluency:+": 16}
	for p, n := range want {
		if perProbe[p] != n {
			t.Errorf("probe %s: %d items, want %d", p, perProbe[p], n)
		}
	}
	if len(perProbe) != len(want) {
		t.Errorf("probes planned %v, want %v", perProbe, want)
	}

	// Run the subset; the full study then sends only the rest.
	if _, sum, err := runToEnd(t, st, spec, Options{}); err != nil || sum.Answered != len(sub.Items) {
		t.Fatalf("subset run: %+v, %v", sum.Progress, err)
	}
	again, err := NewPlan(ctx, st, offlineSpec(t, d, 2))
	if err != nil {
		t.Fatal(err)
	}
	if again.Estimate.Answered != len(sub.Items) || again.Estimate.Send != len(full.Items)-len(sub.Items) {
		t.Errorf("full plan after the subset run: %+v, want %d answered", again.Estimate, len(sub.Items))
	}
	if _, _, err := runToEnd(t, st, offlineSpec(t, d, 2), Options{}); err != nil {
		t.Fatal(err)
	}
	spec.Probes = []string{"baseline", "coverage:+"}
	done, err := NewPlan(ctx, st, spec)
	if err != nil {
		t.Fatal(err)
	}
	if done.Estimate.Send != 0 || done.Estimate.Answered != 4*3*2 {
		t.Errorf("subset plan after a full run: %+v, want 24 answered, 0 to send", done.Estimate)
	}

	// A neutral clause is planned when listed.
	spec.Probes = []string{"neutral:" + quality(t).Neutrals[0].Name}
	n, err := NewPlan(ctx, st, spec)
	if err != nil || n.Conditions() != 1 {
		t.Fatalf("a listed neutral clause: %v, %v", n, err)
	}
}

func TestPlanProbesUnknown(t *testing.T) {
	d := tinyDataset("tiny")
	st, _ := openStore(t, d)
	for _, tc := range []struct {
		probes []string
		want   string
	}{
		{[]string{"baseline", "nosuch:+", "coverage:+"}, `"nosuch:+"`},
		{[]string{"baseline", "ctx:expert"}, `"ctx:expert"`},
		{[]string{}, "empty"},
	} {
		spec := offlineSpec(t, d, 1)
		spec.Probes = tc.probes
		_, err := NewPlan(context.Background(), st, spec)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("probes %v: %v, want an error naming %s", tc.probes, err, tc.want)
		}
	}
}

// EstimatePlan's estimate is NewPlan's, request for request: in a new
// workspace, and in one holding some of the study's answers at their
// coordinates, a failure, answers of other runs and answers to the same
// messages under another judge name (cache hits).
func TestEstimatePlanEqualsNewPlan(t *testing.T) {
	// A context is 2 candidates × 38 conditions = 76 cells: 3 contexts are
	// one group of the estimate's reads (500 cells); with groups of 150
	// cells (two contexts), 8 contexts are four, as 30 are five at 500.
	for _, c := range []struct{ contexts, chunk int }{{3, cachedChunkCells}, {8, 150}} {
		t.Run(fmt.Sprint(c.contexts), func(t *testing.T) {
			defer func(old int) { cachedChunkCells = old }(cachedChunkCells)
			cachedChunkCells = c.chunk
			estimateEqualsNewPlan(t, c.contexts)
		})
	}
}

func estimateEqualsNewPlan(t *testing.T, contexts int) {
	ctx := context.Background()
	d := synthstudy.Dataset(contexts, 2, 7)
	st, _ := openStore(t, d)
	same := func(spec Spec) Estimate {
		t.Helper()
		return estimateIsNewPlans(t, st, spec, "")
	}
	spec := offlineSpec(t, d, 3)
	same(spec)
	// Answer runs 0 and 1 under another judge name: cache hits for "offline".
	other := offlineSpec(t, d, 2)
	other.JudgeName = "other"
	if _, _, err := runToEnd(t, st, other, Options{}); err != nil {
		t.Fatal(err)
	}
	same(spec)
	// Some answers (and a failure) of the study itself, at scattered
	// coordinates and runs.
	storeScattered(t, st, spec, 5)
	if e := same(spec); e.Answered == 0 || e.CacheHits == 0 || e.Send == 0 {
		t.Fatalf("estimate %+v: want answered, cached and sent requests", e)
	}
	spec.Repeats = 1
	same(spec)
	spec.Repeats = 5
	spec.Probes = []string{"baseline"}
	same(spec)
	spec.Repeats = smallRepeats + 4 // the answered set regrouped by condition
	spec.Probes = nil
	if e := same(spec); e.Answered == 0 || e.CacheHits == 0 {
		t.Fatalf("estimate %+v: want answered and cached requests", e)
	}
	// The study answered whole in one run: every candidate is counted
	// without rendering its requests (EstimatePlan's allAnswered), beside
	// a second run that is partly answered.
	spec.Repeats = 1
	if _, _, err := runToEnd(t, st, spec, Options{}); err != nil {
		t.Fatal(err)
	}
	// The run's end wrote the study's score snapshot: the estimates
	// below read the answered set from it (store.SnapshotAnswers), the
	// ones above from the requests.
	if a, err := st.SnapshotAnswers(ctx, spec.JudgeName, d.Name, bankHashOf(t, st, spec)); err != nil || a == nil || a.Len() == 0 {
		t.Fatalf("no current score snapshot after the run (%v): the estimates would not read it", err)
	}
	if e := same(spec); e.Send != 0 || e.Answered != e.Requests {
		t.Fatalf("estimate %+v: want every request answered", e)
	}
	spec.Probes = []string{"baseline"} // some conditions of the snapshot (HasAll)
	if e := same(spec); e.Send != 0 || e.Answered != e.Requests {
		t.Fatalf("estimate %+v: want every request answered", e)
	}
	spec.Probes = nil
	spec.Repeats = 2
	if e := same(spec); e.Send+e.CacheHits == 0 || e.Answered < e.Requests/2 {
		t.Fatalf("estimate %+v: want run 0 answered and run 1 to send or cached", e)
	}
	spec.Repeats = smallRepeats + 4 // the snapshot's set regrouped by condition
	if e := same(spec); e.Answered == 0 || e.CacheHits == 0 {
		t.Fatalf("estimate %+v: want answered and cached requests", e)
	}
}

// bankHashOf is the bank hash a plan of spec records.
func bankHashOf(t *testing.T, st *store.Store, spec Spec) string {
	t.Helper()
	p, err := EstimatePlan(context.Background(), st, spec)
	if err != nil {
		t.Fatal(err)
	}
	return p.BankHash
}

// EstimatePlan plans a study far beyond MaxPlanRequests without holding
// its requests.
func TestEstimatePlanOfManyRuns(t *testing.T) {
	ctx := context.Background()
	d := synthstudy.Dataset(2, 2, 7)
	st, _ := openStore(t, d)
	spec := offlineSpec(t, d, 100_000)
	if _, err := NewPlan(ctx, st, spec); err == nil {
		t.Fatal("NewPlan planned 15,200,000 requests")
	}
	e, err := EstimatePlan(ctx, st, spec)
	if err != nil {
		t.Fatal(err)
	}
	if n := 4 * 38 * 100_000; e.Estimate.Requests != n || e.Estimate.Send != n {
		t.Fatalf("estimate %+v, want %d requests to send", e.Estimate, n)
	}
}

func TestPlanOrderKeysAndEstimate(t *testing.T) {
	d := tinyDataset("tiny")
	st, _ := openStore(t, d)
	p, err := NewPlan(context.Background(), st, offlineSpec(t, d, 2))
	if err != nil {
		t.Fatal(err)
	}
	conds := len(quality(t).Conditions()) // 38: baseline + 8×2×2 + 5
	if conds != 38 {
		t.Fatalf("quality bank has %d conditions, want 38", conds)
	}
	if got, want := len(p.Items), 4*conds*2; got != want {
		t.Fatalf("items = %d, want %d", got, want)
	}
	// All conditions and runs of one candidate are contiguous.
	seen := map[string]bool{}
	prev := ""
	for _, it := range p.Items {
		c := p.Row(&it).Context + "/" + p.Row(&it).Candidate
		if c != prev {
			if seen[c] {
				t.Fatalf("candidate %s is split in the send order", c)
			}
			seen[c], prev = true, c
		}
	}
	// Runs of one condition share a key and differ by run label; conditions differ.
	if a, b := p.Items[0], p.Items[1]; p.Row(&a).Key != p.Row(&b).Key || p.Row(&a).Run != "0" || p.Row(&b).Run != "1" {
		t.Errorf("runs of one condition: %+v / %+v", p.Row(&a), p.Row(&b))
	}
	if p.Row(&p.Items[0]).Key == p.Row(&p.Items[2]).Key {
		t.Error("two conditions share a key")
	}
	e := p.Estimate
	if e.Requests != len(p.Items) || e.Send != len(p.Items) || e.Answered != 0 || e.CacheHits != 0 {
		t.Errorf("estimate %+v", e)
	}
	var in int64
	for i := range p.Items {
		in += int64(EstimateTokens(mustRequest(t, p, i).Messages))
	}
	if e.InputTokens != in || e.OutputTokens != int64(10*len(p.Items)) {
		t.Errorf("tokens %d/%d, want %d/%d", e.InputTokens, e.OutputTokens, in, 10*len(p.Items))
	}
	if !e.Priced || e.Cost != 0 {
		t.Errorf("offline cost %v priced %v, want 0 true", e.Cost, e.Priced)
	}
}

func TestEstimateTokens(t *testing.T) {
	// 3 + (⌈8/4⌉+4) + (⌈5/4⌉+4) = 3 + 6 + 6 = 15, by hand.
	msgs := []banks.Message{{Role: "system", Content: "abcdefgh"}, {Role: "user", Content: "abcde"}}
	if got := EstimateTokens(msgs); got != 15 {
		t.Errorf("EstimateTokens = %d, want 15", got)
	}
}

func TestEstimateTime(t *testing.T) {
	cfg := judge.Defaults()
	cfg.Backend = judge.BackendOpenAI
	tests := []struct {
		name   string
		send   int
		tokens int64
		lim    Limits
		lat    time.Duration
		want   time.Duration
	}{
		// 600 requests at 600 rpm: one minute; latency bound 600·1s/64 ≈ 9.4 s is lower.
		{"rpm", 600, 1000, Limits{Concurrency: 64, RPM: 600}, time.Second, time.Minute},
		// 1.2M tokens at 400k tpm: three minutes.
		{"tpm", 10, 1_200_000, Limits{Concurrency: 64, TPM: 400_000}, time.Second, 3 * time.Minute},
		// No limits: 640 calls of 100 ms over 64 workers = 1 s.
		{"latency", 640, 0, Limits{Concurrency: 64}, 100 * time.Millisecond, time.Second},
	}
	for _, tc := range tests {
		got := estimateTime(tc.send, tc.tokens, Spec{Config: cfg, Limits: tc.lim, Latency: tc.lat})
		if d := got - tc.want; d < -time.Millisecond || d > time.Millisecond {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// estimateIsNewPlans fails t unless EstimatePlan of spec gives NewPlan's
// estimate (and holds no items); it returns the estimate.
func estimateIsNewPlans(t *testing.T, st *store.Store, spec Spec, where string) Estimate {
	t.Helper()
	ctx := context.Background()
	p, err := NewPlan(ctx, st, spec)
	if err != nil {
		t.Fatal(err)
	}
	e, err := EstimatePlan(ctx, st, spec)
	if err != nil {
		t.Fatal(err)
	}
	if e.Estimate != p.Estimate {
		t.Fatalf("%sEstimatePlan %+v\nNewPlan      %+v", where, e.Estimate, p.Estimate)
	}
	if len(e.Items) != 0 || e.BankHash != p.BankHash || e.Conditions() != p.Conditions() {
		t.Fatalf("%sEstimatePlan holds %d items, bank %s, %d conditions", where, len(e.Items), e.BankHash, e.Conditions())
	}
	return e.Estimate
}

// A text twice in a context is sent once for the runs both candidates
// have pending (Plan.sameCalls); EstimatePlan counts an all-answered
// candidate without cells, so it must share nothing with its twin. Its
// estimate is NewPlan's with the first twin answered, the second, both
// and neither, in the requests and in the score snapshot.
func TestEstimatePlanTwinAnsweredAlone(t *testing.T) {
	ctx := context.Background()
	for _, answered := range [][]int{{0}, {2}, {0, 2}, nil} { // candidates of context 0
		d := synthstudy.Dataset(2, 3, 7)
		c0 := &d.Contexts[0]
		c0.Candidates[2].Text = c0.Candidates[0].Text
		st, _ := openStore(t, d)
		spec := offlineSpec(t, d, 1)
		p, err := NewPlan(ctx, st, spec)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.PutJudge(ctx, p.Judge); err != nil {
			t.Fatal(err)
		}
		var rs []store.Response
		for i := range p.Items {
			row := p.Row(&p.Items[i])
			for _, k := range answered {
				if row.Context == c0.ID && row.Candidate == c0.Candidates[k].ID {
					rs = append(rs, store.Response{Request: row, Score: 3})
				}
			}
		}
		if err := st.PutResponses(ctx, rs); err != nil {
			t.Fatal(err)
		}
		check := func(where string) {
			t.Helper()
			e := estimateIsNewPlans(t, st, spec, fmt.Sprintf("answered %v, %s: ", answered, where))
			if len(answered) == 0 && e.Shared == 0 {
				t.Fatalf("no twin shared its requests: %+v", e)
			}
		}
		check("from the requests")
		l, err := st.AcquireStudy(ctx, d.Name, p.DatasetRev, spec.JudgeName, p.BankHash)
		if err == nil {
			err = l.Release(ctx)
		}
		if err != nil {
			t.Fatal(err)
		}
		check("from the score snapshot")
	}
}

// A plan on the dataset's ids alone (Spec.IDsOnly, store.DatasetIDsAt) of
// an answered study is EstimatePlan's on the whole dataset; one that would
// render a request (something pending, NewPlan, a listwise study) fails
// with ErrTextsNeeded, and Start refuses it.
func TestIDsOnlyPlan(t *testing.T) {
	ctx := context.Background()
	d := synthstudy.Dataset(3, 4, 7)
	st, _ := openStore(t, d)
	spec := offlineSpec(t, d, 1)
	if _, _, err := runToEnd(t, st, spec, Options{}); err != nil {
		t.Fatal(err)
	}
	ids, _, err := st.DatasetIDsAt(ctx, d.Name)
	if err != nil {
		t.Fatal(err)
	}
	idSpec := spec
	idSpec.Dataset, idSpec.IDsOnly = ids, true
	whole, err := EstimatePlan(ctx, st, spec)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewRunPlan(ctx, st, idSpec)
	if err != nil || p.Estimate != whole.Estimate || p.Estimate.Answered != p.Estimate.Requests {
		t.Fatalf("answered study on its ids: %+v (%v); on the dataset %+v", p.Estimate, err, whole.Estimate)
	}
	js, err := NewJudges(spec.Config, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Start(ctx, st, js, p, Options{}); !errors.Is(err, ErrTextsNeeded) {
		t.Errorf("Start of an ids-only plan: %v, want ErrTextsNeeded", err)
	}
	idSpec.Repeats = 2 // run 1 pending
	if _, err := EstimatePlan(ctx, st, idSpec); !errors.Is(err, ErrTextsNeeded) {
		t.Errorf("pending requests on the ids: %v, want ErrTextsNeeded", err)
	}
	idSpec.Repeats = 1
	if _, err := NewPlan(ctx, st, idSpec); !errors.Is(err, ErrTextsNeeded) {
		t.Errorf("NewPlan on the ids: %v, want ErrTextsNeeded", err)
	}
	idSpec.Orders = 2
	if _, err := NewRunPlan(ctx, st, idSpec); !errors.Is(err, ErrTextsNeeded) {
		t.Errorf("a listwise plan on the ids: %v, want ErrTextsNeeded", err)
	}
}
