package study

import (
	"context"
	"fmt"
	"strings"

	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
)

// Pick finds the study of judge on dataset that an analysis reads: under
// bankHash when it is given, else the judge's only probe study there that
// its own acquisition planned (or, when none did, its only probe study).
// Studies only diagnostics acquired (other banks, other scales) are never
// picked silently: with several candidates Pick fails listing them, as
// prism ls words them, so the user chooses with --bank. note says which
// study was taken when there was a choice to make, else "".
func Pick(ctx context.Context, st *store.Store, dataset, judge, bankHash string) (info store.StudyInfo, note string, err error) {
	all, err := st.StudiesOf(ctx, dataset, judge)
	if err != nil {
		return info, "", err
	}
	var probes, planned []store.StudyInfo
	for _, s := range all {
		if s.Rubric {
			continue
		}
		// Imported scores have no bank: they are the judge's study
		// whichever bank is named (as store.Scores selects them).
		if bankHash != "" && (s.BankHash == bankHash || s.BankHash == "") {
			return s, "", nil
		}
		probes = append(probes, s)
		if s.PlannedRuns > 0 {
			planned = append(planned, s)
		}
	}
	switch {
	case bankHash == "" && len(planned) == 1:
		if len(probes) > 1 {
			note = fmt.Sprintf("study: bank %s, the one prism run planned; %d other bank versions hold only diagnostics' answers (--bank picks one)", label(planned[0]), len(probes)-1)
		}
		return planned[0], note, nil
	case bankHash == "" && len(planned) == 0 && len(probes) == 1:
		return probes[0], "", nil
	case bankHash == "" && len(probes) == 0:
		return info, "", fmt.Errorf("judge %q has no answers on dataset %q: %w", judge, dataset, store.ErrNotFound)
	}
	// No study to take: list the candidates with their progress.
	if probes, err = counted(ctx, st, dataset, judge); err != nil {
		return info, "", err
	}
	if bankHash != "" {
		return info, "", fmt.Errorf("judge %q has no answers on dataset %q under bank %s%s: %w", judge, dataset, model.ShortHash(bankHash), listed(probes), store.ErrNotFound)
	}
	return info, "", &AmbiguousError{Dataset: dataset, Judge: judge, Studies: probes}
}

// counted is the judge's probe studies on dataset with their counts
// (store.Studies), for a listing.
func counted(ctx context.Context, st *store.Store, dataset, judge string) ([]store.StudyInfo, error) {
	all, err := st.Studies(ctx)
	var out []store.StudyInfo
	for _, s := range all {
		if s.Dataset == dataset && s.Judge == judge && !s.Rubric {
			out = append(out, s)
		}
	}
	return out, err
}

// AmbiguousError says a judge has several studies on a dataset and none
// is the one to read: answers of different banks or scales are never
// pooled.
type AmbiguousError struct {
	Dataset, Judge string
	Studies        []store.StudyInfo
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("judge %q answered dataset %q under %d bank versions, which are never pooled; choose one with --bank NAME|HASH:%s",
		e.Judge, e.Dataset, len(e.Studies), listed(e.Studies))
}

// listed is the studies one a line, as prism ls words them.
func listed(ss []store.StudyInfo) string {
	var b strings.Builder
	for _, s := range ss {
		fmt.Fprintf(&b, "\n  %s: %s", label(s), Progress(s))
	}
	return b.String()
}

// label is a study's bank as prism ls names it: NAME HASH.
func label(s store.StudyInfo) string {
	if s.BankHash == "" {
		return "(imported, no bank)"
	}
	return strings.TrimSpace(s.BankName + " " + model.ShortHash(s.BankHash))
}

// Progress words a study's progress as prism ls does: planned requests
// against answered and failed, and what diagnostics added.
func Progress(s store.StudyInfo) string {
	if s.PlannedRuns == 0 {
		what := "no plan recorded"
		if len(s.Diagnostics) > 0 {
			what = "acquired by " + strings.Join(s.Diagnostics, ", ")
		}
		return fmt.Sprintf("%s; %d requests, %d answered, %d failed", what, s.Requests, s.Answered, s.Failed)
	}
	out := fmt.Sprintf("%d of %d planned answered (%d runs), %d failed", s.PlanAnswered, s.Planned, s.PlannedRuns, s.PlanFailed)
	if extra := s.BeyondPlan(); extra > 0 {
		by := "runs beyond the plan"
		if len(s.Diagnostics) > 0 {
			by = strings.Join(s.Diagnostics, ", ")
		}
		out += fmt.Sprintf("; %d more answers of %s", extra, by)
	}
	return out
}
