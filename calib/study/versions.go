package study

// Key names one study's answers: a dataset, a judge (its display name) and
// a bank version (the bank's content hash). Signal reports, fits,
// selections, inspections and comparisons are all computed from (and
// cached by) the answers of one key.
type Key struct{ Dataset, Judge, BankHash string }

// rubricBank is the bank part of RubricKey: a bank hash is hex digits,
// so a rubric key never names a bank study.
const rubricBank = "rubric:*"

// RubricKey is the key whose version counts the rubric ratings of judge
// on dataset, under any rubric. It is the one key that is not a bank
// version's: a fit of the judge scores all its rubric ratings as its
// baselines, whichever rubric stored them, so they are one study.
func RubricKey(dataset, judge string) Key { return Key{dataset, judge, rubricBank} }

// IsRubric says k is a RubricKey.
func (k Key) IsRubric() bool { return k.BankHash == rubricBank }

// Versions is a version per study, bumped when its answers change (a run
// or a screen stored some). A result computed from a study's answers
// keeps the version it read; it is stale when the version moved on.
// In memory only, no I/O: the TUI reads it in Update and View. The zero
// value is ready to use.
type Versions struct {
	of map[Key]int
}

// Bump records that the answers of k changed.
func (v *Versions) Bump(k Key) {
	if v.of == nil {
		v.of = map[Key]int{}
	}
	v.of[k]++
}

// Of is the version of k: 0 until its answers first change.
func (v *Versions) Of(k Key) int { return v.of[k] }

// Total is the sum of the versions of the keys match accepts (every key
// when match is nil). Versions only grow, so it changes exactly when one
// of those keys' answers changed: what a result read from several
// studies (every judge of a dataset, say) compares.
func (v *Versions) Total(match func(Key) bool) int {
	n := 0
	for k, ver := range v.of {
		if match == nil || match(k) {
			n += ver
		}
	}
	return n
}

// Rubric is the RubricKey of k's dataset and judge.
func (k Key) Rubric() Key { return RubricKey(k.Dataset, k.Judge) }
