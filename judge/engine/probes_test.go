package engine

import (
	"context"
	"strings"
	"testing"
)

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
