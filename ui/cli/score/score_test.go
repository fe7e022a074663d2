package score

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
	"github.com/prism-eval/prism/ui/cli/internal/clitest"
)

// Round trip: calibrators fitted on half the contexts score the other
// half from CSV files; every corrected score equals the formula evaluated
// by hand from the file's own coefficients and means, to 1e-12.
func TestScoreRoundTripMatchesHandComputation(t *testing.T) {
	f := scoreFixture(t)
	rows, err := clikit.ReadFile(f.newS, model.ReadScoresCSV)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"prism", "alpha_prism", "half", "taylor"} {
		c := clitest.ReadCalibrator(t, f.cal[m])
		if c.Method != m || c.Training.Contexts != 12 || c.Training.Candidates != 60 || c.Bank != nil || c.Judge != nil {
			t.Fatalf("%s: calibrator method %s, %d contexts, %d candidates, bank %v, judge %v", m, c.Method, c.Training.Contexts, c.Training.Candidates, c.Bank, c.Judge)
		}
		if m == "alpha_prism" && c.Alpha == 1 {
			t.Logf("alpha_prism fitted α = 1 exactly")
		}
		want := handScores(t, c, rows)
		out := filepath.Join(t.TempDir(), "out.csv")
		code, stdout, errOut := clitest.RunCmd("score", "--calibrator", f.cal[m], "--scores", f.newS, "--labels", f.newL, "-o", out)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", m, code, errOut)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		got := parseScoredCSV(t, string(data))
		if len(got.rows) != 60 || len(want) != 60 {
			t.Fatalf("%s: %d rows scored, %d by hand; want 60", m, len(got.rows), len(want))
		}
		units := []string{"len", "tone"}
		if m == "prism" || m == "alpha_prism" {
			units = append(units, "ctx:expert")
		}
		wantHead := []string{"context", "candidate", "baseline", "corrected", "rank_before", "rank_after", "imputed", "in_sample", "human"}
		for _, u := range units {
			wantHead = append(wantHead, "term:"+u)
		}
		if !slices.Equal(got.head, wantHead) {
			t.Errorf("%s: header %v, want %v", m, got.head, wantHead)
		}
		worst := 0.0
		imputed := map[string]string{}
		byCtx := map[string][]map[string]string{}
		for _, r := range got.rows {
			k := [2]string{r["context"], r["candidate"]}
			y := numOf(t, r["corrected"])
			worst = math.Max(worst, math.Abs(y-want[k]))
			// corrected = α·baseline − Σ terms.
			sum := c.Alpha * numOf(t, r["baseline"])
			for _, u := range units {
				sum -= numOf(t, r["term:"+u])
			}
			if math.Abs(sum-y) > 1e-12 {
				t.Errorf("%s %v: α·baseline − Σ terms = %v, corrected %v", m, k, sum, y)
			}
			if r["imputed"] != "0" {
				imputed[k[0]+"/"+k[1]] = r["imputed"]
			}
			if r["in_sample"] != "false" {
				t.Errorf("%s %v: in_sample %s for a candidate the calibrator never saw", m, k, r["in_sample"])
			}
			byCtx[k[0]] = append(byCtx[k[0]], r)
		}
		t.Logf("%s: largest |corrected − hand| = %.3g", m, worst)
		if worst > 1e-12 {
			t.Errorf("%s: corrected scores differ from the hand computation by up to %g", m, worst)
		}
		if want := map[string]string{"doc12/sys1": "1", "doc14/sys3": "1"}; !maps2Equal(imputed, want) {
			t.Errorf("%s: imputed cells %v, want %v", m, imputed, want)
		}
		notes := scoredNotes(t, out)
		if !slices.Contains(notes, "imputed: 2 score cells in 2 candidates filled with the calibrator's training means (len:- 1, tone:+ 1)") {
			t.Errorf("%s: notes %q lack the imputed count", m, notes)
		}
		if !slices.ContainsFunc(notes, func(s string) bool { return strings.Contains(s, "need not lie on the human scale") }) {
			t.Errorf("%s: notes %q do not say corrected scores need not lie on the human scale", m, notes)
		}
		// Ranks within each context follow the scores (1 = highest).
		for ctx, rs := range byCtx {
			for _, a := range rs {
				for _, b := range rs {
					if numOf(t, a["corrected"]) > numOf(t, b["corrected"]) && !(numOf(t, a["rank_after"]) < numOf(t, b["rank_after"])) {
						t.Errorf("%s %s: corrected %s > %s but rank_after %s vs %s", m, ctx, a["corrected"], b["corrected"], a["rank_after"], b["rank_after"])
					}
					if numOf(t, a["baseline"]) > numOf(t, b["baseline"]) && !(numOf(t, a["rank_before"]) < numOf(t, b["rank_before"])) {
						t.Errorf("%s %s: baseline %s > %s but rank_before %s vs %s", m, ctx, a["baseline"], b["baseline"], a["rank_before"], b["rank_before"])
					}
				}
			}
		}
		if !strings.Contains(stdout, "transfer check: spearman agreement with the humans, 12 contexts, 60 labelled candidates") ||
			strings.Contains(stdout, "in-sample") {
			t.Errorf("%s: summary:\n%s", m, stdout)
		}
	}
}

func maps2Equal(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// jsonlOutput runs prism score with --format jsonl to stdout and returns
// the header and the rows.
func jsonlOutput(t *testing.T, args ...string) (header map[string]any, rows []map[string]any, stderr string) {
	t.Helper()
	code, out, errOut := clitest.RunCmd(append([]string{"score", "--format", "jsonl"}, args...)...)
	if code != 0 {
		t.Fatalf("prism score %v: exit %d: %s", args, code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var first map[string]map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil || first["header"] == nil {
		t.Fatalf("first line %q: %v", lines[0], err)
	}
	for _, l := range lines[1:] {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		rows = append(rows, m)
	}
	return first["header"], rows, errOut
}

// Applied to its own training data (a workspace dataset, answered
// already), the transfer check's baseline agreement is prism fit's Vanilla
// mean exactly, the corrected agreement is said to be in-sample, nothing
// is sent and the workspace is not written.
func TestScoreOwnTrainingDataIsInSample(t *testing.T) {
	f := scoreFixture(t)
	before, err := os.ReadFile(f.ws)
	if err != nil {
		t.Fatal(err)
	}
	header, rows, errOut := jsonlOutput(t, "--calibrator", f.wsCal, "--workspace", f.ws)
	tr, _ := header["transfer"].(map[string]any)
	if tr == nil {
		t.Fatalf("no transfer check: %v", header)
	}
	base := tr["baseline"].(map[string]any)["mean"].(float64)
	if base != f.fitVanilla {
		t.Errorf("transfer baseline mean %v, prism fit's Vanilla mean %v: want them equal", base, f.fitVanilla)
	}
	if header["in_sample"].(float64) != 60 || tr["in_sample"].(float64) != 60 || len(rows) != 60 {
		t.Errorf("in_sample %v (transfer %v), %d rows; want 60", header["in_sample"], tr["in_sample"], len(rows))
	}
	for _, want := range []string{
		"60 of 60 scored candidates were training candidates of the calibrator: the corrected agreement below is in-sample",
		"33 of its 38 conditions", "1980 answered, 0 from cache, 0 to send",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	after, _ := os.ReadFile(f.ws)
	if !bytes.Equal(before, after) {
		t.Error("scoring an answered study changed the workspace")
	}
	// The calibrator records where its scores came from.
	c := clitest.ReadCalibrator(t, f.wsCal)
	if c.Bank == nil || c.Bank.Name != "quality" || c.Bank.Source != "builtin:quality" || c.Judge == nil || c.Judge.Name != "offline" ||
		c.Judge.Backend != "offline" || c.Judge.Runs != 1 || c.Training.Dataset != "demo" || c.PrismVersion != model.Version {
		t.Errorf("provenance: bank %+v judge %+v training %+v version %q", c.Bank, c.Judge, c.Training, c.PrismVersion)
	}
}

// --scale human adds the monotone map's values: ranks and the transfer
// check are unchanged.
func TestScoreHumanScaleKeepsRanks(t *testing.T) {
	f := scoreFixture(t)
	args := []string{"--calibrator", f.cal["prism"], "--scores", f.newS, "--labels", f.newL}
	h0, r0, _ := jsonlOutput(t, args...)
	h1, r1, _ := jsonlOutput(t, append(args, "--scale", "human")...)
	if len(r0) != 60 || len(r1) != 60 {
		t.Fatalf("%d and %d rows", len(r0), len(r1))
	}
	a, _ := json.Marshal(h0["transfer"])
	b, _ := json.Marshal(h1["transfer"])
	if !bytes.Equal(a, b) {
		t.Errorf("transfer check changed under --scale human:\n%s\n%s", a, b)
	}
	if h1["human_scale"] != true || h0["human_scale"] != false {
		t.Errorf("human_scale %v / %v", h0["human_scale"], h1["human_scale"])
	}
	c := clitest.ReadCalibrator(t, f.cal["prism"])
	for i := range r0 {
		if r0[i]["rank_after"] != r1[i]["rank_after"] || r0[i]["corrected"] != r1[i]["corrected"] {
			t.Errorf("row %d: rank_after %v → %v, corrected %v → %v", i, r0[i]["rank_after"], r1[i]["rank_after"], r0[i]["corrected"], r1[i]["corrected"])
		}
		if _, ok := r0[i]["human_scale"]; ok {
			t.Errorf("row %d has human_scale without --scale human", i)
		}
		hs, ok := r1[i]["human_scale"].(float64)
		if !ok || hs != c.HumanScale.At(r1[i]["corrected"].(float64)) {
			t.Errorf("row %d: human_scale %v", i, r1[i]["human_scale"])
		}
	}
	// Without labels: no human column and no transfer check.
	h2, r2, errOut := jsonlOutput(t, "--calibrator", f.cal["prism"], "--scores", f.newS)
	if _, ok := r2[0]["human"]; ok || h2["transfer"] != nil || h2["labelled"].(float64) != 0 || !strings.Contains(errOut, "no labels: no transfer check") {
		t.Errorf("unlabelled: header %v, first row %v, stderr %q", h2, r2[0], errOut)
	}
	// The map is increasing: the human-scale values order the candidates
	// of a context as the corrected scores do.
	for i := range r1 {
		for j := range r1 {
			ci, cj := r1[i]["corrected"].(float64), r1[j]["corrected"].(float64)
			hi, hj := r1[i]["human_scale"].(float64), r1[j]["human_scale"].(float64)
			if (ci < cj) != (hi < hj) || (ci == cj) != (hi == hj) {
				t.Fatalf("rows %d, %d: corrected %v, %v but human scale %v, %v", i, j, ci, cj, hi, hj)
			}
		}
	}
}

// A scoring judge configuration other than the calibrator's is refused
// naming the field; --allow-mismatch scores and records it.
func TestScoreMismatchRefusedOrRecorded(t *testing.T) {
	f := scoreFixture(t)
	ws := copyWorkspace(t, f.ws)
	out := filepath.Join(t.TempDir(), "out.csv")
	code, _, errOut := clitest.RunCmd("score", "--calibrator", f.wsCalCov, "--workspace", ws, "--mode", "expected", "-o", out)
	if code != 1 || !strings.Contains(errOut, "mode: integer (calibrator) vs expected") || !strings.Contains(errOut, "--allow-mismatch") {
		t.Errorf("mismatch: exit %d, stderr %q", code, errOut)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("-o written on a refused mismatch: %v", err)
	}
	code, stdout, errOut := clitest.RunCmd("score", "--calibrator", f.wsCalCov, "--workspace", ws, "--mode", "expected", "--allow-mismatch", "-o", out)
	if code != 0 {
		t.Fatalf("--allow-mismatch: exit %d: %s", code, errOut)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, notes := parseScoredCSV(t, string(data)), scoredNotes(t, out)
	if !slices.Contains(notes, "mismatch (--allow-mismatch): mode: integer (calibrator) vs expected") || len(got.rows) != 60 {
		t.Errorf("notes %q, %d rows", notes, len(got.rows))
	}
	// The changed configuration is stored under the name prism run gives it.
	if !strings.Contains(stdout, `→ judge "offline-expected"`) || !strings.Contains(stdout, "300 to send") {
		t.Errorf("stdout:\n%s", stdout)
	}
}

// rewriteCalibrator edits a calibrator file's JSON with edit and, when
// reseal, recomputes its checksum as prism writes it (so that only the
// edit's own check can fail).
func rewriteCalibrator(t *testing.T, src, dst string, reseal bool, edit func(*calib.Calibrator)) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var c calib.Calibrator
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	edit(&c)
	if reseal {
		c.Checksum = ""
		compact, err := json.Marshal(&c)
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.Sum256(compact)
		c.Checksum = "sha256:" + hex.EncodeToString(h[:])
	}
	out, err := json.MarshalIndent(&c, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Bad input: clear errors naming the file and field, and -o is never
// written.
func TestScoreBadInput(t *testing.T) {
	f := scoreFixture(t)
	dir := t.TempDir()
	cal := f.cal["prism"]
	calData, _ := os.ReadFile(cal)
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	newer := strings.Replace(string(calData), `"schema": 1,`, `"schema": 2,`, 1)
	edited := filepath.Join(dir, "edited.json")
	rewriteCalibrator(t, cal, edited, false, func(c *calib.Calibrator) { c.Beta[0] += 1e-9 })
	bankEdited := filepath.Join(dir, "bank-edited.json")
	rewriteCalibrator(t, f.wsCal, bankEdited, true, func(c *calib.Calibrator) {
		c.Bank.TOML = strings.Replace(c.Bank.TOML, "more heavily than you normally would", "much more heavily than you normally would", 1)
	})
	newScores, _ := os.ReadFile(f.newS)
	var noBase, noProbe, single strings.Builder
	for i, line := range strings.SplitAfter(string(newScores), "\n") {
		if i > 0 && !strings.Contains(line, ",baseline,") {
			noBase.WriteString(line)
		} else if i == 0 {
			noBase.WriteString(line)
		}
		if i == 0 || !strings.HasPrefix(line, "doc13,sys2,") || strings.Contains(line, ",baseline,") || strings.Contains(line, ",neutral:") {
			noProbe.WriteString(line)
		}
		if i == 0 || !strings.HasPrefix(line, "doc15,") || strings.HasPrefix(line, "doc15,sys4,") {
			single.WriteString(line)
		}
	}
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"newer schema", []string{"--calibrator", write("newer.json", newer), "--scores", f.newS},
			[]string{"newer.json", `field "schema"`, "newer prism"}},
		{"edited number", []string{"--calibrator", edited, "--scores", f.newS},
			[]string{"edited.json", `field "checksum"`, "edited or damaged"}},
		{"edited bank", []string{"--calibrator", bankEdited, "--scores", f.newS},
			[]string{"bank-edited.json", `field "bank.hash"`, "bank text was edited"}},
		{"truncated", []string{"--calibrator", write("trunc.json", string(calData[:len(calData)/2])), "--scores", f.newS},
			[]string{"trunc.json", "truncated"}},
		{"not a calibrator", []string{"--calibrator", write("other.json", `{"kind": "something"}`), "--scores", f.newS},
			[]string{"other.json", `field "kind"`}},
		{"no baseline", []string{"--calibrator", cal, "--scores", write("nobase.csv", noBase.String())},
			[]string{"nobase.csv", `field "probe"`, `no "baseline" rows`}},
		{"no probe scores", []string{"--calibrator", cal, "--scores", write("noprobe.csv", noProbe.String())},
			[]string{"noprobe.csv:", `candidate "sys2" of context "doc13"`, "no score under any probe"}},
		{"one candidate", []string{"--calibrator", cal, "--scores", write("single.csv", single.String())},
			[]string{"single.csv:", `field "context"`, `context "doc15" has one candidate`}},
		{"no bank for a workspace", []string{"--calibrator", cal, "--workspace", f.ws},
			[]string{cal, `field "bank"`, "--scores"}},
		{"human scale missing", []string{"--calibrator", write("nomap.json", string(mustReseal(t, cal, func(c *calib.Calibrator) {
			c.HumanScale, c.HumanScaleNote = nil, "no map (test)"
		}))), "--scores", f.newS, "--scale", "human"}, []string{"nomap.json", `field "human_scale"`}},
	} {
		out := filepath.Join(dir, "out-"+strings.ReplaceAll(tc.name, " ", "-")+".csv")
		code, _, errOut := clitest.RunCmd(append([]string{"score", "-o", out}, tc.args...)...)
		if code != 1 {
			t.Errorf("%s: exit %d, want 1; stderr %q", tc.name, code, errOut)
		}
		for _, w := range tc.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%s: stderr %q lacks %q", tc.name, errOut, w)
			}
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s: -o %s exists after the error", tc.name, out)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--scores", f.newS}, "--calibrator FILE is required"},
		{[]string{"--calibrator", cal, "--labels", f.newL}, "--labels goes with --scores"},
		{[]string{"--calibrator", cal, "--scores", f.newS, "--model", "m"}, "--model: workspace flags"},
		{[]string{"--calibrator", cal, "--scores", f.newS, "--format", "xml"}, `--format "xml"`},
		{[]string{"--calibrator", cal, "--scores", f.newS, "--scale", "stars"}, `--scale "stars"`},
	} {
		code, _, errOut := clitest.RunCmd(append([]string{"score"}, tc.args...)...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("prism score %v: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

func mustReseal(t *testing.T, src string, edit func(*calib.Calibrator)) []byte {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "c.json")
	rewriteCalibrator(t, src, dst, true, edit)
	data, err := os.ReadFile(dst)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// prism fit --save: reproducible to the bit, refusals, and nothing
// written on an error.
func TestFitSave(t *testing.T) {
	f := scoreFixture(t)
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	for _, p := range []string{a, b} {
		code, _, errOut := clitest.RunCmd("fit", "--scores", f.trainS, "--labels", f.trainL, "--bootstrap", "20", "--save", p)
		if code != 0 || !strings.Contains(errOut, "saved calibrator "+p+" (prism, γ ") {
			t.Fatalf("exit %d: %s", code, errOut)
		}
	}
	da, _ := os.ReadFile(a)
	db, _ := os.ReadFile(b)
	if !bytes.Equal(da, db) {
		t.Error("two fits of the same input wrote different calibrators")
	}
	// --attributes: the calibrator reads only those units' probes.
	sub := filepath.Join(dir, "sub.json")
	code, out, errOut := clitest.RunCmd("fit", "--scores", f.trainS, "--labels", f.trainL, "--bootstrap", "20", "--save", sub, "--attributes", "tone,ctx:expert", "--json")
	if code != 0 {
		t.Fatalf("--attributes: exit %d: %s", code, errOut)
	}
	var rep calib.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	c := clitest.ReadCalibrator(t, sub)
	if !slices.Equal(c.Probes(), []string{"baseline", "tone:+", "tone:-", "ctx:expert"}) || !slices.Equal(rep.Columns, c.Columns) {
		t.Errorf("--attributes tone,ctx:expert: probes %v, report columns %v", c.Probes(), rep.Columns)
	}
	// --global saves a globally centered calibrator.
	glob := filepath.Join(dir, "global.json")
	if code, _, errOut := clitest.RunCmd("fit", "--scores", f.trainS, "--labels", f.trainL, "--bootstrap", "20", "--save", glob, "--global"); code != 0 {
		t.Fatalf("--global: exit %d: %s", code, errOut)
	}
	if c := clitest.ReadCalibrator(t, glob); c.Centering != calib.CenterGlobal || c.GlobalCentering == nil {
		t.Errorf("--global: centering %s", c.Centering)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--bank", "quality"}, 2, "give --save too"},
		{[]string{"--method", "half"}, 2, "give --save FILE too"},
		{[]string{"--save", filepath.Join(dir, "x.json"), "--method", "ridge"}, 2, `--method "ridge"`},
		{[]string{"--save", filepath.Join(dir, "x.json"), "--bank", "quality"}, 1, `"len:+" is not a probe of the embedded bank quality`},
		{[]string{"--save", filepath.Join(dir, "x.json"), "--attributes", "len,nosuch"}, 1, `attribute "nosuch": no score rows`},
	} {
		code, _, errOut := clitest.RunCmd(append([]string{"fit", "--scores", f.trainS, "--labels", f.trainL, "--bootstrap", "5"}, tc.args...)...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("prism fit %v: exit %d, stderr %q; want %d and %q", tc.args, code, errOut, tc.code, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x.json")); !os.IsNotExist(err) {
		t.Error("a failed --save left a file")
	}
}
