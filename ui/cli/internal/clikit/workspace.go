package clikit

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/prism-eval/prism/model/store"
)

// OpenWorkspace opens the workspace at path for writing. Commands that
// do not import (create false) refuse to create a new, empty file by
// mistake. The API key in the environment is registered with the store,
// so no path (a live run, a batch import, a cache copy) can write it.
func OpenWorkspace(ctx context.Context, path string, create bool) (*store.Store, error) {
	if !create {
		if err := WorkspaceExists(path); err != nil {
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

// OpenWorkspaceRO opens the workspace at path for a command that only
// reads: nothing is written to the file, so a workspace on a read-only
// filesystem (or another user's) can still be listed, exported and fitted.
func OpenWorkspaceRO(ctx context.Context, path string) (*store.Store, error) {
	if err := WorkspaceExists(path); err != nil {
		return nil, err
	}
	return store.OpenReadOnly(ctx, path)
}

func WorkspaceExists(path string) error {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		abs, _ := filepath.Abs(path)
		return fmt.Errorf("no workspace at %s (create one with prism data import, or pass --workspace FILE)", abs)
	}
	return nil
}

func hasDataset(infos []store.DatasetInfo, name string) bool {
	for _, in := range infos {
		if in.Name == name {
			return true
		}
	}
	return false
}

// WorkspaceGiven reports whether a workspace-mode flag was set.
func WorkspaceGiven(fs *flag.FlagSet) bool {
	set := false
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "workspace", "judge", "dataset", "bank":
			set = true
		}
	})
	return set
}

// PickDataset returns name, or the workspace's only dataset; several
// datasets and no --dataset is a usage error with the command's usage.
func PickDataset(ctx context.Context, st *store.Store, name, usage string) (string, error) {
	infos, err := st.Datasets(ctx)
	if err != nil {
		return "", err
	}
	if name != "" {
		if !hasDataset(infos, name) {
			return "", fmt.Errorf("%s: dataset %q: %w", st.Path(), name, store.ErrNotFound)
		}
		return name, nil
	}
	names := make([]string, len(infos))
	for i, in := range infos {
		names[i] = in.Name
	}
	switch len(names) {
	case 1:
		return names[0], nil
	case 0:
		return "", fmt.Errorf("%s holds no dataset; import one with prism data import", st.Path())
	}
	return "", UsageErr(usage, "%s holds %d datasets (%s); choose one with --dataset", st.Path(), len(names), strings.Join(names, ", "))
}
