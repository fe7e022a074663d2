// Package clitest holds the helpers the command groups' tests share:
// running a command line through the dispatcher (RunPrism, MustRun,
// RunCmd), each package's TestMain (Main), in-process OpenAI-compatible
// servers, and fixtures built once per package run.
package clitest
