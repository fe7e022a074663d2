package study

import (
	"fmt"
	"strconv"
)

// Runs chooses the runs an analysis reads of a study. The zero value is
// the planned runs: those the study's own acquisition planned (every run
// when none recorded a plan: imported scores, a workspace from before
// plans, a study only diagnostics acquired).
type Runs struct {
	All bool // every run stored, diagnostics' extra runs included
	N   int  // the first N runs (> 0)
}

// ParseRuns reads a --runs value: "planned", "all" or a count ≥ 1.
func ParseRuns(s string) (Runs, error) {
	switch s {
	case "", "planned":
		return Runs{}, nil
	case "all":
		return Runs{All: true}, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return Runs{}, fmt.Errorf("--runs %q: want planned, all or a number of runs ≥ 1", s)
	}
	return Runs{N: n}, nil
}

func (r Runs) String() string {
	switch {
	case r.All:
		return "all"
	case r.N > 0:
		return strconv.Itoa(r.N)
	}
	return "planned"
}

// limit is how many runs r reads of a study planned with planned runs
// (0: every run).
func (r Runs) limit(planned int) int {
	switch {
	case r.All:
		return 0
	case r.N > 0:
		return r.N
	}
	return planned
}
