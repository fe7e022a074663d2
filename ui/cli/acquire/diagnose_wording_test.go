package acquire

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prism-eval/prism/ui/cli/internal/clitest"
)

// TestDiagnoseWordingDemo: on the demo with the offline judge, the
// wording diagnosis acquires the ladder bank (2 runs), and the offline
// judge's graded wordings show: the pooled reproducible RMS of O grows
// from slightly to standard to much, the projections of "more" grow with
// the wording for every attribute the judge reads clearly, and the worded
// control has a reproducible response of its own (Z). A rerun with
// --stored sends nothing and gives the same report.
func TestDiagnoseWordingDemo(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "ws.db")
	clitest.MustRun(t, "data", "import", "demo", "--workspace", ws)
	out, errOut := clitest.MustRun(t, "diagnose", "wording", "--workspace", ws, "--bootstrap", "100", "--json")
	if !strings.Contains(errOut, "12960 to send") { // 60 candidates × 108 conditions × 2 runs
		t.Errorf("stderr:\n%s", errOut)
	}
	var doc wordingJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	r := doc.Wording
	if doc.Bank != "ladder" || doc.Scale != "1–10" || r.Runs != 2 || r.TooFew != "" || len(r.Attributes) != 6 || len(r.Pooled) != 3 {
		t.Fatalf("bank %s scale %s runs %d too few %q, %d attributes, %d pooled", doc.Bank, doc.Scale, r.Runs, r.TooFew, len(r.Attributes), len(r.Pooled))
	}
	o := []float64{r.Pooled[0].ORMS.Value, r.Pooled[1].ORMS.Value, r.Pooled[2].ORMS.Value}
	if !(0 < o[0] && o[0] < o[1] && o[1] < o[2]) {
		t.Errorf("pooled O RMS by level %v, want increasing", o)
	}
	for _, a := range r.Attributes {
		if len(a.Levels) != 3 || a.TooFew != "" {
			t.Fatalf("%s: %d levels, too few %q", a.Name, len(a.Levels), a.TooFew)
		}
		// Standard D⁺ − D⁻ = 2·O_std: the two projections differ by 2.
		if d := a.Levels[1].PlusProjection.Value - a.Levels[1].MinusProjection.Value; d < 2-1e-9 || d > 2+1e-9 {
			t.Errorf("%s: standard projections differ by %v, want 2", a.Name, d)
		}
		if a.Name == "hedging" || a.Name == "formality" {
			continue // features that vary little on the demo: noisy
		}
		p := []float64{a.Levels[0].PlusProjection.Value, a.Levels[1].PlusProjection.Value, a.Levels[2].PlusProjection.Value}
		if !(p[0] < p[1] && p[1] < p[2]) {
			t.Errorf("%s: more-weight projections %v, want increasing", a.Name, p)
		}
		if !(a.ZRMS.Value > 0) {
			t.Errorf("%s: worded control has no reproducible response (z_rms %v)", a.Name, a.ZRMS.Value)
		}
	}
	out2, errOut := clitest.MustRun(t, "diagnose", "wording", "--workspace", ws, "--bootstrap", "100", "--json", "--stored")
	if !strings.Contains(errOut, "12960 answered, 0 from cache, 0 to send") || out2 != out {
		t.Errorf("--stored rerun: stderr %s; same report %v", errOut, out2 == out)
	}
	// The level probes export with their identity.
	exp, _ := clitest.MustRun(t, "export", "scores", "--workspace", ws, "--bank", "ladder")
	for _, want := range []string{",length:control,", ",length:much+,", ",length:slightly-,", ",joint:length/detail:+-,"} {
		if !strings.Contains(exp, want) {
			t.Errorf("export lacks %q", want)
		}
	}
	// Text report.
	txt, _ := clitest.MustRun(t, "diagnose", "wording", "--workspace", ws, "--bootstrap", "50", "--stored")
	for _, want := range []string{"wording strength: demo", "much (±3)", "E^base/O", "reproducible RMS pooled"} {
		if !strings.Contains(txt, want) {
			t.Errorf("text report lacks %q:\n%s", want, txt)
		}
	}
}

// TestDiagnoseWordingTooFew: one run, or a bank without levels, says
// "too few" instead of printing numbers.
func TestDiagnoseWordingTooFew(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "ws.db")
	clitest.MustRun(t, "data", "import", "demo", "--workspace", ws)
	out, _ := clitest.MustRun(t, "diagnose", "wording", "--workspace", ws, "--repeats", "1", "--contexts", "3", "--bootstrap", "10")
	if !strings.Contains(out, "too few: 1 run") {
		t.Errorf("one run:\n%s", out)
	}
	out, _ = clitest.MustRun(t, "diagnose", "wording", "--workspace", ws, "--bank", "style7", "--contexts", "2", "--bootstrap", "10")
	if !strings.Contains(out, "too few: no attribute has worded-control") {
		t.Errorf("bank without levels:\n%s", out)
	}
	out, _ = clitest.MustRun(t, "bank", "show", "ladder")
	for _, want := range []string{"much-     w0  When you assign the score, weight [clause] much less heavily", "pairs (15): length/detail,", "108 conditions: 1 baseline, 12 attribute wordings, 5 neutral, 0 context, 90 graded, control and joint."} {
		if !strings.Contains(out, want) {
			t.Errorf("bank show ladder lacks %q:\n%s", want, out)
		}
	}
}
