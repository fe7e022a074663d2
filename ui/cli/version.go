package cli

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

func init() {
	clikit.Register("version", "print prism's version", runVersion)
}

func runVersion(_ context.Context, args []string, stdout, _ io.Writer) error {
	fs := clikit.NewFlags("prism version", "prism version\n\nPrints prism's version, the one recorded in the calibrator files it writes,\nand the commit it was built from (\"commit unknown\" under go run and go test).\nprism --version and prism -v are the same.")
	pos, help, err := fs.ParseArgs(args, stdout)
	if err != nil || help {
		return err
	}
	if err := clikit.NoArgs(fs.UsageDoc, pos); err != nil {
		return err
	}
	_, err = fmt.Fprintln(stdout, versionLine(buildCommit()))
	return err
}

// versionLine is "prism 0.15.0 (commit 3e9b98c, 2026-12-05)": the version
// and what it was built from, which a bug report needs.
func versionLine(commit string) string {
	return fmt.Sprintf("prism %s (%s)", model.Version, commit)
}

// buildCommit is "commit REV[+dirty], DATE" from the VCS stamp go build
// records, or "commit unknown" when there is none (go run, go test, a
// build outside a checkout).
func buildCommit() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "commit unknown"
	}
	return commitOf(info.Settings)
}

// commitOf reads the vcs.* build settings.
func commitOf(settings []debug.BuildSetting) string {
	var rev, date, dirty string
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			date, _, _ = strings.Cut(s.Value, "T")
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev == "" {
		return "commit unknown"
	}
	out := "commit " + rev[:min(len(rev), 7)] + dirty
	if date != "" {
		out += ", " + date
	}
	return out
}
