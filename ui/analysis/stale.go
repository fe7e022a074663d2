package analysis

import (
	"fmt"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/ui/tab"
	"github.com/prism-eval/prism/ui/widgets"
)

// Fitted is the Fit tab's last fit as the tabs that show it keep it: what
// it read and what it found.
type Fitted struct {
	Key study.Key // the answers it read
	// Answers and Rubrics are the versions of Key and of its judge's
	// rubric studies when the fit started.
	Answers, Rubrics int
	Report           *calib.Report
	Agree            *Agreement    // Key's agreement when its study has no probes (Report is then nil)
	Stored           *study.Stored // where Report came from when it was read from the workspace, or nil
}

// Settings are the Fit tab's metric and Taylor setting, which its next
// fit uses.
type Settings struct {
	Metric string
	Taylor bool
}

// Stale says why f no longer describes the study (cur, ok false when
// there is none, at versions v) with the Fit tab's settings s, or ""
// when it does: what the Fit and Profiles tabs warn of.
func (f *Fitted) Stale(cur study.Key, ok bool, v tab.Versions, s Settings) string {
	if f.Report == nil && f.Agree != nil {
		return f.agreeStale(cur, ok, v, s)
	}
	if f.Report == nil {
		return ""
	}
	switch {
	case !ok || cur.Dataset != f.Key.Dataset:
		return "the dataset has changed since this fit: f refits"
	case cur.Judge != f.Key.Judge:
		return fmt.Sprintf("this fit is of judge %s; the Run tab now names %s: f refits", f.Key.Judge, cur.Judge)
	case cur.BankHash != f.Key.BankHash:
		return fmt.Sprintf("the bank has changed since this fit (%s, now %s): f refits", widgets.ShortHash(f.Key.BankHash), widgets.ShortHash(cur.BankHash))
	case f.Report.Metric != s.Metric:
		return "the metric has changed since this fit: f refits"
	case (f.Report.Methods.Taylor != nil) != s.Taylor:
		return "the Taylor setting has changed since this fit: f refits"
	case v.Of(cur) != f.Answers:
		return "new answers were stored since this fit: f refits"
	case v.Of(cur.Rubric()) != f.Rubrics:
		return "new rubric ratings were stored since this fit: f refits (Table 2)"
	}
	return f.storedNote()
}

// agreeStale says why the Fit tab's agreement no longer describes the
// study, or "" when it does.
func (f *Fitted) agreeStale(cur study.Key, ok bool, v tab.Versions, s Settings) string {
	switch {
	case !ok || cur.Dataset != f.Key.Dataset:
		return "the dataset has changed since this agreement: f measures it again"
	case cur.Judge != f.Key.Judge:
		return fmt.Sprintf("this agreement is of judge %s; the Run tab now names %s: f fits or measures it", f.Key.Judge, cur.Judge)
	case f.Agree.Res.Metric != AgreeOptions(s.Metric).Metric:
		return "the metric has changed since this agreement: f measures it again"
	case v.Of(cur) != f.Answers:
		return "new answers were stored since this agreement: f fits or measures it again"
	}
	return ""
}

// storedNote says where a stored fit came from, and whether the study's
// answers changed since it was fitted.
func (f *Fitted) storedNote() string {
	s := f.Stored
	if s == nil {
		return ""
	}
	if s.Stale {
		return fmt.Sprintf("stored fit #%d: the study's answers changed since it was fitted: f refits", s.ID)
	}
	return fmt.Sprintf("stored fit #%d of this study, as it was left (f refits; S needs a fresh fit)", s.ID)
}
