package calib

import (
	"bytes"
	"encoding/json"
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
