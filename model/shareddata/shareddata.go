// Package shareddata locates the real datasets that tests read from
// ../shared/data beside the repository. They are never copied into the repo;
// tests that need them skip when they are absent.
package shareddata

import (
	"os"
	"path/filepath"
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

// Path returns the path of rel inside the shared data directory, or skips
// the test when that file is absent.
func Path(tb testing.TB, rel string) string {
	tb.Helper()
	dir, ok := Dir()
	if !ok {
		tb.Skip("shared data directory not found (../shared/data beside the repo)")
	}
	p := filepath.Join(dir, rel)
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("shared data file %s absent", rel)
	}
	return p
}
