package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/model/store"
)

func init() {
	register("ls", "list what the workspace holds: datasets, banks, judges and each study's progress", runLs)
}

const lsUsage = `prism ls [--workspace FILE]

Lists what the workspace holds: its datasets (name, format, candidates),
the bank snapshots answers were recorded under (name, hash prefix,
source), the stored judges with their configuration (backend, model, base
URL, parameters; the names --judge takes), and per study (dataset × judge
× bank) the requests recorded, answered and failed (a failed attempt and
no answer yet; a rerun retries them). The workspace is only read.`

func runLs(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newWorkspaceFlags("prism ls", stderr, lsUsage)
	pos, help, err := fs.parse(args, stdout)
	if err != nil || help {
		return err
	}
	if len(pos) > 0 {
		return usageErr(lsUsage, "unexpected argument %q", pos[0])
	}
	st, err := openWorkspaceRO(ctx, *fs.workspace)
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
		tw := newTable(w)
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
		tw := newTable(w)
		fmt.Fprintln(tw, "  NAME\tHASH\tSOURCE")
		for _, b := range snaps {
			bankName[b.Hash] = b.Name
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", b.Name, banks.ShortHash(b.Hash), b.Source)
		}
		tw.Flush()
	}

	fmt.Fprintf(w, "\njudges (%d): the names --judge takes\n", len(judges))
	if len(judges) == 0 {
		fmt.Fprintln(w, "  none: prism run --backend offline|openai stores one (or prism import scores --judge NAME)")
	} else {
		tw := newTable(w)
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

	fmt.Fprintf(w, "\nstudies (%d): dataset × judge × bank\n", len(studies))
	if len(studies) == 0 {
		fmt.Fprintln(w, "  none: prism run or prism screen records requests")
		return nil
	}
	tw := newTable(w)
	fmt.Fprintln(tw, "  DATASET\tJUDGE\tBANK\tREQUESTS\tANSWERED\tFAILED")
	for _, s := range studies {
		bank := banks.ShortHash(s.BankHash)
		if s.BankName != "" {
			bank = s.BankName + " " + bank
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%d\t%d\t%d\n", s.Dataset, s.Judge, bank, s.Requests, s.Answered, s.Failed)
	}
	return tw.Flush()
}

func newTable(w io.Writer) *tabwriter.Writer { return tabwriter.NewWriter(w, 0, 4, 2, ' ', 0) }

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
