package acquire

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prism-eval/prism/ui/cli/internal/clitest"
)

// TestDiagnoseJointDemo: on 8 demo contexts with the offline judge, the
// ladder bank's 15 pairs are all estimated; the judge's documented joint
// response (main effects at 0.8 of the single probe's, plus an
// interaction) shows as a pooled projection below 1 and an interaction
// ratio whose interval excludes 0.
func TestDiagnoseJointDemo(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "ws.db")
	clitest.MustRun(t, "data", "import", "demo", "--workspace", ws)
	out, _ := clitest.MustRun(t, "diagnose", "joint", "--workspace", ws, "--contexts", "8", "--bootstrap", "200", "--json")
	var doc jointJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	r := doc.Joint
	if r.TooFew != "" || len(r.Pairs) != 15 || r.PooledPairs != 15 || len(doc.Contexts) != 8 {
		t.Fatalf("too few %q, %d pairs, %d pooled, %d contexts", r.TooFew, len(r.Pairs), r.PooledPairs, len(doc.Contexts))
	}
	if p := r.PooledProjection; !(p.Value > 0.5 && p.Value < 1 && p.CI[1] < 1) {
		t.Errorf("pooled projection %+v, want in (0.5, 1) with its interval below 1", p)
	}
	if i := r.PooledInteraction; !(i.Value > 0.1 && i.CI[0] > 0) {
		t.Errorf("pooled interaction ratio %+v, want clearly above 0", i)
	}
	txt, _ := clitest.MustRun(t, "diagnose", "joint", "--workspace", ws, "--contexts", "8", "--bootstrap", "50", "--stored")
	if !strings.Contains(txt, "pooled (15 pairs)") || !strings.Contains(txt, "length/detail") {
		t.Errorf("text report:\n%s", txt)
	}
	// A bank without joint instructions: too few, no numbers.
	txt, _ = clitest.MustRun(t, "diagnose", "joint", "--workspace", ws, "--bank", "style7", "--contexts", "2", "--bootstrap", "10")
	if !strings.Contains(txt, "too few: no joint-instruction") {
		t.Errorf("bank without pairs:\n%s", txt)
	}
}
