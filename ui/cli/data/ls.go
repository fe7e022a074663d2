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

	fmt.Fprintf(w, "\ndatasets (%d)\n", len(infos))
	if len(infos) == 0 {
		fmt.Fprintln(w, "  none: prism data import FORMAT FILE")
	} else {
		tw := clikit.NewTable(w)
		fmt.Fprintln(tw, "  NAME\tFORMAT\tTASK\tCONTEXTS\tCANDIDATES")
		for _, in := range infos {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%d\t%d\n", in.Name, in.Format, in.Task, in.Contexts, in.Candidates)
		}
		tw.Flush()
	}

	bankName := map[string]string{}
	fmt.Fprintf(w, "\nbanks (%d)\n", len(snaps))
	if len(snaps) == 0 {
		fmt.Fprintln(w, "  none: a run stores the snapshot of its bank (prism bank ls lists the built-in ones)")
	} else {
		tw := clikit.NewTable(w)
		fmt.Fprintln(tw, "  NAME\tHASH\tSOURCE")
		for _, b := range snaps {
			bankName[b.Hash] = b.Name
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", b.Name, model.ShortHash(b.Hash), b.Source)
		}
		tw.Flush()
	}

	fmt.Fprintf(w, "\njudges (%d): the names --judge takes\n", len(judges))
	if len(judges) == 0 {
		fmt.Fprintln(w, "  none: prism run --backend offline|openai stores one (or prism import scores --judge NAME)")
	} else {
		tw := clikit.NewTable(w)
		fmt.Fprintln(tw, "  NAME\tBACKEND\tMODEL\tBASE URL\tPARAMS")
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
		tw.Flush()
	}

	fmt.Fprintf(w, "\nstudies (%d): dataset × judge × bank version; progress against what prism run planned\n", len(studies))
	if len(studies) == 0 {
		fmt.Fprintln(w, "  none: prism run or prism screen records requests")
		return listReports(ctx, st, w)
	}
	tw := clikit.NewTable(w)
	fmt.Fprintln(tw, "  DATASET\tJUDGE\tBANK\tSCALE\tRUNS\tPLANNED\tANSWERED\tFAILED\tBEYOND PLAN\tACQUIRED BY")
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
			s.PlanAnswered, s.PlanFailed, s.Answered-s.PlanAnswered, strings.Join(by, ", "))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return listReports(ctx, st, w)
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
