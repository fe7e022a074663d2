package analysis

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/prism-eval/prism/model/datasets"
	"github.com/prism-eval/prism/ui/cli/internal/clitest"
)

// targetFixture is the demo dataset with the offline judge's answers in a
// workspace, the same scores exported as a CSV, and a labels CSV with the
// overall label and one column per criterion (the dataset's Scores).
type targetFixture struct {
	ws, scores, labels string
}

func newTargetFixture(t *testing.T) targetFixture {
	t.Helper()
	dir := t.TempDir()
	f := targetFixture{ws: filepath.Join(dir, "w.db"), scores: filepath.Join(dir, "s.csv"), labels: filepath.Join(dir, "l.csv")}
	for _, args := range [][]string{
		{"data", "import", "demo", "--workspace", f.ws},
		{"run", "--workspace", f.ws, "--bank", "quality", "--backend", "offline"},
		{"export", "scores", "--workspace", f.ws, "--dataset", "demo", "--judge", "offline", "-o", f.scores},
	} {
		if code, _, errOut := clitest.RunPrism(t, args...); code != 0 {
			t.Fatalf("prism %s: exit %d: %s", strings.Join(args, " "), code, errOut)
		}
	}
	crit := []string{"coherence", "consistency", "fluency", "relevance"}
	var b strings.Builder
	b.WriteString("context,candidate,human," + strings.Join(crit, ",") + "\n")
	for _, c := range datasets.Demo().Contexts {
		for _, k := range c.Candidates {
			fmt.Fprintf(&b, "%s,%s,%g", c.ID, k.ID, k.Human)
			for _, name := range crit {
				fmt.Fprintf(&b, ",%g", k.Scores[name])
			}
			b.WriteString("\n")
		}
	}
	writeFile(t, f.labels, b.String())
	return f
}

// runJSON runs prism with args and decodes its JSON output.
func runJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	code, out, errOut := clitest.RunPrism(t, args...)
	if code != 0 {
		t.Fatalf("prism %s: exit %d: %s", strings.Join(args, " "), code, errOut)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("prism %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return m
}

// sameJSON fails when a and b differ once the study (what files cannot
// tell) is left out.
func sameJSON(t *testing.T, what string, a, b map[string]any) {
	t.Helper()
	delete(a, "study")
	delete(b, "study")
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if !bytes.Equal(ja, jb) {
		t.Errorf("%s: workspace and files differ:\nworkspace %s\nfiles     %s", what, ja, jb)
	}
}

// TestFitTarget: prism fit --target coherence on the workspace (study.Fit
// with FitRequest.Target) equals the fit of the exported scores against
// the labels file's coherence column, differs from the fit toward the
// overall label, and the report's study and the saved calibrator record
// the target; the rows path (--attributes) retargets as well, and an
// unknown criterion lists the dataset's.
func TestFitTarget(t *testing.T) {
	f := newTargetFixture(t)
	common := []string{"fit", "--json", "--bootstrap", "50", "--metric", "spearman"}
	cal := filepath.Join(t.TempDir(), "cal.json")
	ws := runJSON(t, append(common, "--workspace", f.ws, "--target", "coherence", "--save", cal)...)
	if s, _ := ws["study"].(map[string]any); s["target"] != "coherence" {
		t.Errorf("the fit's study %v does not record the target", ws["study"])
	}
	overall := runJSON(t, append(common, "--workspace", f.ws)...)
	files := runJSON(t, append(common, "--scores", f.scores, "--labels", f.labels, "--target", "coherence")...)
	mean := func(m map[string]any) any { return m["methods"].(map[string]any)["vanilla"].(map[string]any)["mean"] }
	if mean(ws) == mean(overall) {
		t.Errorf("Vanilla toward coherence %v equals Vanilla toward the overall label", mean(ws))
	}
	sameJSON(t, "fit --target coherence", ws, files)

	raw, err := os.ReadFile(cal)
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Training struct {
			Study struct{ Target string } `json:"study"`
		} `json:"training"`
	}
	if err := json.Unmarshal(raw, &c); err != nil || c.Training.Study.Target != "coherence" {
		t.Errorf("calibrator's training study target %q (%v), want coherence", c.Training.Study.Target, err)
	}

	attrs := []string{"--attributes", "accuracy,fluency"}
	wsRows := runJSON(t, append(append(common, attrs...), "--workspace", f.ws, "--target", "fluency")...)
	filesRows := runJSON(t, append(append(common, attrs...), "--scores", f.scores, "--labels", f.labels, "--target", "fluency")...)
	sameJSON(t, "fit --attributes --target fluency", wsRows, filesRows)

	code, _, errOut := clitest.RunPrism(t, "fit", "--workspace", f.ws, "--target", "wit")
	if code != 1 || !strings.Contains(errOut, "its criteria: coherence, consistency, fluency, relevance") {
		t.Errorf("unknown criterion: exit %d %q, want the dataset's criteria listed", code, errOut)
	}
	code, _, errOut = clitest.RunPrism(t, "fit", "--scores", f.scores, "--labels", f.labels, "--target", "wit")
	if code != 1 || !strings.Contains(errOut, `no "wit" column`) || !strings.Contains(errOut, "coherence") {
		t.Errorf("unknown column: exit %d %q, want the header listed", code, errOut)
	}
}

// TestSelectBudgetTarget: select and budget read --target from the
// workspace and from a label column alike, and record it in the study.
func TestSelectBudgetTarget(t *testing.T) {
	f := newTargetFixture(t)
	for _, cmd := range [][]string{
		{"select", "--json", "--subsets=false", "--max-forward", "2"},
		{"budget", "--json", "--bootstrap", "20", "--taus", "0.5"},
	} {
		ws := runJSON(t, append(cmd, "--workspace", f.ws, "--target", "relevance", "--metric", "spearman")...)
		if s, _ := ws["study"].(map[string]any); s["target"] != "relevance" {
			t.Errorf("%s: study %v does not record the target", cmd[0], ws["study"])
		}
		files := runJSON(t, append(cmd, "--scores", f.scores, "--labels", f.labels, "--target", "relevance")...)
		overall := runJSON(t, append(cmd, "--scores", f.scores, "--labels", f.labels)...)
		sameJSON(t, cmd[0]+" --target relevance", ws, files)
		a, _ := json.Marshal(files)
		b, _ := json.Marshal(overall)
		if bytes.Equal(a, b) {
			t.Errorf("%s: --target relevance gives the overall label's report", cmd[0])
		}
	}
}

// TestScoreTarget: the transfer check measures against --target (a label
// column, or the workspace dataset's criterion) and says so; scoring
// toward another criterion than the calibrator's warns.
func TestScoreTarget(t *testing.T) {
	f := newTargetFixture(t)
	cal := filepath.Join(t.TempDir(), "cal.json")
	if code, _, errOut := clitest.RunPrism(t, "fit", "--workspace", f.ws, "--bootstrap", "20", "--target", "coherence", "--save", cal); code != 0 {
		t.Fatalf("fit: %s", errOut)
	}
	transfer := func(args ...string) (string, string) {
		t.Helper()
		code, out, errOut := clitest.RunPrism(t, append([]string{"score", "--calibrator", cal, "-o", filepath.Join(t.TempDir(), "o.csv"), "--bootstrap", "20"}, args...)...)
		if code != 0 {
			t.Fatalf("score %v: exit %d: %s", args, code, errOut)
		}
		i := strings.Index(out, "transfer check")
		if i < 0 {
			t.Fatalf("score %v: no transfer check:\n%s", args, out)
		}
		out = out[i:]
		if j := strings.Index(out, "\nwrote "); j >= 0 {
			out = out[:j] // the output file differs
		}
		return out, errOut
	}
	wsCoh, errOut := transfer("--workspace", f.ws, "--target", "coherence")
	if !strings.Contains(wsCoh, "the humans' criterion coherence") || strings.Contains(errOut, "warning: the calibrator was fitted toward") {
		t.Errorf("workspace --target coherence: %q, stderr %q", wsCoh, errOut)
	}
	filesCoh, _ := transfer("--scores", f.scores, "--labels", f.labels, "--target", "coherence")
	if filesCoh != wsCoh {
		t.Errorf("transfer toward coherence from files\n%s\ndiffers from the workspace's\n%s", filesCoh, wsCoh)
	}
	wsAll, errOut := transfer("--workspace", f.ws)
	if wsAll == wsCoh || !strings.Contains(errOut, "fitted toward criterion coherence; the transfer check measures against the overall label") {
		t.Errorf("workspace without --target: %q, stderr %q", wsAll, errOut)
	}
	if code, _, errOut := clitest.RunPrism(t, "score", "--calibrator", cal, "--scores", f.scores, "--target", "coherence"); code != 2 || !strings.Contains(errOut, "give --labels") {
		t.Errorf("--target without --labels: exit %d %q", code, errOut)
	}
}

// TestAgreeCurve: --curve adds the learning curve to prism agree's report
// (JSON and text), its last point is the agreement on every context, and
// --figure writes it; --figure without --curve is a usage error.
func TestAgreeCurve(t *testing.T) {
	f := newTargetFixture(t)
	fig := filepath.Join(t.TempDir(), "c.png")
	args := []string{"agree", "--json", "--bootstrap", "20", "--workspace", f.ws, "--curve", "--curve-draws", "5"}
	var r struct {
		Judges map[string]map[string]struct{ Mean float64 }
		Curve  struct {
			Series []string
			Draws  int
			Points []struct {
				Contexts, Draws int
				Series          map[string]struct{ Median, P10, P90 float64 }
			}
		}
	}
	code, out, errOut := clitest.RunPrism(t, append(args, "--figure", fig)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	pts := r.Curve.Points
	if len(pts) != 3 || pts[0].Contexts != 5 || pts[0].Draws != 5 || pts[2].Contexts != 12 || r.Curve.Series[0] != "offline" {
		t.Fatalf("curve %+v: want 5, 10, 12 contexts of the demo, 5 draws, judge offline", r.Curve)
	}
	if got, want := pts[2].Series["offline"].Median, r.Judges["offline"]["spearman"].Mean; got != want {
		t.Errorf("curve at all contexts %v, want the agreement %v", got, want)
	}
	if st, err := os.Stat(fig); err != nil || st.Size() == 0 {
		t.Errorf("--figure: %v", err)
	}
	code, out, _ = clitest.RunPrism(t, "agree", "--bootstrap", "20", "--workspace", f.ws, "--curve", "--curve-sizes", "4,8")
	if code != 0 || !strings.Contains(out, "learning curve: each judge's spearman") || !strings.Contains(out, "\n8 ") {
		t.Errorf("text curve: exit %d\n%s", code, out)
	}
	if code, _, errOut := clitest.RunPrism(t, "agree", "--workspace", f.ws, "--figure", fig); code != 2 || !strings.Contains(errOut, "go with --curve") {
		t.Errorf("--figure without --curve: exit %d %q", code, errOut)
	}
}

// TestFitCurve: prism fit --curve's last point is the fit's own
// out-of-fold Vanilla and PRISM means (and their difference), from a
// workspace and from files alike; --curve with --global is refused.
func TestFitCurve(t *testing.T) {
	f := newTargetFixture(t)
	fig := filepath.Join(t.TempDir(), "c.svg")
	type fitCurve struct {
		Methods map[string]*struct{ Mean float64 }
		Curve   struct {
			Points []struct {
				Contexts int
				Series   map[string]struct{ Median, P10, P90 float64 }
			}
		}
	}
	run := func(args ...string) fitCurve {
		t.Helper()
		code, out, errOut := clitest.RunPrism(t, append([]string{"fit", "--json", "--bootstrap", "20", "--metric", "spearman", "--curve", "--curve-draws", "3"}, args...)...)
		if code != 0 {
			t.Fatalf("fit %v: exit %d: %s", args, code, errOut)
		}
		var r fitCurve
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	ws := run("--workspace", f.ws, "--target", "coherence", "--figure", fig)
	files := run("--scores", f.scores, "--labels", f.labels, "--target", "coherence")
	if !reflect.DeepEqual(ws.Curve, files.Curve) {
		t.Errorf("curves differ:\nworkspace %+v\nfiles     %+v", ws.Curve, files.Curve)
	}
	pts := ws.Curve.Points
	if len(pts) != 3 || pts[0].Contexts != 5 {
		t.Fatalf("points %+v: want 5, 10, 12 contexts", pts)
	}
	last := pts[2].Series
	v, p := ws.Methods["vanilla"].Mean, ws.Methods["prism"].Mean
	if last["vanilla"].Median != v || last["prism"].Median != p || last["gain"].Median != p-v {
		t.Errorf("at all contexts %+v, want Vanilla %v and PRISM %v", last, v, p)
	}
	if svg, err := os.ReadFile(fig); err != nil || !strings.Contains(string(svg), "<svg") {
		t.Errorf("--figure: %v", err)
	}
	if code, _, errOut := clitest.RunPrism(t, "fit", "--workspace", f.ws, "--curve", "--global"); code != 2 || !strings.Contains(errOut, "not with --global") {
		t.Errorf("--curve --global: exit %d %q", code, errOut)
	}
}
