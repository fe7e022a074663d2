package banks

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseScale reads "MIN-MAX" (or "MIN–MAX") as a score scale's ends, for
// the --scale flags: integers within ±1,000,000, MIN < MAX.
func ParseScale(s string) (lo, hi int, err error) {
	t := strings.ReplaceAll(strings.TrimSpace(s), "–", "-")
	// A leading minus belongs to MIN: split at the first '-' after it.
	i := strings.IndexByte(t[min(1, len(t)):], '-') + min(1, len(t))
	if i <= 0 || i >= len(t) {
		return 0, 0, fmt.Errorf("scale %q: want MIN-MAX, such as 0-100", s)
	}
	lo, err1 := strconv.Atoi(t[:i])
	hi, err2 := strconv.Atoi(t[i+1:])
	switch {
	case err1 != nil || err2 != nil:
		return 0, 0, fmt.Errorf("scale %q: want MIN-MAX with integer ends, such as 0-100", s)
	case lo >= hi:
		return 0, 0, fmt.Errorf("scale %q: MIN must be below MAX", s)
	case lo < -scaleLimit || hi > scaleLimit:
		return 0, 0, fmt.Errorf("scale %q: ends must lie within ±%d", s, scaleLimit)
	}
	return lo, hi, nil
}

// Rescale sets task's score scale to lo–hi and maps its anchors onto it:
// the old scale's N points and the new one's M are matched in order, an
// anchor covering old points i…j (counted from 0) covering new points
// ⌈i·M/N⌉ … ⌈(j+1)·M/N⌉ − 1, so anchors stay contiguous and cover the
// new scale as they covered the old one (1–10's "1–2, 3–4, …, 9–10"
// become 0–100's "0–20, 21–40, …, 81–100"). The prompt's "[scale]" and the
// answer format follow the new ends. A changed scale is a different bank
// hash, so the answers of the two scales are two studies.
func (b *Bank) Rescale(task string, lo, hi int) error {
	t, ok := b.Tasks[task]
	if !ok {
		return fmt.Errorf("bank %q has no %s task", b.Name, task)
	}
	old := t.Scale
	n, m := int64(old.Max-old.Min+1), int64(hi-lo+1)
	var anchors []ScaleAnchor
	for _, a := range old.Anchors {
		i, j := int64(a.From-old.Min), int64(a.To-old.Min)
		from := lo + int((i*m+n-1)/n)
		to := lo + int(((j+1)*m+n-1)/n) - 1
		if to < from {
			continue // a finer old scale than the new: the anchor has no point left
		}
		anchors = append(anchors, ScaleAnchor{From: from, To: to, Label: a.Label})
	}
	t.Scale = Scale{Min: lo, Max: hi, Anchors: anchors}
	if b.Tasks != nil {
		tasks := make(map[string]Task, len(b.Tasks))
		for k, v := range b.Tasks {
			tasks[k] = v
		}
		tasks[task] = t
		b.Tasks = tasks
	}
	return b.Validate()
}
