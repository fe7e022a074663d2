package model

import (
	"fmt"
	"strings"
)

// Study names one study and what an analysis read of it: one dataset ×
// one judge (backend, model, parameters, mode) × one bank version (its
// hash covers the score scale) × the runs read (docs/glossary.md). Every
// report that prints a number of a workspace's study carries one, so the
// number can be traced to exactly what went in.
type Study struct {
	Dataset  string         `json:"dataset"`
	Judge    string         `json:"judge"`
	Backend  string         `json:"backend,omitempty"`
	Model    string         `json:"model,omitempty"`
	Mode     string         `json:"mode,omitempty"`
	Params   map[string]any `json:"params,omitempty"` // sampling parameters, secrets stripped
	Bank     string         `json:"bank,omitempty"`   // "" for imported scores, which have no bank
	BankHash string         `json:"bank_hash,omitempty"`
	Scale    string         `json:"scale,omitempty"` // the task's score scale, MIN–MAX
	// Target is the labels' criterion the analysis measured against
	// (--target, e.g. SummEval's coherence); "" for the dataset's target.
	Target string `json:"target,omitempty"`
	// PlannedRuns is what the study's own acquisition planned (0: none
	// recorded); Runs what was read: "planned", "all" or a count.
	PlannedRuns int    `json:"planned_runs"`
	Runs        string `json:"runs"`
	// RunsPerContext is the least and the most baseline runs a context
	// has among the rows read: unequal means unbalanced runs.
	RunsPerContext [2]int `json:"runs_per_context"`
	Contexts       int    `json:"contexts"`
	Candidates     int    `json:"candidates"`
	Answers        int    `json:"answers"`  // answered requests read
	Failures       int    `json:"failures"` // requests of the runs read that failed and have no answer
	// Imputed counts the score cells filled with their column's mean;
	// set by the analysis that fills them (-1: not yet known).
	Imputed int `json:"imputed"`
	// Generation identifies the state of the study's answers that was
	// read: it changes whenever an answer of the study is stored.
	Generation int64 `json:"generation"`
}

// Balanced reports whether every context read has the same number of runs.
func (s *Study) Balanced() bool { return s.RunsPerContext[0] == s.RunsPerContext[1] }

// Lines is the study as a report's header states it: what went in, one
// fact per clause.
func (s *Study) Lines() []string {
	judge := s.Judge
	var conf []string
	for _, f := range []struct{ k, v string }{{"backend", s.Backend}, {"model", s.Model}, {"mode", s.Mode}} {
		if f.v != "" {
			conf = append(conf, f.k+" "+f.v)
		}
	}
	if len(conf) > 0 {
		judge += " (" + strings.Join(conf, ", ") + ")"
	}
	bank := "no bank (imported scores)"
	if s.BankHash != "" {
		bank = fmt.Sprintf("bank %s %s", s.Bank, ShortHash(s.BankHash))
		if s.Scale != "" {
			bank += ", scale " + s.Scale
		}
	}
	runs := "runs " + s.runsText() + fmt.Sprintf(", %s per context", span(s.RunsPerContext))
	if !s.Balanced() {
		runs += " (unbalanced)"
	}
	used := fmt.Sprintf("%d contexts, %d candidates, %d answers, %d failed", s.Contexts, s.Candidates, s.Answers, s.Failures)
	if s.Imputed >= 0 {
		used += fmt.Sprintf(", %d imputed", s.Imputed)
	}
	dataset := s.Dataset
	if s.Target != "" {
		dataset += " (target: criterion " + s.Target + ")"
	}
	return []string{
		fmt.Sprintf("study: dataset %s, judge %s, %s", dataset, judge, bank),
		fmt.Sprintf("       %s; %s", runs, used),
	}
}

// Caption is the study in one short line: dataset, judge, bank and
// scale, runs read (a figure's subtitle).
func (s *Study) Caption() string { return s.names() + " · runs " + s.runsText() }

// names are the dataset, the judge and the bank, short.
func (s *Study) names() string {
	judge := s.Judge
	if s.Mode != "" && s.Mode != "integer" {
		judge += " (" + s.Mode + ")"
	}
	bank := "imported, no bank"
	if s.BankHash != "" {
		bank = s.Bank + " " + ShortHash(s.BankHash)
		if s.Scale != "" {
			bank += " " + s.Scale
		}
	}
	return s.Dataset + " · " + judge + " · " + bank
}

// Short is the study in two short lines, for a narrow screen.
func (s *Study) Short() []string {
	runs := s.runsText() + ", " + span(s.RunsPerContext) + "/ctx"
	if !s.Balanced() {
		runs += " unbalanced"
	}
	used := fmt.Sprintf("%d cand · %d answers · %d failed", s.Candidates, s.Answers, s.Failures)
	if s.Imputed >= 0 {
		used += fmt.Sprintf(" · %d imputed", s.Imputed)
	}
	return []string{
		"study " + s.names(),
		fmt.Sprintf("runs %s · %s", runs, used),
	}
}

// runsText says which runs were read: "planned (1)", "all (no plan)", …
func (s *Study) runsText() string {
	switch {
	case s.Runs == "planned" && s.PlannedRuns > 0:
		return fmt.Sprintf("planned (%d)", s.PlannedRuns)
	case s.Runs == "planned":
		return "all (no plan)"
	}
	return s.Runs
}

func span(r [2]int) string {
	if r[0] == r[1] {
		return fmt.Sprint(r[0])
	}
	return fmt.Sprintf("%d–%d", r[0], r[1])
}

// ShortHash is the first 12 hex digits of a bank hash, as reports name
// bank versions (a prefix prism accepts wherever a bank is named).
func ShortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
