// Package run is the Run tab: the judge form (its judge is the study
// key's, which the App asks for with Judge) and the estimate of a run
// (engine.NewRunPlan); once started, the progress, the latest responses
// and, per attribute, the Δ distributions and the RMS ratio against the
// neutral clauses (a rubric study: the ratings per criterion). The tab
// owns its run, from the plan to the summary. It tells the others by
// messages: tab.OpenMsg (a start shows it), tab.InspectMsg (enter on a
// response), tab.AnswersStoredMsg and tab.RunEndedMsg (its run ended),
// tab.QuitMsg. The App starts a screen of the bank with its StartCmd,
// Drain and WaitDone.
package run
