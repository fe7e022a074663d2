package study

import "testing"

func TestVersions(t *testing.T) {
	var v Versions // the zero value is ready
	a, b := Key{"d", "j1", "h1"}, Key{"d", "j2", "h1"}
	if v.Of(a) != 0 || v.Total(nil) != 0 {
		t.Fatal("a new Versions is not all 0")
	}
	v.Bump(a)
	v.Bump(a)
	v.Bump(b)
	v.Bump(a.Rubric())
	if v.Of(a) != 2 || v.Of(b) != 1 || v.Of(Key{"d", "j1", "h2"}) != 0 {
		t.Errorf("per key: %d %d", v.Of(a), v.Of(b))
	}
	if got := v.Total(nil); got != 4 {
		t.Errorf("Total(nil) = %d, want 4", got)
	}
	if got := v.Total(Key.IsRubric); got != 1 || !a.Rubric().IsRubric() || a.IsRubric() {
		t.Errorf("rubric total %d", got)
	}
	if a.Rubric() != RubricKey("d", "j1") || a.Rubric() == b.Rubric() {
		t.Error("a rubric key is not one per dataset and judge")
	}
}
