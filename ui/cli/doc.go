// Package cli is prism's command line: the headless interface beside the
// TUI. It owns the entry point (Run) and the command table, which is the
// set of command groups it imports: each group registers its subcommands
// from init (internal/clikit.Register) and Run dispatches to them.
//
//   - acquire: what sends requests to a judge (run, screen, diagnose,
//     batch, judge try).
//   - analysis: what reads stored scores and labels and reports (fit,
//     select, budget, agree, export).
//   - data: what puts things in the workspace and lists them (data,
//     import scores, ls, bank).
//   - score: prism score, applying a calibrator to new candidates.
//
// The TUI itself is the "tui" subcommand, the default, and lives here with
// "version" (prism --version) and "completion" (the shell scripts, which
// call back the hidden "__complete"). The pieces the groups share (flags, argument checks, usage
// errors, output, spend limits, sending a plan) are in internal/clikit;
// the tests' helpers are in internal/clitest.
package cli
