//go:build !race

package budget

const budgetRace = false
