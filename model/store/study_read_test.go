package store

import (
	"math/rand/v2"
	"testing"
)

// TestHasAllIsEachHas: HasAll of sorted condition numbers is true exactly
// when the candidate has each, whether it merges the two runs or
// searches its answers (few conditions asked of many answers).
func TestHasAllIsEachHas(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 2000 {
		var have []int32
		set := map[int32]bool{}
		for c := range int32(60) {
			if rng.IntN(3) > 0 {
				have = append(have, c)
				set[c] = true
			}
		}
		a := &StudyAnswers{pairOf: map[[2]string]int32{{"c", "k"}: 0}, start: []int32{0, int32(len(have))}, cond: have}
		var ask []int32
		for c := range int32(62) {
			if rng.IntN(1+trial%40) == 0 {
				ask = append(ask, c)
			}
		}
		want := true
		for _, c := range ask {
			want = want && set[c]
		}
		if got := a.HasAll("c", "k", ask); got != want {
			t.Fatalf("HasAll(%v) of %v = %v, want %v", ask, have, got, want)
		}
	}
	if a := (&StudyAnswers{pairOf: map[[2]string]int32{}}); !a.HasAll("c", "k", nil) || a.HasAll("c", "k", []int32{0}) {
		t.Fatal("a candidate without answers: HasAll(none) must be true, HasAll(some) false")
	}
}
