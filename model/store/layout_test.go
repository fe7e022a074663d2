package store

import (
	"context"
	"math"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/prism-eval/prism/model"
)

// layoutDatasets are datasets whose packed layouts the tests compare
// with their tables: targets missing, minus zero, extreme and ordinary;
// ids in several scripts; a context without candidates.
func layoutDatasets() []*model.Dataset {
	d := &model.Dataset{Name: "edge", Format: "csv", Task: model.TaskNewsSummary, Metric: model.MetricSpearman,
		Contexts: []model.Context{
			{ID: "ζ-2", Source: "s", Candidates: []model.Candidate{
				{ID: "b", Text: "t", Human: math.Copysign(0, -1)},
				{ID: "a,\"x\"", Text: "t", Human: math.NaN()},
				{ID: "日本", Text: "t", Human: -1e300},
			}},
			{ID: "empty", Source: "s"},
			{ID: "c1", Source: "s", Candidates: []model.Candidate{{ID: "x", Text: "t", Human: 0.1 + 0.2}}},
		}}
	return []*model.Dataset{tinyDataset("tiny"), d}
}

// TestLayoutEqualsTables: the layout PutDataset packs is the one the
// tables give (tableLayout), and the migration to schema 11 packs that
// of each dataset stored before it.
func TestLayoutEqualsTables(t *testing.T) {
	ctx := context.Background()
	check := func(s *Store, when string) {
		t.Helper()
		for _, d := range layoutDatasets() {
			var id int64
			if err := s.r.QueryRowContext(ctx, "SELECT id FROM datasets WHERE name = ?", d.Name).Scan(&id); err != nil {
				t.Fatal(err)
			}
			want, err := tableLayout(ctx, s.r, id)
			if err != nil {
				t.Fatal(err)
			}
			got, ok, err := storedLayout(ctx, s.r, id)
			if err != nil || !ok || !reflect.DeepEqual(got, want) || len(want) == 0 {
				t.Errorf("%s: dataset %s: packed layout %v (%v, %v), tables' %v", when, d.Name, got, ok, err, want)
			}
			if h := want[0].candidates[0].human; d.Name == "edge" && (!h.Valid || math.Signbit(h.Float64)) {
				t.Errorf("the tables read back −0 as %v, want +0", h)
			}
		}
	}
	s := openTemp(t)
	for _, d := range layoutDatasets() {
		if err := s.PutDataset(ctx, d, false); err != nil {
			t.Fatal(err)
		}
	}
	check(s, "PutDataset")

	path := filepath.Join(t.TempDir(), "v10.db")
	old, err := open(ctx, path, layoutVersion-1)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range layoutDatasets() {
		if err := old.PutDataset(ctx, d, false); err != nil {
			t.Fatal(err)
		}
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	check(s, "the migration")
}

// FuzzDecodeLayout: decodeLayout never panics, and what it accepts
// encodes to a body that decodes the same.
func FuzzDecodeLayout(f *testing.F) {
	for _, d := range layoutDatasets() {
		f.Add(encodeLayout(layoutOfModel(d)))
	}
	f.Add([]byte{layoutFormat, 1, 1, 'c', 1, 1, 'k', 2})
	f.Add([]byte{layoutFormat, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, body []byte) {
		layout, ok := decodeLayout(body)
		if !ok {
			return
		}
		again, ok := decodeLayout(encodeLayout(layout))
		if !ok || len(again) != len(layout) || (len(layout) > 0 && !reflect.DeepEqual(again, layout)) {
			t.Fatalf("%x decodes to %v, its encoding to %v (%v)", body, layout, again, ok)
		}
	})
}
