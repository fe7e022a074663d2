package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	tea "charm.land/bubbletea/v2"
	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/datasets"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

func init() {
	clikit.Register("tui", "open the TUI (the default with no command)", runTUI)
}

const tuiUsage = `prism [tui] [--workspace FILE] [--dataset NAME] [--bank BANK]

Opens the TUI on the workspace, like every other command: --workspace FILE
(created when absent; import a dataset on the Data tab with i), else
$PRISM_WORKSPACE or ./prism.db when that file exists. When there is none,
it opens the embedded demo study (demo dataset, built-in bank, offline
judge) in a temporary workspace that is removed on exit. The header names
the workspace file, or says "demo" and why.`

func runTUI(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := clikit.NewFlags("prism tui", tuiUsage)
	ws := fs.String("workspace", "", "workspace `FILE` to open or create (default $"+store.EnvWorkspace+" or ./prism.db when it exists, else the embedded demo)")
	dsName := fs.String("dataset", "", "dataset `NAME` to open (default: the only one, else a chooser)")
	bankArg := fs.String("bank", "", "probe `BANK`: a built-in name or a TOML file (default: quality, else a built-in with the dataset's task)")
	pos, help, err := fs.ParseArgs(args, stdout)
	if err != nil || help {
		return err
	}
	if err := clikit.NoArgs(tuiUsage, pos); err != nil {
		return err
	}
	path, label := tuiWorkspace(*ws)
	study, cleanup, err := openStudy(ctx, path, *dsName, *bankArg)
	if err != nil {
		return err
	}
	defer cleanup()
	study.Workspace = label
	app := ui.New(study).WithContext(ctx)
	p := tea.NewProgram(app, tea.WithContext(ctx), tea.WithOutput(stdout))
	_, err = p.Run()
	if err != nil && ctx.Err() != nil {
		return nil // interrupted: a clean exit
	}
	return err
}

// tuiWorkspace chooses what the TUI opens: --workspace when given, else
// the default workspace ($PRISM_WORKSPACE, else ./prism.db) when that file
// exists, else the demo (path ""). label is the header's text for the
// demo, saying why it was opened.
func tuiWorkspace(flagPath string) (path, label string) {
	if flagPath != "" {
		return flagPath, ""
	}
	def := store.DefaultPath()
	if clikit.WorkspaceExists(def) == nil {
		return def, ""
	}
	if os.Getenv(store.EnvWorkspace) != "" {
		return "", "demo: no $" + store.EnvWorkspace + " file"
	}
	return "", "demo: no prism.db"
}

// openStudy opens the workspace at path (the demo in a temporary
// workspace when path is empty) and picks the dataset and bank. cleanup
// closes the workspace (and removes a demo one).
func openStudy(ctx context.Context, path, dsName, bankArg string) (ui.Session, func(), error) {
	var s ui.Session
	demo := path == ""
	var tmp string
	if demo {
		dir, err := os.MkdirTemp("", "prism-demo-")
		if err != nil {
			return s, nil, err
		}
		tmp, path = dir, filepath.Join(dir, "demo.db")
	}
	st, err := store.Open(ctx, path)
	if err != nil {
		if tmp != "" {
			os.RemoveAll(tmp)
		}
		return s, nil, err
	}
	cleanup := func() {
		st.Close()
		if tmp != "" {
			os.RemoveAll(tmp)
		}
	}
	fail := func(err error) (ui.Session, func(), error) { cleanup(); return s, nil, err }
	if demo {
		if err := st.PutDataset(ctx, datasets.Demo(), false); err != nil {
			return fail(err)
		}
	}
	infos, err := st.Datasets(ctx)
	if err != nil {
		return fail(err)
	}
	for _, in := range infos {
		s.Datasets = append(s.Datasets, in.Name)
	}
	ds := &model.Dataset{Task: model.TaskGeneric}
	switch {
	case dsName != "":
		if ds, err = st.Dataset(ctx, dsName); err != nil {
			return fail(fmt.Errorf("%s: dataset %q: %w", path, dsName, err))
		}
		s.PickedDataset = true
	case len(s.Datasets) > 0:
		if ds, err = st.Dataset(ctx, s.Datasets[0]); err != nil {
			return fail(err)
		}
		s.PickedDataset = len(s.Datasets) == 1
	}
	b, source, err := tuiBank(bankArg, ds.Task)
	if err != nil {
		return fail(err)
	}
	s.Dataset, s.Bank, s.BankSource = ds, b, source
	if demo {
		if err := acquireDemoJudges(ctx, st, ds, b, source); err != nil {
			return fail(err)
		}
	}
	s.Judge, s.Demo, s.Store = "offline (simulator)", demo, st
	s.Temporary = tmp != "" // cleanup deletes it
	return s, cleanup, nil
}

// tuiBank resolves --bank: a TOML file, a built-in name, or by default
// ui.DefaultBank for the dataset's task.
func tuiBank(arg, task string) (*banks.Bank, string, error) {
	if arg == "" {
		return ui.DefaultBank(task)
	}
	if data, err := banks.ReadFile(arg); err == nil {
		b, err := banks.Parse(data, arg)
		return b, arg, err
	} else if model.IsSizeError(err) {
		return nil, "", err
	}
	b, err := banks.Builtin(arg)
	return b, "builtin:" + arg, err
}
