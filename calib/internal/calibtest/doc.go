// Package calibtest holds what the tests of calib and its sub-packages
// share: the synthetic study (Synth), tolerant comparisons (Near,
// AssertClose), a score-row shorthand (SR) and whether the race detector
// is on (RaceEnabled). Only tests import it.
package calibtest
