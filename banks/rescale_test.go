package banks

import (
	"reflect"
	"strings"
	"testing"
)

// TestRescale: 1–10's five anchors become 0–100's 0–20 … 81–100, the
// rendered prompt states the new scale, the original bank is unchanged and
// the hash differs.
func TestRescale(t *testing.T) {
	b, _ := Builtin("style8")
	h0 := b.Hash()
	c := b.Clone()
	if err := c.Rescale("news-summary", 0, 100); err != nil {
		t.Fatal(err)
	}
	got := c.Tasks["news-summary"].Scale
	want := Scale{Min: 0, Max: 100, Anchors: []ScaleAnchor{{0, 20, "very poor"}, {21, 40, "poor"}, {41, 60, "acceptable"}, {61, 80, "good"}, {81, 100, "excellent"}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("scale %+v, want %+v", got, want)
	}
	if b.Hash() != h0 || c.Hash() == h0 || b.Tasks["news-summary"].Scale.Max != 10 {
		t.Error("the original changed, or the hash did not")
	}
	if err := c.Rescale("story", 0, 100); err == nil {
		t.Error("no story task: want an error")
	}
	// The same scale maps anchors onto themselves.
	d := b.Clone()
	if err := d.Rescale("news-summary", 1, 10); err != nil || d.Hash() != h0 {
		t.Errorf("identity rescale: %v, hash equal %v", err, d.Hash() == h0)
	}
	for s, ok := range map[string]bool{"0-100": true, "1–10": true, "-5-5": true, "10-1": false, "x": false, "0-": false, "5-5": false, "0-9999999": false} {
		if _, _, err := ParseScale(s); (err == nil) != ok {
			t.Errorf("ParseScale(%q): %v", s, err)
		}
	}
	lo, hi, _ := ParseScale("-5-5")
	if lo != -5 || hi != 5 || !strings.Contains(mustErr(ParseScale("10-1")), "MIN must be below MAX") {
		t.Errorf("-5-5 → %d, %d", lo, hi)
	}
}

func mustErr(_, _ int, err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
