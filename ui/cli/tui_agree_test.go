package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/prism-eval/prism/calib/agree"
	"github.com/prism-eval/prism/model/datasets"
	"github.com/prism-eval/prism/ui/cli/internal/clitest"
)

// The TUI's agreement numbers are prism agree's for the same study: the
// Fit tab's for a judge without probes equal prism agree --judge NAME,
// the Compare tab's for every judge equal prism agree --judge A,B --bank
// BANK (both read with agree.ReadStored and measured with agree.Measure).
func TestAgreeCommandEqualsTUI(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws.db")
	clitest.MustRun(t, "data", "import", "demo", "--workspace", ws)
	clitest.MustRun(t, "run", "--workspace", ws, "--bank", "quality", "--backend", "offline", "--judge", "probed")
	// The TUI's default judge, offline, is imported scores without probes:
	// a weak judge (its score is the text's length mod 7).
	var b strings.Builder
	b.WriteString("context,candidate,probe,score\n")
	for _, c := range datasets.Demo().Contexts {
		for _, k := range c.Candidates {
			fmt.Fprintf(&b, "%s,%s,baseline,%d\n", c.ID, k.ID, len(k.Text)%7+1)
		}
	}
	csv := filepath.Join(dir, "offline.csv")
	if err := os.WriteFile(csv, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	clitest.MustRun(t, "import", "scores", "--workspace", ws, "--judge", "offline", csv)

	app := openApp(t, ws)
	press := func(keys ...string) {
		for _, k := range keys {
			_, cmd := app.Update(tea.KeyPressMsg{Code: rune(k[0]), Text: k})
			drive(app, cmd)
		}
	}
	press("5", "f")
	if app.FitReport() != nil || app.FitAgreement() == nil {
		t.Fatalf("the Fit tab on a judge without probes: report %v, agreement %v", app.FitReport() != nil, app.FitAgreement())
	}
	sameAgreement(t, "Fit tab", app.FitAgreement(), "agree", "--json", "--workspace", ws, "--judge", "offline")
	press("8", "c")
	got := app.CompareAgreement()
	if got == nil || len(got.Judges) != 2 {
		t.Fatalf("the Compare tab's agreement: %+v", got)
	}
	sameAgreement(t, "Compare tab", got, "agree", "--json", "--workspace", ws, "--judge", "offline,probed", "--bank", "quality")
}

// sameAgreement compares the TUI's agreement with prism agree's JSON
// (its calib/agree part), field by field.
func sameAgreement(t *testing.T, what string, tui *agree.Result, args ...string) {
	t.Helper()
	out, _ := clitest.MustRun(t, args...)
	var cli agree.Result
	if err := json.Unmarshal([]byte(out), &cli); err != nil {
		t.Fatal(err)
	}
	a, b := jsonText(t, &cli), jsonText(t, tui)
	if a != b {
		t.Errorf("%s: prism agree\n%s\nthe TUI\n%s", what, a, b)
	}
}

func jsonText(t *testing.T, v any) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
