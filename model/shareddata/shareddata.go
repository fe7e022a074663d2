package shareddata

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Dir returns the shared data directory: $PRISM_SHARED_DATA if set, else
// ../shared/data beside the module root found by walking up from the
// working directory. ok is false when it does not exist.
func Dir() (dir string, ok bool) {
	if d := os.Getenv("PRISM_SHARED_DATA"); d != "" {
		st, err := os.Stat(d)
		return d, err == nil && st.IsDir()
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			dd := filepath.Join(d, "..", "shared", "data")
			st, err := os.Stat(dd)
			return dd, err == nil && st.IsDir()
		}
		if filepath.Dir(d) == d {
			return "", false
		}
	}
}

// Required reports whether a missing shared file must fail a test rather
// than skip it: under CI (the CI variable set to anything but "", "0" or
// "false", as CI services and .ci/run set it) or with
// PRISM_REQUIRE_SHARED_DATA=1.
func Required() bool {
	if os.Getenv("PRISM_REQUIRE_SHARED_DATA") == "1" {
		return true
	}
	switch strings.ToLower(strings.TrimSpace(os.Getenv("CI"))) {
	case "", "0", "false":
		return false
	}
	return true
}

// Path returns the path of rel inside the shared data directory. When the
// directory or the file is absent it skips the test, or fails it where
// Required says so.
func Path(tb testing.TB, rel string) string {
	tb.Helper()
	miss := tb.Skipf
	if Required() {
		miss = tb.Fatalf
	}
	dir, ok := Dir()
	if !ok {
		miss("shared data directory not found: set PRISM_SHARED_DATA or put the data in ../shared/data beside the repository (needed for %s)", rel)
		return ""
	}
	p := filepath.Join(dir, rel)
	if _, err := os.Stat(p); err != nil {
		miss("shared data file %s absent from %s", rel, dir)
		return ""
	}
	return p
}
