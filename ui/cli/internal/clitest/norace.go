//go:build !race

package clitest

// RaceEnabled: see race.go.
const RaceEnabled = false
