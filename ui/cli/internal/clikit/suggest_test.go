package clikit

import "testing"

func TestNearest(t *testing.T) {
	cands := []string{"fit", "score", "screen", "select", "seed", "workspace", "ls"}
	for _, c := range []struct{ name, want string }{
		{"fitt", "fit"}, {"fti", "fit"}, {"scroe", "score"}, {"seeds", "seed"}, {"sede", "seed"},
		{"workspac", "workspace"}, {"works", "workspace"}, // a unique prefix
		{"sc", ""},     // a prefix of two
		{"x", ""},      // too short to be near anything
		{"zzzzzz", ""}, // far off
		{"fit", "fit"},
	} {
		if got := Nearest(c.name, cands); got != c.want {
			t.Errorf("Nearest(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"", "abc", 3}, {"fit", "fitt", 1}, {"seed", "sede", 1}, {"kitten", "sitting", 3}, {"ca", "abc", 3}} {
		if got := editDistance(c.a, c.b); got != c.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
