package analysis

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prism-eval/prism/calib/selection"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/ui/cli/internal/clitest"
)

// TestSelectCSVJSON: three units (len, tone, ctx:expert) give 7 subsets;
// the full bank's mean is prism fit's PRISM mean on the same files.
func TestSelectCSVJSON(t *testing.T) {
	scores, labels := writeFitFiles(t, 12)
	code, out, errOut := clitest.RunCmd("select", "--scores", scores, "--labels", labels, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var r selection.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if strings.Join(r.Units, ",") != "len,tone,ctx:expert" || len(r.Subsets) != 7 || len(r.Curve) != 3 || len(r.Omission) != 3 {
		t.Fatalf("units %v, %d subsets, %d curve rows, %d omissions", r.Units, len(r.Subsets), len(r.Curve), len(r.Omission))
	}
	code, out, errOut = clitest.RunCmd("fit", "--scores", scores, "--labels", labels, "--json", "--bootstrap", "10")
	if code != 0 {
		t.Fatalf("fit exit %d: %s", code, errOut)
	}
	var fit calib.Report
	if err := json.Unmarshal([]byte(out), &fit); err != nil {
		t.Fatal(err)
	}
	if math.Abs(fit.Methods.PRISM.Mean-r.Full.Mean) > 1e-12 || math.Abs(fit.Methods.Vanilla.Mean-r.Vanilla) > 1e-12 {
		t.Errorf("select full %v vanilla %v; fit PRISM %v vanilla %v", r.Full.Mean, r.Vanilla, fit.Methods.PRISM.Mean, fit.Methods.Vanilla.Mean)
	}
}

func TestSelectHumanTables(t *testing.T) {
	scores, labels := writeFitFiles(t, 12)
	code, out, errOut := clitest.RunCmd("select", "--scores", scores, "--labels", labels)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"12 contexts, 60 candidates, 3 units", "subset-size curve", "size  subsets  median gain",
		"omission: the full bank without one unit", "range after one omission", "forward selection (stop below +0.0010 or at 20 units)", "stopped:"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for i, line := range strings.Split(out, "\n") {
		if strings.TrimRight(line, " ") != line {
			t.Errorf("line %d has trailing blanks: %q", i+1, line)
		}
	}
	// Without the enumeration and forward selection: omission only.
	code, out, _ = clitest.RunCmd("select", "--scores", scores, "--labels", labels, "--subsets=false", "--forward=false")
	if code != 0 || strings.Contains(out, "subset-size curve") || strings.Contains(out, "forward selection") || !strings.Contains(out, "omission") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

// TestSelectWorkspace: scores acquired with prism run feed prism select.
func TestSelectWorkspace(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "ws.db")
	clitest.MustRun(t, "data", "import", "demo", "--workspace", ws)
	clitest.MustRun(t, "run", "--workspace", ws, "--bank", "quality", "--mode", "expected")
	out, _ := clitest.MustRun(t, "select", "--workspace", ws, "--judge", "offline-expected", "--bank", "quality", "--json", "--forward=false")
	var r selection.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.NContexts != 12 || r.NCandidates != 60 || len(r.Units) != 8 || len(r.Subsets) != 255 {
		t.Errorf("%d contexts, %d candidates, %d units, %d subsets", r.NContexts, r.NCandidates, len(r.Units), len(r.Subsets))
	}
	code, _, errOut := clitest.RunCmd("select", "--workspace", ws, "--judge", "nobody")
	if code != 1 || !strings.Contains(errOut, `"nobody"`) {
		t.Errorf("unknown judge: exit %d: %s", code, errOut)
	}
}

func TestSelectUsageErrors(t *testing.T) {
	scores, labels := writeFitFiles(t, 6)
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"select"}, 2, "--judge NAME"},
		{[]string{"select", "--scores", scores}, 2, "go together"},
		{[]string{"select", "--scores", scores, "--labels", labels, "--judge", "x"}, 2, "not both"},
		{[]string{"select", "--scores", scores, "--labels", labels, "--metric", "tau"}, 2, `--metric "tau"`},
		{[]string{"select", "--scores", scores, "--labels", labels, "--max-forward", "0"}, 2, "--max-forward"},
		{[]string{"select", "--scores", scores, "--labels", labels, "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"select", "--scores", "nope.csv", "--labels", labels}, 1, "nope.csv"},
	}
	for _, tt := range tests {
		code, _, errOut := clitest.RunCmd(tt.args...)
		if code != tt.code || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tt.args, code, errOut, tt.code, tt.want)
		}
	}
}
