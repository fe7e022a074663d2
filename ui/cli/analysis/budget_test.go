package analysis

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prism-eval/prism/calib/budget"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/ui/cli/internal/clitest"
)

// TestBudgetCSVJSON: the curve's ends are prism fit's Vanilla and PRISM
// means on the same files, the figure files are written, and the human
// report has the curve and the reach table.
func TestBudgetCSVJSON(t *testing.T) {
	scores, labels := writeFitFiles(t, 12)
	dir := t.TempDir()
	svg, png := filepath.Join(dir, "b.svg"), filepath.Join(dir, "b.png")
	code, out, errOut := clitest.RunCmd("budget", "--scores", scores, "--labels", labels, "--json", "--bootstrap", "50", "--taus", "0.1,1", "--svg", svg, "--png", png)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var r budget.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	code, out, errOut = clitest.RunCmd("fit", "--scores", scores, "--labels", labels, "--json", "--bootstrap", "10")
	if code != 0 {
		t.Fatalf("fit exit %d: %s", code, errOut)
	}
	var fit calib.Report
	if err := json.Unmarshal([]byte(out), &fit); err != nil {
		t.Fatal(err)
	}
	if r.Points[0].Family != "vanilla" || r.Points[1].Family != "full" ||
		math.Abs(r.Points[0].Mean-fit.Methods.Vanilla.Mean) > 1e-12 || math.Abs(r.Points[1].Mean-fit.Methods.PRISM.Mean) > 1e-12 {
		t.Errorf("ends %+v %+v; fit vanilla %v PRISM %v", r.Points[0], r.Points[1], fit.Methods.Vanilla.Mean, fit.Methods.PRISM.Mean)
	}
	adaptive := 0
	for _, p := range r.Points {
		if p.Family == "adaptive" {
			adaptive++
		}
	}
	if adaptive != 2 || len(r.Reach) == 0 || r.Note == "" {
		t.Errorf("%d adaptive points, %d reach rows, note %q", adaptive, len(r.Reach), r.Note)
	}
	for _, f := range []string{svg, png} {
		if st, err := os.Stat(f); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	code, out, errOut = clitest.RunCmd("budget", "--scores", scores, "--labels", labels, "--bootstrap", "20")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"12 contexts", "adaptive τ=0.1", "cheapest point within 0.005", "honesty: "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestBudgetFlagErrors(t *testing.T) {
	scores, labels := writeFitFiles(t, 12)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--taus", "0.1,x"}, `--taus: "x"`},
		{[]string{"--taus", "-1"}, `--taus: "-1"`},
		{[]string{"--svg", "out.png"}, "--svg"},
		{[]string{"--bootstrap", "0"}, "--bootstrap 0"},
		{[]string{"--metric", "kendall"}, "--metric"},
	} {
		code, _, errOut := clitest.RunCmd(append([]string{"budget", "--scores", scores, "--labels", labels}, c.args...)...)
		if code == 0 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, errOut, c.want)
		}
	}
}

// FuzzParseTaus: --taus never panics, and what it accepts is finite and
// ≥ 0.
func FuzzParseTaus(f *testing.F) {
	for _, s := range []string{"0.01,0.1,1", "", ",,", "1e400", "-0", "NaN", "0x1p-2", " 3 , 4 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		taus, err := parseTaus(s)
		if err != nil {
			return
		}
		for _, v := range taus {
			if !(v >= 0) || math.IsInf(v, 0) {
				t.Fatalf("%q gave %v", s, v)
			}
		}
	})
}
