package data

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

func init() {
	clikit.Register("ls", "list what the workspace holds: datasets, banks, judges and each study's progress", runLs)
}

const lsUsage = `prism ls [--workspace FILE]

Lists what the workspace holds: its datasets (name, format, candidates),
the bank snapshots answers were recorded under (name, hash prefix,
source), the stored judges with their configuration (backend, model, base
URL, parameters; the names --judge takes), and per study (dataset × judge
× bank version) its progress: the runs and requests prism run planned,
of them answered and failed (a failed attempt and no answer yet; a rerun
retries them), the answers beyond the plan (diagnostics' extra runs) and
what acquired the study (run, screen, diagnose …); then the stored fits.
The workspace is only read.`

func runLs(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := clikit.NewWorkspaceFlags("prism ls", stderr, lsUsage)
	pos, help, err := fs.ParseArgs(args, stdout)
	if err != nil || help {
		return err
	}
	if err := clikit.NoArgs(lsUsage, pos); err != nil {
		return err
	}
	st, err := clikit.OpenWorkspaceRO(ctx, *fs.Workspace)
	if err != nil {
		return err
	}
	defer st.Close()
	return listWorkspace(ctx, st, stdout)
}

func listWorkspace(ctx context.Context, st *store.Store, w io.Writer) error {
	infos, err := st.Datasets(ctx)
	if err != nil {
		return err
	}
	snaps, err := st.Banks(ctx)
	if err != nil {
		return err
	}
	judges, err := st.Judges(ctx)
	if err != nil {
		return err
	}
	studies, err := st.Studies(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "workspace %s\n", st.Path())
	if err := lsSection(w, fmt.Sprintf("datasets (%d)", len(infos)), len(infos), "none: prism data import FORMAT FILE",
		"NAME\tFORMAT\tTASK\tCONTEXTS\tCANDIDATES", func(tw io.Writer) error {
			for _, in := range infos {
				fmt.Fprintf(tw, "  %s\t%s\t%s\t%d\t%d\n", in.Name, in.Format, in.Task, in.Contexts, in.Candidates)
			}
			return nil
		}); err != nil {
		return err
	}
	if err := lsSection(w, fmt.Sprintf("banks (%d)", len(snaps)), len(snaps), "none: a run stores the snapshot of its bank (prism bank ls lists the built-in ones)",
		"NAME\tHASH\tSOURCE", func(tw io.Writer) error {
			for _, b := range snaps {
				fmt.Fprintf(tw, "  %s\t%s\t%s\n", b.Name, model.ShortHash(b.Hash), b.Source)
			}
			return nil
		}); err != nil {
		return err
	}
	if err := lsSection(w, fmt.Sprintf("judges (%d): the names --judge takes", len(judges)), len(judges), "none: prism run --backend offline|openai stores one (or prism import scores --judge NAME)",
		"NAME\tBACKEND\tMODEL\tBASE URL\tPARAMS", func(tw io.Writer) error { return judgeRows(tw, judges) }); err != nil {
		return err
	}
	if err := lsSection(w, fmt.Sprintf("studies (%d): dataset × judge × bank version; progress against what prism run planned", len(studies)), len(studies), "none: prism run or prism screen records requests",
		"DATASET\tJUDGE\tBANK\tSCALE\tRUNS\tPLANNED\tANSWERED\tFAILED\tBEYOND PLAN\tACQUIRED BY", func(tw io.Writer) error { return studyRows(ctx, st, tw, studies) }); err != nil {
		return err
	}
	return listReports(ctx, st, w)
}

// lsSection prints one section of prism ls: its title, then the none line
// when it has no rows, else the table (header and rows, indented).
func lsSection(w io.Writer, title string, n int, none, header string, rows func(tw io.Writer) error) error {
	fmt.Fprintf(w, "\n%s\n", title)
	if n == 0 {
		fmt.Fprintln(w, "  "+none)
		return nil
	}
	tw := clikit.NewTable(w)
	fmt.Fprintln(tw, "  "+header)
	if err := rows(tw); err != nil {
		return err
	}
	return tw.Flush()
}

// judgeRows are the stored judges' rows, their parameters as JSON.
func judgeRows(tw io.Writer, judges []store.Judge) error {
	for _, j := range judges {
		params := "{}"
		if len(j.Params) > 0 {
			b, err := json.Marshal(j.Params) // keys sorted
			if err != nil {
				return err
			}
			params = string(b)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", j.Name, j.Backend, dash(j.Model), dash(j.BaseURL), params)
	}
	return nil
}

// studyRows are the studies' rows: progress against the plan, and who
// acquired them.
func studyRows(ctx context.Context, st *store.Store, tw io.Writer, studies []store.StudyInfo) error {
	for _, s := range studies {
		bank := model.ShortHash(s.BankHash)
		if s.BankName != "" {
			bank = s.BankName + " " + bank
		}
		runs, planned, by := "-", "-", []string{}
		if s.PlannedRuns > 0 {
			runs, planned = fmt.Sprint(s.PlannedRuns), fmt.Sprint(s.Planned)
			by = append(by, "run")
		}
		by = append(by, s.Diagnostics...)
		if len(by) == 0 {
			by = append(by, "-")
		}
		scale := "-"
		if !s.Rubric && s.BankHash != "" {
			if sc, err := study.Scale(ctx, st, s); err == nil && sc != "" {
				scale = sc
			}
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%s\n", s.Dataset, s.Judge, bank, scale, runs, planned,
			s.PlanAnswered, s.PlanFailed, s.BeyondPlan(), strings.Join(by, ", "))
	}
	return nil
}

// listReports lists the stored fits, newest first.
func listReports(ctx context.Context, st *store.Store, w io.Writer) error {
	reps, err := st.Reports(ctx, study.KindFit, "", false)
	if err != nil || len(reps) == 0 {
		return err
	}
	fmt.Fprintf(w, "\nfits (%d): stored by prism fit and the Fit tab, newest first\n", len(reps))
	tw := clikit.NewTable(w)
	fmt.Fprintln(tw, "  ID\tDATASET\tJUDGE\tBANK\tRUNS\tCREATED")
	for _, r := range reps {
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.Dataset, r.Judge, dash(model.ShortHash(r.BankHash)), r.Runs,
			r.Created.Format("2006-01-02 15:04:05"))
	}
	return tw.Flush()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
