package calib

import (
	"encoding/json"
	"fmt"
	"math"
	"testing"
)

// FuzzPolicy feeds arbitrary policy documents (the "policy" field of a
// calibrator) to the checks ReadCalibrator applies; a policy that passes
// them follows any finite scores without panicking, gives finite
// estimates, never asks a candidate past the cap, and ends.
func FuzzPolicy(f *testing.F) {
	c, rows, labels := bankCalibrator(f)
	if err := c.AttachPolicy(rows, labels, 0.3, BuildOptions{}); err != nil {
		f.Fatal(err)
	}
	good, _ := json.Marshal(c.Policy)
	f.Add(good, 1.0, 2.0, 7.0)
	f.Add(good[:len(good)/2], 0.0, 0.0, 0.0)
	f.Add([]byte(`{"columns":[],"stages":[]}`), 1.0, 1.0, 3.0)
	f.Add([]byte(`{"tau":-1}`), 1.0, 1.0, 3.0)
	f.Fuzz(func(t *testing.T, in []byte, a, b, budget float64) {
		var p Policy
		if json.Unmarshal(in, &p) != nil {
			return
		}
		cc := *c
		cc.Policy = &p
		if cc.Policy.check(&cc, func(field, format string, args ...any) error {
			return fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...))
		}) != nil {
			return
		}
		if math.IsNaN(a) || math.IsInf(a, 0) || math.IsNaN(b) || math.IsInf(b, 0) || math.Abs(a) > 1e6 || math.Abs(b) > 1e6 {
			return
		}
		run := p.Start([]float64{a, b, a + b}, budget)
		for steps := 0; ; steps++ {
			if steps > len(p.Columns) {
				t.Fatal("the run does not end")
			}
			_, who, ok := run.Next()
			if !ok {
				break
			}
			run.Give(who, make([]float64, len(who)))
		}
		e, calls := run.Scores()
		for i := range e {
			if math.IsNaN(e[i]) {
				t.Fatalf("estimate %d is NaN", i)
			}
			if budget > 0 && calls[i] > math.Max(budget, p.BaseCalls) {
				t.Fatalf("candidate %d spent %v calls, cap %v", i, calls[i], budget)
			}
			_ = run.Filled(i)
		}
	})
}
