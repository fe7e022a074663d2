package shareddata

import (
	"testing"
)

func TestRequired(t *testing.T) {
	for _, tc := range []struct {
		ci, req string
		want    bool
	}{
		{"", "", false},
		{"false", "", false},
		{"0", "", false},
		{"true", "", true},
		{"1", "", true},
		{"", "1", true},
	} {
		t.Setenv("CI", tc.ci)
		t.Setenv("PRISM_REQUIRE_SHARED_DATA", tc.req)
		if got := Required(); got != tc.want {
			t.Errorf("CI=%q PRISM_REQUIRE_SHARED_DATA=%q: Required() = %v, want %v", tc.ci, tc.req, got, tc.want)
		}
	}
}

// recorder is a testing.TB that records whether Path skipped or failed.
type recorder struct {
	testing.TB
	skipped, failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Skipf(string, ...any)  { r.skipped = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true }

func TestPathMissing(t *testing.T) {
	t.Setenv("PRISM_SHARED_DATA", t.TempDir())
	for _, ci := range []string{"", "true"} {
		t.Setenv("CI", ci)
		t.Setenv("PRISM_REQUIRE_SHARED_DATA", "")
		r := &recorder{TB: t}
		Path(r, "no/such/file.json")
		if want := ci != ""; r.failed != want || r.skipped == want {
			t.Errorf("CI=%q: failed %v skipped %v, want failed %v", ci, r.failed, r.skipped, want)
		}
	}
}
