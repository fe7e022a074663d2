package fit

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/analysis"
	"github.com/prism-eval/prism/ui/styles"
	"github.com/prism-eval/prism/ui/tab"
	"github.com/prism-eval/prism/ui/widgets"
)

// S saves the calibrator of the fit on screen (docs/calibrator.md:
// calib.NewCalibrator on the fit's design and report) as the file `prism
// fit --save` writes; building and writing run in a command. The App
// keeps the path (tab.CalibratorSavedMsg), which L on the Data tab
// offers.

// savedMsg reports a save of the calibrator.
type savedMsg struct {
	path   string
	method string
	gamma  float64
	exists bool   // path exists and replace was not asked: ask first
	src    source // what was saved, for the replacement
	err    error
}

// source is what a calibrator is built from: a finished fit.
type source struct {
	key    study.Key
	res    Result
	method calib.Method
}

// safeName makes s usable in a file name: every rune but letters, digits,
// '.', '_' and '-' becomes '-'.
func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			return r
		}
		return '-'
	}, s)
}

// defaultPath is the file S offers for the fit's judge's calibrator of
// method m.
func (v *Tab) defaultPath(m calib.Method) string {
	return filepath.Join(v.svc.CalibratorDir(), fmt.Sprintf("prism-calibrator-%s-%s.json", safeName(v.fit.Key.Judge), m))
}

// calibratorPrompt labels the save path's input.
func calibratorPrompt(m calib.Method) string { return "save " + m.String() + " calibrator to: " }

// saveCalibrator asks where to save a calibrator of the fit on screen:
// PRISM's first (the Fit tab selects no method row); tab in the input
// goes to the next method the fit has. Vanilla corrects nothing and has
// no calibrator.
func (v *Tab) saveCalibrator() tea.Cmd {
	if v.fit.Report == nil || v.res.d == nil {
		v.status, v.statusErr = "no calibrator to save yet: f fits first", true
		return nil
	}
	in := widgets.FieldInput()
	v.saveMethod = calib.PRISM
	in.SetValue(v.defaultPath(v.saveMethod))
	in.CursorEnd()
	in.SetWidth(max(v.width-len([]rune(calibratorPrompt(calib.AlphaPRISM)))-widgets.PaneChromeW-1, 10))
	v.saveIn = &in
	v.status, v.statusErr = "", false
	return in.Focus()
}

// nextSaveMethod goes to the next method of the fit after the one to
// save; the path follows when it is still the default.
func (v *Tab) nextSaveMethod() {
	var methods []calib.Method
	for _, fm := range analysis.Methods[1:] {
		if v.fit.Report.Methods.Get(fm.M) != nil {
			methods = append(methods, fm.M)
		}
	}
	if len(methods) == 0 {
		return
	}
	next := methods[(slices.Index(methods, v.saveMethod)+1)%len(methods)]
	if v.saveIn.Value() == v.defaultPath(v.saveMethod) {
		v.saveIn.SetValue(v.defaultPath(next))
		v.saveIn.CursorEnd()
	}
	v.saveMethod = next
}

// saveKey handles a key while the calibrator's path is asked for.
func (v *Tab) saveKey(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "ctrl+c":
		v.saveIn = nil
		return tab.Send(tab.QuitMsg{})
	case "esc":
		v.saveIn = nil
		v.status, v.statusErr = "calibrator not saved", false
		return nil
	case "tab":
		v.nextSaveMethod()
		return nil
	case "enter":
		path := strings.TrimSpace(v.saveIn.Value())
		v.saveIn = nil
		if path == "" {
			path = v.defaultPath(v.saveMethod)
		}
		res := v.res
		res.rep = v.fit.Report
		src := source{key: v.fit.Key, res: res, method: v.saveMethod}
		v.status, v.statusErr = "saving calibrator "+path+"…", false
		return saveCalibratorCmd(v.svc.Context(), v.svc.Store(), src, path, false)
	}
	in, cmd := v.saveIn.Update(msg)
	*v.saveIn = in
	return cmd
}

// saveLines are the save path's input and how to answer it, or nothing.
func (v *Tab) saveLines(st *styles.Styles, w int) []string {
	if v.saveIn == nil {
		return nil
	}
	return append([]string{widgets.Fit(st.Title.Render(calibratorPrompt(v.saveMethod))+v.saveIn.View(), w)},
		widgets.WrapStyled(st.Muted, "enter saves the calibrator of this fit (prism fit --save) · tab: another method (Vanilla corrects nothing: it has none) · esc cancels", w)...)
}

// onSaved reports a save; a file that exists is replaced only after
// asking.
func (v *Tab) onSaved(msg savedMsg) tea.Cmd {
	switch {
	case msg.exists:
		v.status, v.statusErr = "", false
		return tab.Send(tab.OpenDialogMsg{Dialog: v.replaceDialog(msg.path, msg.src)})
	case msg.err != nil:
		v.status, v.statusErr = "save calibrator: "+msg.err.Error(), true
		return nil
	}
	v.status, v.statusErr = fmt.Sprintf("saved calibrator %s (%s, γ %g)", msg.path, msg.method, msg.gamma), false
	return tab.Send(tab.CalibratorSavedMsg{Path: msg.path})
}

// replaceDialog asks before a save replaces the file at path: y
// replaces it, n or esc keeps it.
func (v *Tab) replaceDialog(path string, src source) tab.Dialog {
	return &widgets.Confirm{
		Styles: v.svc.Styles(),
		Title:  "Replace the file?",
		Lines: []string{
			path + " exists. Replace it with the " + src.method.String() + " calibrator of this fit?",
			"n keeps the file; S again saves under another name.",
		},
		YesText: "replace", NoText: "keep the file",
		Yes: v.dialogKeys.Yes, No: v.dialogKeys.No,
		OnYes: func() tea.Cmd {
			v.status, v.statusErr = "saving calibrator "+path+"…", false
			return saveCalibratorCmd(v.svc.Context(), v.svc.Store(), src, path, true)
		},
	}
}

// saveCalibratorCmd builds the calibrator of src (calib.NewCalibrator on
// the fit's design and report, the bank and judge from the workspace:
// study.Provenance) and writes it to path through a temporary file that
// is renamed into place; an existing file is replaced only when replace.
func saveCalibratorCmd(ctx context.Context, st *store.Store, src source, path string, replace bool) tea.Cmd {
	return func() tea.Msg {
		out := savedMsg{path: path, method: src.method.String(), src: src}
		if fi, err := os.Stat(path); err == nil && fi.IsDir() {
			out.err = fmt.Errorf("%s is a directory: name a file", path)
			return out
		} else if err == nil && !replace {
			out.exists = true
			return out
		}
		cal, err := buildCalibrator(ctx, st, src)
		if err != nil {
			out.err = err
			return out
		}
		data, err := cal.Marshal()
		if err == nil {
			err = model.WriteFileAtomic(path, func(w io.Writer) error { _, err := w.Write(data); return err })
		}
		out.gamma, out.err = cal.Gamma.Value, err
		return out
	}
}

// buildCalibrator is the calibrator of src, with its provenance.
func buildCalibrator(ctx context.Context, st *store.Store, src source) (*calib.Calibrator, error) {
	if st == nil {
		return nil, tab.ErrNoWorkspace
	}
	r := src.res
	cal, err := calib.NewCalibrator(ctx, r.d, r.rep, r.opts, src.method)
	if err != nil {
		return nil, err
	}
	cal.PrismVersion = model.Version
	cal.Training.Source, cal.Training.Dataset, cal.Training.Study = r.source, src.key.Dataset, r.rep.Study
	j, err := st.Judge(ctx, src.key.Judge)
	if err != nil {
		return nil, err
	}
	bankHash := src.key.BankHash
	if j.Backend == store.ImportBackend {
		bankHash = "" // imported scores have no bank
	}
	cal.Bank, cal.Judge, err = study.Provenance(ctx, st, src.key.Dataset, src.key.Judge, bankHash, r.rows)
	if err != nil {
		return nil, err
	}
	return cal, nil
}
