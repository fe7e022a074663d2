package widgets

import (
	"math"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/prism-eval/prism/ui/styles"
)

// ProgressBar is a line of w cells: word, a bar of done/total (at least
// 4 cells) and counts. Hand-made rather than Bubbles' progress, whose
// gradient and percentage the Run tab's line does not show.
func ProgressBar(st *styles.Styles, word string, done, total int, counts string, w int) string {
	frac := 0.0
	if total > 0 {
		frac = float64(done) / float64(total)
	}
	barW := max(w-lipgloss.Width(word)-lipgloss.Width(counts)-3, 4)
	filled := int(math.Round(frac * float64(barW)))
	bar := st.Good.Render(strings.Repeat("█", filled)) + st.Muted.Render(strings.Repeat("░", barW-filled))
	return word + "  " + bar + counts
}
