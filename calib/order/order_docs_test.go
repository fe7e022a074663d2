package order

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOrderBootstrapDefaultDocumented: the default number of resamples of
// prism diagnose order (DefaultOptions, which the CLI flag takes as
// its default) is the one docs/protocol.md §14 and docs/diagnostics.md
// state.
func TestOrderBootstrapDefaultDocumented(t *testing.T) {
	b := DefaultOptions().Bootstrap
	read := func(name string) string {
		t.Helper()
		doc, err := os.ReadFile(filepath.Join("..", "..", "docs", name))
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(strings.Fields(string(doc)), " ") // line breaks as spaces
	}
	thousands := fmt.Sprintf("%d,%03d", b/1000, b%1000)
	if p := read("protocol.md"); !strings.Contains(p, "**Intervals.** B context-bootstrap resamples (default "+thousands+",") {
		t.Errorf("docs/protocol.md §14 does not state the default of %s resamples", thousands)
	}
	d := read("diagnostics.md")
	i := strings.Index(d, "prism diagnose order [")
	if i < 0 {
		t.Fatal("docs/diagnostics.md: no prism diagnose order synopsis")
	}
	row := fmt.Sprintf("| `--bootstrap` | %d |", b)
	if j := strings.Index(d[i:], "| `--bootstrap` |"); j < 0 || !strings.HasPrefix(d[i+j:], row) {
		t.Errorf("docs/diagnostics.md: the diagnose order flag table lacks %q", row)
	}
}
