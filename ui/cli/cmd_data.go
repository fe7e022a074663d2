package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/datasets"
	"github.com/prism-eval/prism/model/store"
)

func init() {
	register("data", "import, list and remove datasets in the workspace (import|ls|rm)", runData)
}

const dataUsage = `
  prism data import FORMAT FILE [--name NAME] [--replace] [--workspace FILE]
  prism data import parquet|jsonl|json|csv FILE --context COL --candidate COL --text COL [--source COL] [--human COL | --criteria COL,COL] [--task TASK]
  prism data import demo [--name NAME] [--replace] [--workspace FILE]
  prism data ls [--workspace FILE]
  prism data rm NAME [--workspace FILE]

FORMAT is one of: %s.
With --context, --candidate and --text (and always for parquet) the file is
read by its columns, as Hugging Face Hub datasets are downloaded: one
record per candidate, COL a column or a dotted path (docs/datasets.md).
The workspace defaults to $PRISM_WORKSPACE, else prism.db in the current directory.`

func runData(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	usage := fmt.Sprintf(dataUsage, strings.Join(append(datasets.Formats(), datasets.FormatDemo), ", "))
	if len(args) == 0 {
		return usageErr(usage, "a subcommand is required")
	}
	switch args[0] {
	case "import":
		return runDataImport(ctx, args[1:], stdout, stderr, usage)
	case "ls", "list":
		return runDataList(ctx, args[1:], stdout, stderr, usage)
	case "rm", "remove":
		return runDataRemove(ctx, args[1:], stdout, stderr, usage)
	case "-h", "--help", "help":
		fmt.Fprintln(stdout, usageText(usage))
		return nil
	}
	return usageErr(usage, "unknown subcommand %q", args[0])
}

func runDataImport(ctx context.Context, args []string, stdout, stderr io.Writer, usage string) error {
	fs := newWorkspaceFlags("prism data import", stderr, usage)
	name := fs.String("name", "", "dataset `NAME` in the workspace (default: the loader's name, e.g. summeval)")
	replace := fs.Bool("replace", false, "replace a stored dataset of the same name, with its requests and responses")
	cols := addColumnFlags(fs)
	pos, help, err := fs.parse(args, stdout)
	if err != nil || help {
		return err
	}
	var d *model.Dataset
	switch {
	case len(pos) == 1 && pos[0] == datasets.FormatDemo:
		d = datasets.Demo()
	case len(pos) == 2 && (cols.given() || pos[0] == datasets.LogParquet):
		if d, err = loadMappedDataset(pos[0], pos[1], cols); err != nil {
			return err
		}
	case len(pos) == 2:
		if d, err = datasets.Load(pos[0], pos[1]); err != nil {
			return err // loaders name the file, line and field
		}
	default:
		return usageErr(usage, "want FORMAT FILE")
	}
	switch {
	case *name != "":
		d.Name = *name
	case benchmarkNames[pos[0]] != "":
		// A named benchmark is known by its name, not by its file's
		// (SummEval ships as data.json).
		d.Name = benchmarkNames[pos[0]]
	}
	s, err := openWorkspace(ctx, *fs.workspace, true)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := s.PutDataset(ctx, d, *replace); err != nil {
		if errors.Is(err, store.ErrExists) {
			return fmt.Errorf("%s: dataset %q is already in the workspace; pass --replace to overwrite it (and its responses) or --name to keep both", s.Path(), d.Name)
		}
		return fmt.Errorf("%s: %w", s.Path(), err)
	}
	fmt.Fprintf(stdout, "imported %s: %d contexts, %d candidates (format %s, task %s, metric %s) into %s\n",
		d.Name, len(d.Contexts), d.NumCandidates(), d.Format, d.Task, d.Metric, s.Path())
	return s.Close()
}

func runDataList(ctx context.Context, args []string, stdout, stderr io.Writer, usage string) error {
	fs := newWorkspaceFlags("prism data ls", stderr, usage)
	pos, help, err := fs.parse(args, stdout)
	if err != nil || help {
		return err
	}
	if len(pos) > 0 {
		return usageErr(usage, "prism data ls takes no arguments")
	}
	s, err := openWorkspaceRO(ctx, *fs.workspace)
	if err != nil {
		return err
	}
	defer s.Close()
	infos, err := s.Datasets(ctx)
	if err != nil {
		return err
	}
	if len(infos) == 0 {
		fmt.Fprintf(stdout, "no datasets in %s (prism data import FORMAT FILE)\n", s.Path())
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tFORMAT\tTASK\tMETRIC\tCONTEXTS\tCANDIDATES\tCREATED")
	for _, in := range infos {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%s\n", in.Name, in.Format, in.Task, in.Metric,
			in.Contexts, in.Candidates, in.Created.Local().Format("2006-01-02 15:04"))
	}
	return tw.Flush()
}

func runDataRemove(ctx context.Context, args []string, stdout, stderr io.Writer, usage string) error {
	fs := newWorkspaceFlags("prism data rm", stderr, usage)
	pos, help, err := fs.parse(args, stdout)
	if err != nil || help {
		return err
	}
	if len(pos) != 1 {
		return usageErr(usage, "prism data rm takes one NAME")
	}
	s, err := openWorkspace(ctx, *fs.workspace, false)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := s.DeleteDataset(ctx, pos[0]); err != nil {
		return fmt.Errorf("%s: %w", s.Path(), err)
	}
	fmt.Fprintf(stdout, "removed %s from %s\n", pos[0], s.Path())
	return s.Close()
}

// workspaceFlags is a flag set with the --workspace flag every workspace
// command shares (workspace is nil for a command without one), its usage
// text, and the flags its -h leaves out (deprecated spellings, flags the
// command refuses).
type workspaceFlags struct {
	*flag.FlagSet
	workspace *string
	usage     string
	hidden    map[string]bool
}

// benchmarkNames are the default dataset names of the formats that are one
// known benchmark; generic formats default to the file's name.
var benchmarkNames = map[string]string{
	datasets.FormatSummEval:      "summeval",
	datasets.FormatSummEvalJSONL: "summeval",
	datasets.FormatTopicalChat:   "topicalchat",
	datasets.FormatJudgeBench:    "judgebench",
	datasets.FormatHANNA:         "hanna",
	datasets.FormatMTBench:       "mtbench",
	datasets.FormatHelpSteer2:    "helpsteer2",
}

func newWorkspaceFlags(name string, stderr io.Writer, usage string) workspaceFlags {
	f := newFlags(name, usage)
	f.workspace = f.String("workspace", "", "workspace `FILE` (default $"+store.EnvWorkspace+" if set, else prism.db)")
	return f
}

// newFlags is a flag set without --workspace, for commands that use none.
func newFlags(name, usage string) workspaceFlags {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	// Parse errors come back as errors that carry the usage text; the
	// flag package's own printing would show it twice.
	fs.SetOutput(io.Discard)
	return workspaceFlags{FlagSet: fs, usage: usage, hidden: map[string]bool{}}
}

// hide leaves a flag out of -h: it still parses.
func (f workspaceFlags) hide(names ...string) {
	for _, n := range names {
		f.hidden[n] = true
	}
}

// parse parses args with parseFlagsAnywhere. On -h it prints the usage and
// the flags to stdout and reports help; other errors are usage errors. An
// empty --workspace becomes the default path.
func (f workspaceFlags) parse(args []string, stdout io.Writer) (pos []string, help bool, err error) {
	pos, err = parseFlagsAnywhere(f.FlagSet, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(stdout, usageText(f.usage))
		fmt.Fprintln(stdout, "\nflags:")
		printFlags(stdout, f.FlagSet, f.hidden)
		return nil, true, nil
	}
	if err != nil {
		return nil, false, usageErr(f.usage, "%v", err)
	}
	if f.workspace != nil && *f.workspace == "" {
		*f.workspace = store.DefaultPath()
	}
	return pos, false, nil
}

// printFlags prints the flags of fs as flag.PrintDefaults does, without
// the hidden ones.
func printFlags(w io.Writer, fs *flag.FlagSet, hidden map[string]bool) {
	shown := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	fs.VisitAll(func(fl *flag.Flag) {
		if hidden[fl.Name] {
			return
		}
		shown.Var(fl.Value, fl.Name, fl.Usage)
		shown.Lookup(fl.Name).DefValue = fl.DefValue
	})
	shown.SetOutput(w)
	shown.PrintDefaults()
}

// usageText prefixes a usage text that may start on its own line.
func usageText(u string) string {
	if strings.HasPrefix(u, "\n") {
		return "usage:" + u
	}
	return "usage: " + u
}

// parseFlagsAnywhere parses flags placed before, between or after the
// positional arguments (prism data import csv f.csv --name x), which the
// flag package alone stops at, and returns the positional arguments.
// A lone "--" ends flag parsing.
func parseFlagsAnywhere(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, checkFloatFlags(fs)
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), checkFloatFlags(fs)
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
}

// openWorkspace opens the workspace at path for writing. Commands that
// do not import (create false) refuse to create a new, empty file by
// mistake. The API key in the environment is registered with the store,
// so no path (a live run, a batch import, a cache copy) can write it.
func openWorkspace(ctx context.Context, path string, create bool) (*store.Store, error) {
	if !create {
		if err := workspaceExists(path); err != nil {
			return nil, err
		}
	}
	st, err := store.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	if k := os.Getenv("OPENAI_API_KEY"); k != "" {
		st.AddSecret(k)
	}
	return st, nil
}

// openWorkspaceRO opens the workspace at path for a command that only
// reads: nothing is written to the file, so a workspace on a read-only
// filesystem (or another user's) can still be listed, exported and fitted.
func openWorkspaceRO(ctx context.Context, path string) (*store.Store, error) {
	if err := workspaceExists(path); err != nil {
		return nil, err
	}
	return store.OpenReadOnly(ctx, path)
}

func workspaceExists(path string) error {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		abs, _ := filepath.Abs(path)
		return fmt.Errorf("no workspace at %s (create one with prism data import, or pass --workspace FILE)", abs)
	}
	return nil
}
