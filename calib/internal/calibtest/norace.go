//go:build !race

package calibtest

const RaceEnabled = false
