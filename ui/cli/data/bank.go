package data

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

func init() {
	clikit.Register("bank", "list, show, validate and export probe banks (ls|show|validate|export)", runBank)
	clikit.RegisterArgs("bank", func() []string { return []string{"ls", "show", "validate", "export"} })
}

const bankUsage = `
  prism bank ls [--workspace FILE]
  prism bank show BANK [--render] [--task KIND] [--probe PROBE] [--wording N] [--listwise] [--workspace FILE]
  prism bank validate FILE...
  prism bank export BANK [-o FILE] [--force] [--workspace FILE]

BANK is a built-in bank name (prism bank ls), a bank file (a path with a '/'
or ending in .toml, or any existing file that is not a built-in name), or a
hash prefix (at least 6 hex digits) of a bank stored in the workspace.
The workspace defaults to $PRISM_WORKSPACE, else prism.db in the current directory;
it is only read, and only when it exists.`

func runBank(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return clikit.UsageErr(bankUsage, "a subcommand is required")
	}
	switch args[0] {
	case "ls", "list":
		return runBankList(ctx, args[1:], stdout)
	case "show":
		return runBankShow(ctx, args[1:], stdout, stderr)
	case "validate":
		return runBankValidate(ctx, args[1:], stdout)
	case "export":
		return runBankExport(ctx, args[1:], stdout)
	case "-h", "--help", "help":
		fmt.Fprintln(stdout, clikit.UsageText(bankUsage))
		return nil
	}
	return clikit.UsageErr(bankUsage, "unknown subcommand %q", args[0])
}

func runBankList(ctx context.Context, args []string, stdout io.Writer) error {
	fs := clikit.NewWorkspaceFlags("prism bank ls", io.Discard, bankUsage)
	pos, help, err := fs.ParseArgs(args, stdout)
	if err != nil || help {
		return err
	}
	if len(pos) > 0 {
		return clikit.UsageErr(bankUsage, "prism bank ls takes no arguments")
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tATTRS\tNEUTRALS\tCTX\tCONDITIONS\tTASKS\tHASH\tSOURCE")
	for _, b := range banks.Builtins() {
		bankRow(tw, b, b.Source)
	}
	snaps, wsPath, err := clikit.WorkspaceBanks(ctx, fs)
	if err != nil {
		return err
	}
	for _, s := range snaps {
		b, err := banks.Parse([]byte(s.Text), s.Source)
		if err != nil {
			fmt.Fprintf(tw, "%s\t-\t-\t-\t-\t-\t%s\tstored in %s, does not parse: %v\n", s.Name, model.ShortHash(s.Hash), wsPath, firstLine(err.Error()))
			continue
		}
		bankRow(tw, b, "stored in "+wsPath+" from "+s.Source)
	}
	return tw.Flush()
}

func bankRow(w io.Writer, b *banks.Bank, source string) {
	fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\t%s\t%s\t%s\n", b.Name, len(b.Attributes), len(b.Neutrals), len(b.ContextProbes),
		len(b.Conditions()), strings.Join(b.TaskNames(), ","), model.ShortHash(b.Hash()), source)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

func runBankShow(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := clikit.NewWorkspaceFlags("prism bank show", stderr, bankUsage)
	render := fs.Bool("render", false, "print the exact system and user messages for a sample candidate")
	task := fs.String("task", "", "task `KIND` to render (default: the bank's only task, else news-summary or the first)")
	probe := fs.String("probe", "", "render only this `PROBE` (baseline, ATTR:+, ATTR:-, neutral:NAME, ctx:NAME; default all)")
	wording := fs.Int("wording", -1, "render only wording `N` (from 0) of the probe's sign; -1: all")
	listwiseFlag := fs.Bool("listwise", false, "render the listwise request (both sample candidates in one call)")
	batch := fs.Bool("batch", false, "deprecated spelling of --listwise")
	fs.Hide("batch")
	pos, help, err := fs.ParseArgs(args, stdout)
	if err != nil || help {
		return err
	}
	if len(pos) != 1 {
		return clikit.UsageErr(bankUsage, "prism bank show takes one BANK")
	}
	if _, err := fs.Deprecated(stderr, "batch", "listwise"); err != nil {
		return err
	}
	listwise := *listwiseFlag || *batch
	b, _, err := clikit.ResolveBank(ctx, pos[0], fs)
	if err != nil {
		return err
	}
	if !*render {
		if *task != "" || *probe != "" || *wording >= 0 || listwise {
			return clikit.UsageErr(bankUsage, "--task, --probe, --wording and --listwise need --render")
		}
		return showBank(stdout, b)
	}
	return renderBank(stdout, b, *task, *probe, *wording, listwise)
}

func showBank(w io.Writer, b *banks.Bank) error {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("bank %s  hash %s\n", b.Name, b.Hash())
	if b.Description != "" {
		p("%s\n", b.Description)
	}
	if b.Source != "" {
		p("source: %s\n", b.Source)
	}
	p("\ntemplates ([clause] is replaced by each attribute's clause):\n")
	for _, t := range b.Templates.Plus {
		p("  + %s\n", t)
	}
	for _, t := range b.Templates.Minus {
		p("  − %s\n", t)
	}
	p("\nattributes (%d):\n", len(b.Attributes))
	for _, a := range b.Attributes {
		p("  %s: %s", a.Name, a.Clause)
		if a.Source != "" && a.Source != b.Source {
			p("  [%s]", a.Source)
		}
		p("\n")
		for i, s := range a.Wordings(b.Templates, true) {
			p("    %s w%d  %s\n", banks.PlusProbe(a.Name), i, s)
		}
		for i, s := range a.Wordings(b.Templates, false) {
			p("    %s w%d  %s\n", banks.MinusProbe(a.Name), i, s)
		}
	}
	p("\nneutral clauses (%d; controls, never regression columns):\n", len(b.Neutrals))
	for _, n := range b.Neutrals {
		p("  %s  %s", banks.NeutralProbe(n.Name), n.Text)
		if n.Source != "" {
			p("  [%s]", n.Source)
		}
		p("\n")
	}
	p("\ncontext probes (%d):\n", len(b.ContextProbes))
	for _, c := range b.ContextProbes {
		p("  %s  %s\n", banks.ContextProbeName(c.Name), c.Text)
	}
	nLevels := showLevels(p, b)
	p("\ntasks:\n")
	for _, k := range b.TaskNames() {
		t := b.Tasks[k]
		p("  %s: scale %s; system %q\n", k, t.Scale.Range(), t.System)
	}
	p("\n%d conditions: 1 baseline, %d attribute wordings, %d neutral, %d context", len(b.Conditions()),
		len(b.Conditions())-1-len(b.Neutrals)-len(b.ContextProbes)-nLevels, len(b.Neutrals), len(b.ContextProbes))
	if nLevels > 0 {
		p(", %d graded, control and joint", nLevels)
	}
	p(".\n")
	return nil
}

func renderBank(w io.Writer, b *banks.Bank, task, probe string, wording int, listwise bool) error {
	if task == "" {
		names := b.TaskNames()
		task = names[0]
		for _, n := range names {
			if n == "news-summary" {
				task = n
			}
		}
	}
	r, err := b.Renderer(task)
	if err != nil {
		return err
	}
	ctx, err := banks.Sample(task)
	if err != nil {
		return err
	}
	var conds []banks.Condition
	for _, c := range b.Conditions() {
		if (probe == "" || c.Probe == probe) && (wording < 0 || c.Wording == wording) {
			conds = append(conds, c)
		}
	}
	if len(conds) == 0 {
		return fmt.Errorf("bank %s has no condition %s wording %d (see prism bank show %s)", b.Name, probe, wording, b.Name)
	}
	fmt.Fprintf(w, "bank %s (hash %s), task %s, sample context %s\n", b.Name, model.ShortHash(b.Hash()), task, ctx.ID)
	for _, c := range conds {
		var req banks.Request
		if listwise {
			req, err = r.RenderBatch(ctx, ctx.Candidates, c)
		} else {
			req, err = r.Render(ctx, ctx.Candidates[0], c)
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "\n──── %s wording %d ────\n", c.Probe, c.Wording)
		for _, m := range req.Messages {
			fmt.Fprintf(w, "[%s]\n%s\n", m.Role, m.Content)
		}
	}
	return nil
}

func runBankValidate(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		if len(args) > 0 {
			fmt.Fprintln(stdout, clikit.UsageText(bankUsage))
			return nil
		}
		return clikit.UsageErr(bankUsage, "prism bank validate FILE...")
	}
	var bad int
	var msgs []string
	for _, f := range args {
		if err := ctx.Err(); err != nil {
			return err
		}
		data, err := banks.ReadFile(f)
		if err != nil {
			bad++
			msgs = append(msgs, err.Error())
			continue
		}
		b, err := banks.Parse(data, f)
		if err != nil {
			bad++
			msgs = append(msgs, err.Error())
			continue
		}
		fmt.Fprintf(stdout, "%s: ok: bank %s, %d attributes, %d neutrals, %d context probes, %d conditions, tasks %s, hash %s\n",
			f, b.Name, len(b.Attributes), len(b.Neutrals), len(b.ContextProbes), len(b.Conditions()), strings.Join(b.TaskNames(), ","), b.Hash())
	}
	if bad > 0 {
		return fmt.Errorf("%d of %d bank files invalid:\n%s", bad, len(args), strings.Join(msgs, "\n"))
	}
	return nil
}

func runBankExport(ctx context.Context, args []string, stdout io.Writer) error {
	fs := clikit.NewWorkspaceFlags("prism bank export", io.Discard, bankUsage)
	out := fs.String("o", "", "write to `FILE` instead of standard output")
	force := fs.Bool("force", false, "overwrite an existing -o file")
	pos, help, err := fs.ParseArgs(args, stdout)
	if err != nil || help {
		return err
	}
	if len(pos) != 1 {
		return clikit.UsageErr(bankUsage, "prism bank export takes one BANK")
	}
	b, file, err := clikit.ResolveBank(ctx, pos[0], fs)
	if err != nil {
		return err
	}
	if file == nil {
		if file, err = b.Marshal(); err != nil {
			return err
		}
	}
	if *out == "" {
		_, err = stdout.Write(file)
		return err
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if !*force {
		flags |= os.O_EXCL
	}
	f, err := os.OpenFile(*out, flags, 0o644)
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("%s exists; pass --force to overwrite it", *out)
	}
	if err != nil {
		return err
	}
	if _, err := f.Write(file); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
