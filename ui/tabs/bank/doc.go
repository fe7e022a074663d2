// Package bank is the Bank tab: every probe condition of the bank on the
// left and, on the right, the exact request the judge receives for the
// Data tab's candidate, under the signal panel (the ratios of the bank's
// units from the stored answers, docs/protocol.md §8), the
// presentation-order section and the probe diagnostics. It owns the
// bank's edits (every edit is made on a copy and kept only when the copy
// validates), its saves, and the screen of the bank (`prism screen` on a
// seeded sample, run through the App's Runner).
//
// It tells the App by messages: tab.BankChangedMsg (a new bank version:
// the study uses it and the Run tab replans), tab.AnswersStoredMsg (a
// screen stored answers), tab.ReplanMsg, tab.OpenDialogMsg (its
// confirmations) and tab.QuitMsg.
package bank
