package data

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/prism-eval/prism/ui/styles"
	"github.com/prism-eval/prism/ui/tab"
	"github.com/prism-eval/prism/ui/widgets"
)

// Update handles the Data tab's keys and navigation and the workspace's
// dataset list; the datasets read change the study and are the App's.
func (v *Tab) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tab.MoveMsg:
		v.Move(msg.Delta)
	case tab.FocusMsg:
		v.Focus(msg.Right)
	case tab.ClickMsg:
		v.Click(msg.X, msg.Y)
	case tea.PasteMsg:
		if v.loadIn != nil {
			in, cmd := v.loadIn.Update(msg)
			*v.loadIn = in
			return cmd
		}
	case tea.KeyPressMsg:
		if v.loadIn != nil {
			return v.loadKey(msg)
		}
		return v.key(msg)
	}
	return nil
}

// key handles the Data tab's own keys.
func (v *Tab) key(msg tea.KeyPressMsg) tea.Cmd {
	k := v.keys
	switch {
	case key.Matches(msg, k.LoadCalibrator):
		return v.loadCalibrator()
	case key.Matches(msg, k.Inspect):
		c, cand := v.Context(), v.Candidate()
		if cand == nil {
			return nil
		}
		return tab.Send(tab.InspectMsg{Context: c.ID, Candidate: cand.ID, Back: tab.Data})
	case key.Matches(msg, k.Import):
		if v.svc.Store() == nil {
			v.status, v.statusErr = tab.ErrNoWorkspace.Error(), true
			return nil
		}
		_, h, _ := v.svc.Window()
		return tab.Send(tab.OpenDialogMsg{Dialog: newImporter(v.svc, v.dialogKeys, v.svc.ImportDir(), h)})
	case key.Matches(msg, k.PickDataset):
		if v.svc.Store() == nil {
			return nil
		}
		return ListDatasetsCmd(v.svc.Context(), v.svc.Store())
	}
	return nil
}

// loadPrompt labels the calibrator path's input.
const loadPrompt = "calibrator: "

// loadCalibrator asks for a calibrator file to load (L), holding the last
// one saved or loaded.
func (v *Tab) loadCalibrator() tea.Cmd {
	if v.svc.Store() == nil {
		v.status, v.statusErr = tab.ErrNoWorkspace.Error(), true
		return nil
	}
	in := widgets.FieldInput()
	in.SetValue(v.svc.CalibratorPath())
	in.CursorEnd()
	in.SetWidth(max(v.width-v.leftWidth()-len(loadPrompt)-widgets.PaneChromeW-1, 10))
	v.loadIn = &in
	return in.Focus()
}

// loadKey handles a key while the calibrator's path is asked for.
func (v *Tab) loadKey(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "ctrl+c":
		v.loadIn = nil
		return tab.Send(tab.QuitMsg{})
	case "esc":
		v.loadIn = nil
		return nil
	case "enter":
		path := strings.TrimSpace(v.loadIn.Value())
		v.loadIn = nil
		if path == "" {
			return nil
		}
		return v.svc.LoadCalibrator(path)
	}
	in, cmd := v.loadIn.Update(msg)
	*v.loadIn = in
	return cmd
}

// loadLines are the calibrator path input, or nothing.
func (v *Tab) loadLines(st *styles.Styles, w int) []string {
	if v.loadIn == nil {
		return nil
	}
	return append([]string{widgets.Fit(st.Title.Render(loadPrompt)+v.loadIn.View(), w)},
		widgets.WrapStyled(st.Muted, "enter loads the calibrator file and applies it to this dataset · esc cancels", w)...)
}

func (v *Tab) View() string {
	st := v.svc.Styles()
	lw := v.leftWidth()
	rw := v.width - lw
	status := st.Muted.Render("i import · d datasets")
	switch {
	case v.status != "" && v.statusErr:
		status = st.Bad.Render(v.status)
	case v.status != "":
		status = st.Good.Render(v.status)
	case len(v.ds.Contexts) == 0:
		status = st.Warn.Render("no dataset · i imports")
	}
	left := widgets.Pane(st, !v.focusRight, lw, v.height,
		fmt.Sprintf("Contexts · %d", len(v.ds.Contexts)), v.contexts.View(st, !v.focusRight)+"\n"+widgets.Fit(status, lw-widgets.PaneChromeW))
	title := "Candidates"
	if c := v.Context(); c != nil {
		title = fmt.Sprintf("Candidates of %s · %d", c.ID, len(c.Candidates))
	}
	right := widgets.Pane(st, v.focusRight, rw, v.height, title, v.rightBody(st, rw-widgets.PaneChromeW))
	return lipgloss.JoinHorizontal(lipgloss.Top, left, right)
}

// rightBody is the candidate list, then the calibrator's lines, the
// candidate's text and its context's source, innerW wide.
func (v *Tab) rightBody(st *styles.Styles, innerW int) string {
	innerH := v.height - widgets.PaneChromeH - 1
	var body strings.Builder
	head := "id     human  text"
	if v.cal != nil {
		head = "id     human " + v.cal.Header + " text"
	}
	body.WriteString(st.Muted.Render(widgets.Fit(head, innerW)) + "\n")
	body.WriteString(v.candidates.View(st, v.focusRight))
	rest := innerH - 1 - v.candListHeight()
	lines := v.loadLines(st, innerW)
	if cl := v.svc.CalibratorLines(st, innerW); len(cl) > 0 {
		lines = append(append(lines, ""), cl...)
	}
	if cand := v.Candidate(); cand != nil {
		lines = append(lines, "", st.Label.Render("Candidate "+cand.ID)+st.Muted.Render(criteria(cand)))
		lines = append(lines, widgets.Wrap(cand.Text, innerW)...)
	}
	if c := v.Context(); c != nil {
		lines = append(lines, "", st.Label.Render("Source"))
		lines = append(lines, widgets.Wrap(c.Source, innerW)...)
	}
	if rest > 0 {
		body.WriteString("\n" + widgets.Block(lines, innerW, rest))
	}
	return body.String()
}
