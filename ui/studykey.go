package ui

import "errors"

// studyKey names one study's answers: a dataset, a judge and a bank
// version. Signal reports, fits, selections, inspections and comparisons
// are all computed from (and cached by) the answers of one key.
type studyKey struct{ dataset, judge, bankHash string }

// judgeKey names a judge's answers on a dataset under any bank version or
// rubric: a fit of the judge reads all its rubric ratings there.
type judgeKey struct{ dataset, judge string }

// judgeOf is the dataset and judge of k.
func (k studyKey) judgeOf() judgeKey { return judgeKey{k.dataset, k.judge} }

// currentKey is the study's current key: its dataset, the Run form's
// judge and the Bank screen's bank version; ok is false when the form is
// invalid or no workspace is open.
func (a *App) currentKey() (studyKey, bool) {
	if a.study.Store == nil || a.study.Dataset == nil || a.study.Dataset.NumCandidates() == 0 {
		return studyKey{}, false
	}
	cfg, _, _, err := a.run.form.Config()
	if err != nil {
		return studyKey{}, false
	}
	return studyKey{a.study.Dataset.Name, a.run.form.JudgeName(cfg), a.bank.bank.Hash()}, true
}

// requireKey is currentKey, or why there is none: no workspace or dataset,
// or the Run form's error.
func (a *App) requireKey() (studyKey, error) {
	if k, ok := a.currentKey(); ok {
		return k, nil
	}
	switch {
	case a.study.Store == nil:
		return studyKey{}, errNoWorkspace
	case a.study.Dataset == nil || a.study.Dataset.NumCandidates() == 0:
		return studyKey{}, errors.New("no dataset yet: i on the Data screen imports one")
	}
	_, _, _, err := a.run.form.Config()
	if err == nil { // currentKey fails for no other reason
		err = errors.New("the Run screen's judge is not set")
	}
	return studyKey{}, err
}
