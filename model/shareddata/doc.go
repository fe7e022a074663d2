// Package shareddata locates the real datasets that tests read from a
// directory beside the repository (../shared/data, or $PRISM_SHARED_DATA).
// They are never copied into the repo. A test that needs one skips when it
// is absent, except under CI (CI set, or PRISM_REQUIRE_SHARED_DATA=1),
// where a missing file fails the test: CI must never skip what it can run.
package shareddata
