// Package widgets holds the TUI's drawing pieces that no tab owns: the
// selection list, the bordered pane, the scroll offset of a pane, text
// fitting and wrapping, number formatting, and the hand-made charts (the
// ratio bar, the dot row, the gain bar, the Δ sparkline, the progress
// bar). They know nothing of the App, a tab or a study: a tab passes them
// its styles, its numbers and its width, and gets back lines of cells.
//
// Bubbles has no chart or sparkline; where it has a widget (key, help,
// textinput, textarea, filepicker) the tabs use it directly. The list and
// Block are kept over Bubbles' list and viewport because those bring
// chrome and pad lines differently (see Block and List).
package widgets
