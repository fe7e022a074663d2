package widgets

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// HumanCount prints a count with a k/M/G suffix past a thousand.
func HumanCount(n int64) string {
	f := float64(n)
	switch {
	case n < 1000:
		return fmt.Sprintf("%d", n)
	case f < 1e6:
		return fmt.Sprintf("%.1fk", f/1e3)
	case f < 1e9:
		return fmt.Sprintf("%.1fM", f/1e6)
	}
	return fmt.Sprintf("%.1fG", f/1e9)
}

// ShortDuration prints d rounded to what a person reads: 850ms, 42s,
// 3m05s, 2h10m.
func ShortDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return "0s"
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Round(time.Second).Seconds()))
	case d < time.Hour:
		d = d.Round(time.Second)
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	d = d.Round(time.Minute)
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// num prints a float with 2 decimals, or "—" when it is not finite.
func Num(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "—"
	}
	return fmt.Sprintf("%.2f", f)
}

// signed prints a displacement with its sign and at most one decimal
// ("+1", "-0.5"), or "" when unknown.
func Signed(f float64, ok bool) string {
	if !ok || math.IsNaN(f) {
		return ""
	}
	if math.Abs(f) < 0.05 {
		return "0"
	}
	return strings.TrimSuffix(fmt.Sprintf("%+.1f", f), ".0")
}

// compact prints a score with at most one decimal ("7", "6.5"), or "—".
func Compact(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "—"
	}
	return strings.TrimSuffix(fmt.Sprintf("%.1f", f), ".0")
}

// WrapSpaces wraps plain text to w cells, breaking only at spaces (a break
// at a hyphen, as wrap may make, would split a negative number from its
// sign); the spaces at a break are dropped and a word longer than w is
// cut with an ellipsis.
func WrapSpaces(s string, w int) []string {
	if w <= 0 {
		return nil
	}
	var lines []string
	line := ""
	for _, word := range strings.Split(s, " ") {
		switch {
		case line == "":
			line = word // the first word, or the spaces after a break
		case len([]rune(line))+1+len([]rune(word)) <= w:
			line += " " + word
		default:
			lines = append(lines, strings.TrimRight(line, " "))
			line = word
		}
	}
	lines = append(lines, strings.TrimRight(line, " "))
	for i, ln := range lines {
		if len([]rune(ln)) > w {
			lines[i] = Clip(ln, w)
		}
	}
	return lines
}

// ClipMiddle shortens plain text to w cells by cutting its middle, so
// that both ends survive: a probe keeps its sign ("accuracy:+" in 8 cells
// is "accu…y:+") and a judge name its suffix. The start gets the odd
// cell.
func ClipMiddle(s string, w int) string {
	sw := ansi.StringWidth(s)
	switch {
	case sw <= w:
		return s
	case w <= 0:
		return ""
	case w == 1:
		return "…"
	}
	head, tail := w/2, (w-1)/2
	return ansi.Truncate(s, head, "") + "…" + ansi.TruncateLeft(s, sw-tail, "")
}

// Mean4 prints a mean with 4 decimals, or "—".
func Mean4(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "—"
	}
	return fmt.Sprintf("%.4f", f)
}

// Gain4 prints a gain with its sign and 4 decimals, or "—" (unlike
// Fixed4, a gain that rounds to zero keeps its sign).
func Gain4(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "—"
	}
	return fmt.Sprintf("%+.4f", f)
}

// Fixed4 prints a profile value or a correction term with its sign and 4
// decimals, the one precision of the tabs that show them, or "—". A
// value that rounds to zero is "+0.0000", never "-0.0000" nor
// "-2.034e-05".
func Fixed4(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "—"
	}
	if s := fmt.Sprintf("%+.4f", f); s != "-0.0000" {
		return s
	}
	return "+0.0000"
}

// FoldRange prints a profile statistic as its mean and its fold range:
// "+0.0414 [+0.0003, +0.0825]".
func FoldRange(mean, lo, hi float64) string {
	return Fixed4(mean) + " [" + Fixed4(lo) + ", " + Fixed4(hi) + "]"
}

// ShortHash is a content hash's first 10 digits, as headers and titles
// name a bank version.
func ShortHash(h string) string {
	if len(h) > 10 {
		return h[:10]
	}
	return h
}
