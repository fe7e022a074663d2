//go:build race

package clitest

// RaceEnabled: the race detector slows the pure-Go SQLite driver about
// fifteenfold, so the 60,800-request end-to-end test runs without it (the
// smaller run tests exercise the same code under the detector).
const RaceEnabled = true
