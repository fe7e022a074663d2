//go:build !race

package calib

const budgetRace = false
