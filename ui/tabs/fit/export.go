package fit

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/calib/figures"
	"github.com/prism-eval/prism/ui/analysis"
	"github.com/prism-eval/prism/ui/styles"
	"github.com/prism-eval/prism/ui/tab"
	"github.com/prism-eval/prism/ui/widgets"
)

// exportedMsg reports an export of the report (analysis.Export).
type exportedMsg struct {
	paths  []string
	err    error
	sigErr error // why the signal figure was left out, shown with the result
}

// export asks where to export the last fit, if there is one: a one-line
// input holding the last directory (enter exports there, esc does not).
func (v *Tab) export() tea.Cmd {
	if v.fit.Report == nil {
		v.status, v.statusErr = "nothing to export yet: f fits first", true
		return nil
	}
	in := widgets.FieldInput()
	in.SetValue(v.exportDir)
	in.CursorEnd()
	in.SetWidth(max(v.width-len(exportPrompt)-widgets.PaneChromeW-1, 10))
	v.exportIn = &in
	v.status, v.statusErr = "", false
	return in.Focus()
}

// exportPrompt labels the export directory's input.
const exportPrompt = "export to: "

// exportKey handles a key while the export directory is asked for.
func (v *Tab) exportKey(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "ctrl+c":
		v.exportIn = nil
		return tab.Send(tab.QuitMsg{})
	case "esc":
		v.exportIn = nil
		v.status, v.statusErr = "export canceled", false
		return nil
	case "enter":
		dir := strings.TrimSpace(v.exportIn.Value())
		v.exportIn = nil
		if dir == "" {
			dir = v.defaultDir
		}
		v.exportDir = dir
		v.status, v.statusErr = "exporting to "+dir+"…", false
		ctx, st, key, rep := v.svc.Context(), v.svc.Store(), v.fit.Key, v.fit.Report
		return func() tea.Msg {
			paths, sigErr, err := analysis.Export(ctx, st, key, rep, dir)
			return exportedMsg{paths: paths, err: err, sigErr: sigErr}
		}
	}
	in, cmd := v.exportIn.Update(msg)
	*v.exportIn = in
	return cmd
}

// exportLines is the export directory's input and how to answer it, or
// nothing when it is not asked for.
func (v *Tab) exportLines(st *styles.Styles, w int) []string {
	if v.exportIn == nil {
		return nil
	}
	return []string{
		widgets.Fit(st.Title.Render(exportPrompt)+v.exportIn.View(), w),
		st.Muted.Render(widgets.Fit("enter exports the report and figures there · esc cancels", w)),
	}
}

func (v *Tab) onExported(msg exportedMsg) {
	if msg.err != nil {
		v.status, v.statusErr = "export: "+msg.err.Error(), true
		return
	}
	what := "report JSON, CSV, figures PNG, SVG"
	if slices.ContainsFunc(msg.paths, func(p string) bool { return filepath.Base(p) == figures.Table2File }) {
		what = "report JSON, CSV, Table 2 CSV, figures PNG, SVG"
	}
	v.status, v.statusErr = fmt.Sprintf("exported %d files (%s) to %s", len(msg.paths), what, v.exportDir), false
	if msg.sigErr != nil {
		v.status += "; no signal figure: " + msg.sigErr.Error()
	}
}
