// Package tab is what the App and its tabs share, so that each tab can
// live in its own package (ui/tabs/<name>) and import no other tab:
//
//   - Tab, the interface the App dispatches to, and ID, the tabs in order;
//   - the navigation messages the App maps its common keys, the wheel and
//     the mouse onto (MoveMsg, FocusMsg, ClickMsg);
//   - the messages tabs talk with (OpenMsg, AnswersStoredMsg, FitDoneMsg,
//     FitSettingsMsg, RefitMsg, CandidateMsg, InspectMsg, ...): a tab
//     returns one as a command and the App hands it to every tab, so no
//     tab calls another;
//   - the services a tab gets instead of the *App (Session, Clock, Jobs,
//     Styles, Services), each small; a tab declares the narrower
//     interface it needs when it needs less.
//
// It holds no state and draws nothing: the widgets are in ui/widgets.
package tab
