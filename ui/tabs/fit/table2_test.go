package fit

import (
	"strings"
	"testing"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/figures"
)

// Table 2's columns leave a narrow pane in t2Drop's order; the mean and
// its interval stay.
func TestTable2Columns(t *testing.T) {
	// The offline judge's answers know their calls, not their tokens.
	rows := []figures.T2Row{{Budget: calib.Budget{CallsPerCandidate: 1}}}
	for _, tc := range []struct {
		w    int
		want string
	}{
		{200, "method mean 95% CI Δ vs Van 95% CI Δ vs PRISM 95% CI calls"},
		{92, "method mean 95% CI Δ vs Van 95% CI Δ vs PRISM calls"},
		{76, "method mean 95% CI Δ vs Van 95% CI"},
		{56, "method mean 95% CI Δ vs Van"},
		{55, "method mean 95% CI"},
		{30, "method mean 95% CI"},
	} {
		show := t2Columns(rows, 20, tc.w)
		var head [t2Cols]string
		copy(head[:], t2Heads[:])
		line := t2Line("method", 20, head, show)
		if got := strings.Join(strings.Fields(line), " "); got != tc.want {
			t.Errorf("width %d: header %q, want %q", tc.w, got, tc.want)
		}
		if tc.w >= 47 && len([]rune(line)) > tc.w {
			t.Errorf("width %d: header %q is %d wide", tc.w, line, len([]rune(line)))
		}
	}
}
