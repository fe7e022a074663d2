// Package profiles is the Profiles tab (docs/protocol.md §7, paper Fig.
// 4a and 9): per attribute, the directional a_k and the shared e_k of the
// Fit tab's last PRISM fit as a forest plot: the mean over outer folds as
// ●, the fold range as ─, zero as │. The fit arrives with tab.FitDoneMsg
// and the Fit tab's settings with tab.FitSettingsMsg; f, m and t ask the
// Fit tab to refit (tab.RefitMsg). The forest plot is hand-made
// (widgets.GainBar): Bubbles has no chart widget.
package profiles
