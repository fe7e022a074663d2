//go:build race

package budget

// budgetRace: the real-data budget curves (one goroutine of numerics and
// 120,000 simulator calls) take a minute under the race detector and
// exercise no concurrency, so they run without it.
const budgetRace = true
