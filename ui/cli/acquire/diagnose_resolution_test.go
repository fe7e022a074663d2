package acquire

import (
	"encoding/csv"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prism-eval/prism/ui/cli/internal/clitest"
)

// TestDiagnoseResolutionDemo: on the demo with the offline judge, the
// 0–100 scale has fewer tied pairs and fewer zero responses than 1–10;
// the tied-pair shares equal an independent count from the exported
// scores of each scale's bank hash.
func TestDiagnoseResolutionDemo(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "ws.db")
	clitest.MustRun(t, "data", "import", "demo", "--workspace", ws)
	out, errOut := clitest.MustRun(t, "diagnose", "resolution", "--workspace", ws, "--bank", "style8", "--bootstrap", "100", "--json")
	if strings.Count(errOut, "2280 to send") != 2 { // 60 candidates × 38 conditions, once per scale
		t.Errorf("stderr:\n%s", errOut)
	}
	var doc resolutionJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	r := doc.Resolution
	if doc.A.Scale != "1–10" || doc.B.Scale != "0–100" || r.TooFew != "" || r.Contexts != 12 || r.Pairs != 120 || r.Responses != 60*16 {
		t.Fatalf("scales %s, %s; report %+v", doc.A.Scale, doc.B.Scale, r)
	}
	if !(r.B.TiedShare.Value < r.A.TiedShare.Value && r.B.ZeroShare.Value < r.A.ZeroShare.Value && r.A.TiedShare.Value > 0) {
		t.Errorf("tied %v → %v, zero %v → %v: want both lower on 0–100", r.A.TiedShare.Value, r.B.TiedShare.Value, r.A.ZeroShare.Value, r.B.ZeroShare.Value)
	}
	// Independent count from the exports.
	for _, c := range []struct {
		hash string
		want float64
	}{{doc.A.BankHash, r.A.TiedShare.Value}, {doc.B.BankHash, r.B.TiedShare.Value}} {
		exp, _ := clitest.MustRun(t, "export", "scores", "--workspace", ws, "--bank", c.hash[:12])
		recs, err := csv.NewReader(strings.NewReader(exp)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		byCtx := map[string][]string{}
		for _, rec := range recs[1:] {
			if rec[2] == "baseline" && rec[4] == "0" {
				byCtx[rec[0]] = append(byCtx[rec[0]], rec[3])
			}
		}
		ties, pairs := 0, 0
		for _, ss := range byCtx {
			for i := range ss {
				for j := i + 1; j < len(ss); j++ {
					pairs++
					if ss[i] == ss[j] {
						ties++
					}
				}
			}
		}
		if got := float64(ties) / float64(pairs); got != c.want || pairs != 120 {
			t.Errorf("bank %s: exported ties %d/%d = %v, diagnosis %v", c.hash[:12], ties, pairs, got, c.want)
		}
	}
	// --stored rereads both studies without sending; the text report.
	txt, errOut := clitest.MustRun(t, "diagnose", "resolution", "--workspace", ws, "--bank", "style8", "--bootstrap", "50", "--stored")
	if strings.Count(errOut+txt, "0 to send") != 2 || !strings.Contains(txt, "tied pairs") || !strings.Contains(txt, "zero responses") {
		t.Errorf("rerun:\n%s%s", txt, errOut)
	}
	// prism run --scale acquires the second scale as the same study.
	out, _ = clitest.MustRun(t, "run", "--workspace", ws, "--bank", "style8", "--scale", "0-100", "--dry-run")
	if !strings.Contains(out, "2280 answered") || !strings.Contains(out, doc.B.BankHash[:12]) {
		t.Errorf("run --scale 0-100:\n%s", out)
	}
}
