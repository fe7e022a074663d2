// Package inspect is the Inspect tab: one candidate's texts, its scores
// under every probe with the raw judge replies, each attribute's share
// of the PRISM correction (β of the Fit tab's last fit, which arrives
// with tab.FitDoneMsg, when it read the same answers) and the
// candidate's rank in its context before and after it, then its terms
// under the loaded calibrator (the App's, through Services). A
// tab.InspectMsg opens it (enter on the Data or the Run tab); esc
// returns; ] and [ step through the context's candidates; f asks the Fit
// tab to refit (tab.RefitMsg), which Inspect then follows.
package inspect
