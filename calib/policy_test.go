package calib

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestAttachPolicyFile: a calibrator without a policy writes the bytes it
// wrote before (no "policy" field, same checksum); with one, the file
// reads back with the policy equal; a damaged policy is refused naming
// its field.
func TestAttachPolicyFile(t *testing.T) {
	c, rows, labels := bankCalibrator(t)
	before, err := c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(before, []byte(`"policy"`)) {
		t.Fatal("a calibrator without a policy writes a policy field")
	}
	sum := c.Checksum
	// Scores of probes the calibrator does not read (a bank larger than
	// its attributes) are left out.
	for _, r := range rows[:40] {
		r.Probe = "other:+"
		rows = append(rows, r)
	}
	if err := c.AttachPolicy(rows, labels, 0.3, BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	data, err := c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if c.Checksum == sum {
		t.Error("the checksum ignores the policy")
	}
	back, err := ReadCalibrator(bytes.NewReader(data), "cal.json")
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(c.Policy)
	b, _ := json.Marshal(back.Policy)
	if !bytes.Equal(a, b) || back.Policy.Tau != 0.3 || len(back.Policy.Stages) != len(c.Columns)+1 {
		t.Fatalf("policy differs after reading back")
	}
	// The old file still reads, without a policy.
	old, err := ReadCalibrator(bytes.NewReader(before), "old.json")
	if err != nil || old.Policy != nil {
		t.Fatalf("old file: %v, policy %v", err, old.Policy)
	}
	// A policy edited to disagree with β is refused (checksum recomputed
	// so that the check, not the checksum, speaks).
	bad := *c
	pol := *c.Policy
	pol.Beta = append([]float64(nil), pol.Beta...)
	pol.Beta[0] += 1
	bad.Policy = &pol
	if _, err := bad.Marshal(); err == nil || !strings.Contains(err.Error(), `field "policy.beta"`) {
		t.Errorf("edited β: %v", err)
	}
	pol.Beta[0] -= 1
	pol.Stages = pol.Stages[:2]
	if _, err := bad.Marshal(); err == nil || !strings.Contains(err.Error(), `field "policy.stages"`) {
		t.Errorf("cut stages: %v", err)
	}
}

// TestPolicyFilledMatchesEstimate: at every stage, PRISM's correction on
// the filled columns (asked answers, imputed rest) is the stage's
// estimate ĉ_m (least squares is linear in the response), and the asked
// columns are the answers.
func TestPolicyFilledMatchesEstimate(t *testing.T) {
	c, rows, labels := bankCalibrator(t)
	if err := c.AttachPolicy(rows, labels, 0, BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	p := c.Policy
	s0 := []float64{1, 2, 3.5}
	ans := [][]float64{{0.3, -0.2, 0.1}, {0.1, 0.4, -0.5}, {0.2, 0.2, 0.2}, {-0.1, 0, 0.3}}
	run := p.Start(s0, 0)
	for m := 0; m <= len(p.Columns); m++ {
		for i := range s0 {
			f := run.Filled(i)
			var corr float64
			for k, v := range f {
				corr += p.Beta[k] * v
			}
			e, _ := run.Scores()
			if math.Abs((s0[i]-corr)-e[i]) > 1e-9 {
				t.Errorf("stage %d candidate %d: s0 − Σβ filled = %v, estimate %v", m, i, s0[i]-corr, e[i])
			}
			for k := 0; k < m; k++ {
				if f[k] != ans[k][i] {
					t.Errorf("stage %d: asked column %d reads %v, answered %v", m, k, f[k], ans[k][i])
				}
			}
		}
		if m == len(p.Columns) {
			break
		}
		run.stage = m // ask everyone, whatever the stopping rule
		run.Give([]int{0, 1, 2}, ans[m])
	}
}

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

// TestPolicyRisk checks the stopping rule by hand: two candidates with
// estimates 0 and 1 and spread σ = 0.5 each flip with probability
// Φ(−1/sqrt(0.5)) = Φ(−1.41421) = 0.0786496 (normal table).
func TestPolicyRisk(t *testing.T) {
	p := &Policy{Columns: []string{"a:+"}, Calls: []float64{2}, BaseCalls: 1, Beta: []float64{1}, Means: []float64{0},
		Stages: []PolicyStage{{W: []float64{0, 0, 0}, Sigma: 0.5}, {W: []float64{0, 0, 0, 1}}}}
	run := p.Start([]float64{0, 1}, 0)
	if got := run.risk(0); math.Abs(got-0.0786496) > 1e-6 {
		t.Errorf("risk %.7f, want 0.0786496", got)
	}
	p.Tau = 0.07
	if _, who, ok := run.Next(); !ok || len(who) != 2 {
		t.Fatalf("τ = 0.07 below the risk: both ask, got %v %v", who, ok)
	}
	run.Give([]int{0, 1}, []float64{5, math.NaN()}) // the failed call takes the fill 0
	e, calls := run.Scores()
	if e[0] != -5 || e[1] != 1 || calls[0] != 3 || calls[1] != 3 {
		t.Errorf("estimates %v calls %v", e, calls)
	}
	p.Tau = 0.08
	run = p.Start([]float64{0, 1}, 0)
	if _, _, ok := run.Next(); ok {
		t.Error("τ = 0.08 above the risk: both stop")
	}
	p.Tau = 0
	run = p.Start([]float64{0, 1}, 2) // the cap leaves no room for the 2 calls
	if _, _, ok := run.Next(); ok {
		t.Error("the cap stops both")
	}
}
