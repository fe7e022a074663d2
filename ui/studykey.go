package ui

import (
	"errors"

	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/ui/tab"
)

// studyKey names one study's answers (study.Key).
type studyKey = study.Key

// currentKey is the study's current key: its dataset, the Run form's
// judge and the Bank tab's bank version; ok is false when the form is
// invalid or no workspace is open.
func (a *App) currentKey() (studyKey, bool) {
	if a.study.Store == nil || a.study.Dataset == nil || a.study.Dataset.NumCandidates() == 0 {
		return studyKey{}, false
	}
	_, judge, err := a.run.Judge()
	if err != nil {
		return studyKey{}, false
	}
	return studyKey{Dataset: a.study.Dataset.Name, Judge: judge, BankHash: a.bank.Bank().Hash()}, true
}

// requireKey is currentKey, or why there is none: no workspace or dataset,
// or the Run form's error.
func (a *App) requireKey() (studyKey, error) {
	if k, ok := a.currentKey(); ok {
		return k, nil
	}
	switch {
	case a.study.Store == nil:
		return studyKey{}, tab.ErrNoWorkspace
	case a.study.Dataset == nil || a.study.Dataset.NumCandidates() == 0:
		return studyKey{}, errors.New("no dataset yet: i on the Data tab imports one")
	}
	_, _, err := a.run.Judge()
	if err == nil { // currentKey fails for no other reason
		err = errors.New("the Run tab's judge is not set")
	}
	return studyKey{}, err
}
