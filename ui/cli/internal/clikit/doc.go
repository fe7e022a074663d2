// Package clikit is what prism's command groups share: the command
// registry and dispatch (Register, RunMain, usage errors, prism help and
// the "did you mean" of a mistyped command or flag: Nearest), shell
// completion's candidates (Complete, RegisterArgs), the flag set
// with the workspace flag and help printing (WorkspaceFlags), argument
// and flag checks (NoArgs, CheckMetric, FiniteFloatFlag), opening the
// workspace, resolving banks and datasets, the labels' --target, output
// (JSON, trimmed text, study lines), the spend limits (SpendFlags) and
// sending a plan with its estimate and progress (SendPlan).
package clikit
