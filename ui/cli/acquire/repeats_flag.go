package acquire

import (
	"flag"
	"strconv"
)

// repeatsFlag is --repeats N, the runs per condition, for the acquisitions
// whose default is not prism run's (screen, diagnose). --runs N was their
// spelling before: it still parses for one release, hidden, with a note.
type repeatsFlag struct {
	s    *studyFlags
	runs *int // --runs: the deprecated spelling
}

// repeatsDefault gives --repeats the default def and the help text usage,
// and registers the deprecated --runs beside it.
func (s *studyFlags) repeatsDefault(def int, usage string) *repeatsFlag {
	r := &repeatsFlag{s: s, runs: s.fs.Int("runs", def, "deprecated spelling of --repeats")}
	s.fs.Hide("runs")
	r.setDefault(def, usage)
	return r
}

// setDefault changes the default (and help text) of --repeats and --runs:
// a diagnosis that needs fewer runs than the others (resolution).
func (r *repeatsFlag) setDefault(def int, usage string) {
	for _, name := range []string{"repeats", "runs"} {
		f := r.s.fs.Lookup(name)
		f.DefValue = strconv.Itoa(def)
		_ = f.Value.Set(f.DefValue) // a default, not a flag given: Visit skips it
	}
	r.s.fs.Lookup("repeats").Usage = usage
}

// value is the runs per condition after parsing; --runs prints the
// deprecation note on stderr.
func (r *repeatsFlag) value() (int, error) {
	fs := r.s.fs
	if old, err := fs.Deprecated(r.s.stderr, "runs", "repeats"); old || err != nil {
		return *r.runs, err
	}
	return fs.Lookup("repeats").Value.(flag.Getter).Get().(int), nil
}
