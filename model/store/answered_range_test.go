package store

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
)

// answeredList is a set's coordinates, sorted.
func answeredList(a AnsweredSet) []string {
	var out []string
	a.Each(func(c, k, probe, w, run string) { out = append(out, c+"/"+k+" "+probe+" "+w+" "+run) })
	slices.Sort(out)
	return out
}

// AnsweredIn is Answered keeping the given contexts: on a workspace, on
// a read-only copy, and on a read-only workspace of schema version 4
// (the old tables), with failures, answers of another bank and of
// unlisted contexts left out, and more contexts than one query binds.
func TestAnsweredInIsAnsweredOfTheContexts(t *testing.T) {
	ctx := context.Background()
	other := answer("c1", "x", "baseline", "0", 2)
	other.BankHash = "bank-hash-2"
	rs := []Response{
		answer("c2", "b", "baseline", "0", 3), answer("c2", "a", "baseline", "1", 4),
		failure("c2", "b", "fluency:+", "0", "timeout"),
		answer("c1", "x", "baseline", "0", 5), other,
	}
	v5 := filepath.Join(t.TempDir(), "v5.db")
	w, err := Open(ctx, v5)
	if err != nil {
		t.Fatal(err)
	}
	seedJudgeAndDataset(t, w)
	if err := w.PutResponses(ctx, rs); err != nil {
		t.Fatal(err)
	}
	w.Close()
	v4 := filepath.Join(t.TempDir(), "v4.db")
	old := openVersion4(t, v4)
	legacyPut(t, old, rs)
	old.Close()
	for _, tc := range []struct {
		name string
		path string
		open func(context.Context, string) (*Store, error)
	}{{"v5", v5, Open}, {"v5 read-only", v5, OpenReadOnly}, {"v4 read-only", v4, OpenReadOnly}} {
		s, err := tc.open(ctx, tc.path)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.compact(); got != (tc.path == v5) {
			t.Fatalf("%s: compact %v", tc.name, got)
		}
		all, err := s.Answered(ctx, "j", "tiny", testBank)
		if err != nil {
			t.Fatal(err)
		}
		many := []string{"c2"}
		for i := range 2 * answeredInChunk {
			many = append(many, "absent"+string(rune('a'+i%26))+string(rune('a'+i/26)))
		}
		for _, q := range []struct {
			contexts []string
			want     []string
		}{
			{[]string{"c2"}, []string{"c2/a baseline 0 1", "c2/b baseline 0 0"}},
			{[]string{"c1"}, []string{"c1/x baseline 0 0"}},
			{[]string{"c1", "c2"}, answeredList(all)},
			{[]string{"nope"}, nil},
			{many, []string{"c2/a baseline 0 1", "c2/b baseline 0 0"}},
		} {
			got, err := s.AnsweredIn(ctx, "j", "tiny", testBank, q.contexts)
			if err != nil {
				t.Fatal(err)
			}
			if l := answeredList(got); !slices.Equal(l, q.want) || got.Len() != len(q.want) {
				t.Errorf("%s, contexts %.40v: %v, want %v", tc.name, q.contexts, l, q.want)
			}
		}
		if len(answeredList(all)) != 3 {
			t.Errorf("%s: Answered holds %v", tc.name, answeredList(all))
		}
		s.Close()
	}
}
