package clikit

import (
	"flag"
	"fmt"
	"math"
	"strconv"
)

// floatFlag is a float64 flag that accepts only finite values within
// [lo, hi]: strconv.ParseFloat takes "NaN" and "Inf", and a NaN threshold
// makes every comparison false, silently disabling what it should bound.
type floatFlag struct {
	v      *float64
	lo, hi float64
}

// FiniteFloatFlag defines a float64 flag whose value must be finite and
// within [lo, hi]; a bad value fails the parse with an error naming the flag.
func FiniteFloatFlag(fs *flag.FlagSet, name string, value, lo, hi float64, usage string) *float64 {
	p := new(float64)
	*p = value
	fs.Var(&floatFlag{v: p, lo: lo, hi: hi}, name, usage)
	return p
}

func (f *floatFlag) String() string {
	if f == nil || f.v == nil {
		return "0"
	}
	return strconv.FormatFloat(*f.v, 'g', -1, 64)
}

func (f *floatFlag) Get() any { return *f.v }

func (f *floatFlag) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("%q is not a number", s)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("%q is not a finite number", s)
	}
	if v < f.lo || v > f.hi {
		return fmt.Errorf("%g is outside [%g, %g]", v, f.lo, f.hi)
	}
	*f.v = v
	return nil
}

// checkFloatFlags rejects NaN and ±Inf in every float64 flag that was set,
// including those other packages register (judge.AddFlags' --temperature
// and --top-p), whose own range checks a NaN passes.
func checkFloatFlags(fs *flag.FlagSet) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		g, ok := f.Value.(flag.Getter)
		if !ok || err != nil {
			return
		}
		if v, ok := g.Get().(float64); ok && (math.IsNaN(v) || math.IsInf(v, 0)) {
			err = fmt.Errorf("invalid value %q for flag -%s: not a finite number", f.Value.String(), f.Name)
		}
	})
	return err
}
