//go:build race

package calibtest

// RaceEnabled: under the race detector the tests whose whole point is
// scale (the real SummEval scored by the simulator, ranks beyond the
// exactness bound) are skipped or run on fewer or smaller studies; `go
// test ./...` runs them whole, and smaller tests run the same code under
// the detector.
const RaceEnabled = true
