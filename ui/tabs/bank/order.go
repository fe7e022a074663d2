package bank

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/prism-eval/prism/calib/order"

	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/styles"
	"github.com/prism-eval/prism/ui/widgets"
)

// The Bank tab's presentation-order section (docs/tui.md, "Bank";
// docs/diagnostics.md, "Presentation order"): under the signal panel, the
// order diagnostics of the bank's listwise study on the dataset, as
// `prism diagnose order` computes them, with OrderResamples resamples. It
// appears only when the workspace holds a listwise study of the bank
// (prism run --listwise).

// OrderResamples is the section's bootstrap size (the CLI's default is
// 1,000; the panel is recomputed whenever answers are added).
const OrderResamples = 200

// orderKey is what a section was computed for: a dataset, a bank version
// and the total of the study versions (tab.Versions.Total).
type orderKey struct {
	dataset, bankHash string
	gen               int
}

// orderSection is one computed section.
type orderSection struct {
	study study.OrderStudy
	rep   *order.Report // nil: no listwise study of this bank
	err   error
}

// orderMsg carries a computed section.
type orderMsg struct {
	key orderKey
	sec orderSection
}

// orderState is the Bank tab's section state.
type orderState struct {
	key  orderKey
	sec  *orderSection // nil until computed for key
	busy bool
}

// orderCmd computes the section off the UI goroutine. Its listwise study
// is the first batched judge (by name) with requests under the bank on
// the dataset; with none, the section is hidden.
func orderCmd(ctx context.Context, st *store.Store, d *model.Dataset, key orderKey) tea.Cmd {
	return func() tea.Msg {
		name, err := batchedJudgeOf(ctx, st, d.Name, key.bankHash)
		if err != nil || name == "" {
			return orderMsg{key: key, sec: orderSection{err: err}}
		}
		s, err := study.FindOrderStudy(ctx, st, study.OrderStudy{Dataset: d.Name, Batched: name, BankHash: key.bankHash})
		if err != nil {
			return orderMsg{key: key, sec: orderSection{study: s, err: err}}
		}
		data, err := study.OrderDataOf(ctx, st, d, s)
		if err != nil {
			return orderMsg{key: key, sec: orderSection{study: s, err: err}}
		}
		opts := order.DefaultOptions()
		opts.Bootstrap = OrderResamples
		rep, err := order.Diagnostics(data, opts)
		return orderMsg{key: key, sec: orderSection{study: s, rep: rep, err: err}}
	}
}

// batchedJudgeOf is the first batched judge (by name) with requests
// under bankHash on dataset, or "".
func batchedJudgeOf(ctx context.Context, st *store.Store, dataset, bankHash string) (string, error) {
	js, err := st.Judges(ctx) // sorted by name
	if err != nil {
		return "", err
	}
	for _, j := range js {
		if _, ok := j.OrderSeed(); !ok {
			continue
		}
		hs, err := st.StudyHashes(ctx, dataset, j.Name)
		if err != nil {
			return "", err
		}
		if slices.Contains(hs, bankHash) {
			return j.Name, nil
		}
	}
	return "", nil
}

// refreshOrder computes the section for the current dataset, bank and
// answers unless it is computed or being computed.
func (v *Tab) refreshOrder() tea.Cmd {
	if v.svc.Store() == nil || v.svc.Dataset() == nil || v.svc.Dataset().NumCandidates() == 0 || v.order.busy {
		return nil
	}
	k := orderKey{v.svc.Dataset().Name, v.bank.Hash(), v.svc.Versions().Total(nil)}
	if v.order.sec != nil && v.order.key == k {
		return nil
	}
	v.order.key, v.order.sec, v.order.busy = k, nil, true
	return orderCmd(v.svc.Context(), v.svc.Store(), v.svc.Dataset(), k)
}

// onOrder keeps a computed section, and asks again when the key moved on
// meanwhile.
func (v *Tab) onOrder(msg orderMsg) tea.Cmd {
	v.order.busy = false
	if msg.key != v.order.key {
		return v.refreshOrder()
	}
	sec := msg.sec
	v.order.sec = &sec
	return v.refreshOrder()
}

// orderLines draws the section in w cells; nil when there is nothing to
// show (no listwise study of this bank).
func (o orderState) orderLines(st *styles.Styles, w int) []string {
	s := o.sec
	if s == nil || (s.rep == nil && s.err == nil) {
		return nil
	}
	if s.err != nil {
		return append([]string{st.Title.Render(widgets.Fit("Presentation order", w))}, widgets.WrapStyled(st.Bad, s.err.Error(), w)...)
	}
	r := s.rep
	pw := s.study.Pointwise
	if pw == "" {
		pw = "no pointwise judge"
	}
	title := fmt.Sprintf("Presentation order · %s, %d orders × %d runs · vs %s", s.study.Batched, r.Orders, r.Repeats, pw)
	lines := []string{st.Title.Render(widgets.Fit(title, w))}
	label := func(l string) string { return fmt.Sprintf("%-15s", l) }
	var b strings.Builder
	b.WriteString(label("response corr"))
	for i, p := range r.Curve {
		if i > 0 {
			b.WriteString("  ")
		}
		fmt.Fprintf(&b, "%d: %s", p.Orders, orderCell(p.Stat, i == len(r.Curve)-1))
	}
	lines = append(lines, st.Text.Render(widgets.Fit(b.String(), w)))
	lines = append(lines, st.Text.Render(widgets.Fit(label("  references")+"one order repeated "+orderCell(r.RepeatRef, false)+" · pointwise "+orderCell(r.PointRef, false), w)))
	lines = append(lines, st.Text.Render(widgets.Fit(label("Kendall τ")+"reversed "+orderCell(r.KendallRev, true)+" · repeat "+orderCell(r.KendallRep, false), w)))
	// Spearman: pointwise, one order and all orders (prism diagnose order
	// prints every row).
	b.Reset()
	b.WriteString(label("Spearman"))
	for i, sp := range r.Spearman {
		if i > 1 && i < len(r.Spearman)-1 {
			continue
		}
		if i > 0 {
			b.WriteString(" · ")
		}
		name := "pointwise"
		if sp.Format == "batched" {
			name = fmt.Sprintf("%d order(s)", sp.Orders)
		}
		switch {
		case sp.Spearman == nil:
			b.WriteString(name + " too few")
		case sp.GainVsPoint == nil:
			b.WriteString(name + " " + widgets.Num(*sp.Spearman))
		case i == len(r.Spearman)-1:
			fmt.Fprintf(&b, "%s %s (%s [%s, %s])", name, widgets.Num(*sp.Spearman), gainText(*sp.GainVsPoint), widgets.Num(sp.GainCI[0]), widgets.Num(sp.GainCI[1]))
		default:
			fmt.Fprintf(&b, "%s %s (%s)", name, widgets.Num(*sp.Spearman), gainText(*sp.GainVsPoint))
		}
	}
	lines = append(lines, st.Text.Render(widgets.Fit(b.String(), w)))
	return append(lines, st.Muted.Render(widgets.Fit(fmt.Sprintf("probe-response corr. of averaged orders; Spearman (gain vs pointwise); %d contexts, %d resamples", r.Contexts, r.Bootstrap), w)))
}

// orderCell is an estimate, with its interval when ci, or "too few".
func orderCell(v order.Stat, ci bool) string {
	if v.Value == nil {
		return "too few"
	}
	s := widgets.Num(*v.Value)
	if ci && v.CI != nil {
		s += " [" + widgets.Num(v.CI[0]) + ", " + widgets.Num(v.CI[1]) + "]"
	}
	return s
}

// gainText is a gain with its sign.
func gainText(x float64) string {
	if x >= 0 {
		return "+" + widgets.Num(x)
	}
	return widgets.Num(x)
}
