package score

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/shareddata"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
	"github.com/prism-eval/prism/ui/cli/internal/clitest"
)

// Fixtures shared by the score tests, built once per package run by
// scoreFixture and removed by TestMain (cleanupFixtures).
var fixtures struct {
	once sync.Once
	f    *scoreFix
	err  error
}

type scoreFix struct {
	// ws holds the demo dataset answered by the offline judge under the
	// quality bank (one run); tests that write copy it (copyWorkspace).
	ws         string
	wsCal      string  // prism fit --save from ws (prism, 200 resamples)
	wsCalCov   string  // the same on the coverage attribute alone (5 of the 38 conditions)
	fitVanilla float64 // prism fit --json on ws: methods.vanilla.mean
	// Synthetic scores and labels (attributes len and tone, context probe
	// ctx:expert, a neutral clause): contexts doc00–doc11 train, doc12–doc23
	// are new. Each half has missing cells.
	trainS, trainL, newS, newL string
	cal                        map[string]string // method → calibrator fitted on train
}

func scoreFixture(t *testing.T) *scoreFix {
	t.Helper()
	fixtures.once.Do(func() { fixtures.f, fixtures.err = buildScoreFixture() })
	if fixtures.err != nil {
		t.Fatal(fixtures.err)
	}
	return fixtures.f
}

func buildScoreFixture() (*scoreFix, error) {
	dir, err := clitest.TempDirOnce("prism-score-test")
	if err != nil {
		return nil, err
	}
	f := &scoreFix{ws: filepath.Join(dir, "demo.db"), wsCal: filepath.Join(dir, "demo-cal.json"), cal: map[string]string{}}
	run := func(args ...string) (string, error) {
		var out, errb bytes.Buffer
		if code := clikit.RunMain(context.Background(), args, &out, &errb); code != 0 {
			return "", fmt.Errorf("prism %s: exit %d\n%s%s", strings.Join(args, " "), code, out.String(), errb.String())
		}
		return out.String(), nil
	}
	if _, err := run("data", "import", "demo", "--workspace", f.ws); err != nil {
		return nil, err
	}
	if _, err := run("run", "--workspace", f.ws, "--bank", "quality"); err != nil {
		return nil, err
	}
	out, err := run("fit", "--workspace", f.ws, "--bootstrap", "200", "--json", "--save", f.wsCal)
	if err != nil {
		return nil, err
	}
	var rep calib.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		return nil, err
	}
	f.fitVanilla = rep.Methods.Vanilla.Mean
	f.wsCalCov = filepath.Join(dir, "demo-cal-coverage.json")
	if _, err := run("fit", "--workspace", f.ws, "--bootstrap", "20", "--attributes", "coverage", "--save", f.wsCalCov); err != nil {
		return nil, err
	}

	var s [2]strings.Builder
	var l [2]strings.Builder
	for h := range 2 {
		s[h].WriteString("context,candidate,probe,score,run,wording\n")
		l[h].WriteString("context,candidate,human\n")
	}
	for g := 0; g < 24; g++ {
		h := g / 12
		for i := 0; i < 5; i++ {
			a := math.Sin(float64(7*g+3*i+1) * 1.7)
			b := math.Cos(float64(5*g+11*i+2) * 2.3)
			s0 := 3 + a + 0.1*b
			ctx, cand := fmt.Sprintf("doc%02d", g), fmt.Sprintf("sys%d", i)
			fmt.Fprintf(&l[h], "%s,%s,%.6f\n", ctx, cand, a+b)
			fmt.Fprintf(&s[h], "%s,%s,baseline,%.6f,1,0\n", ctx, cand, s0)
			fmt.Fprintf(&s[h], "%s,%s,baseline,%.6f,2,0\n", ctx, cand, s0+0.01*float64(i))
			fmt.Fprintf(&s[h], "%s,%s,len:+,%.6f,1,0\n", ctx, cand, s0+0.3*a)
			if g == 14 && i == 3 {
				fmt.Fprintf(&s[h], "%s,%s,len:-,,1,0\n", ctx, cand) // an empty score: imputed
			} else {
				fmt.Fprintf(&s[h], "%s,%s,len:-,%.6f,1,0\n", ctx, cand, s0-0.3*a+0.02*b)
			}
			if !(g == 12 && i == 1) { // no tone:+ row: imputed
				fmt.Fprintf(&s[h], "%s,%s,tone:+,%.6f,1,0\n", ctx, cand, s0+0.5*b)
			}
			fmt.Fprintf(&s[h], "%s,%s,tone:-,%.6f,1,1\n", ctx, cand, s0-0.4*b)
			fmt.Fprintf(&s[h], "%s,%s,neutral:calm,%.6f,1,0\n", ctx, cand, s0)
			if !(g == 0 && i == 0) { // a missing training cell
				fmt.Fprintf(&s[h], "%s,%s,ctx:expert,%.6f,1,0\n", ctx, cand, s0+0.05*a-0.03*b)
			}
		}
	}
	f.trainS, f.trainL = filepath.Join(dir, "train-s.csv"), filepath.Join(dir, "train-l.csv")
	f.newS, f.newL = filepath.Join(dir, "new-s.csv"), filepath.Join(dir, "new-l.csv")
	for i, p := range []string{f.trainS, f.newS} {
		if err := os.WriteFile(p, []byte(s[i].String()), 0o644); err != nil {
			return nil, err
		}
	}
	for i, p := range []string{f.trainL, f.newL} {
		if err := os.WriteFile(p, []byte(l[i].String()), 0o644); err != nil {
			return nil, err
		}
	}
	for _, m := range []string{"prism", "alpha_prism", "half", "taylor"} {
		p := filepath.Join(dir, "cal-"+m+".json")
		if _, err := run("fit", "--scores", f.trainS, "--labels", f.trainL, "--bootstrap", "20", "--save", p, "--method", m); err != nil {
			return nil, err
		}
		f.cal[m] = p
	}
	return f, nil
}

// copyWorkspace copies the fixture workspace for a test that writes to it.
func copyWorkspace(t *testing.T, ws string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "ws.db")
	for _, suffix := range []string{"", "-wal", "-shm"} {
		data, err := os.ReadFile(ws + suffix)
		if os.IsNotExist(err) && suffix != "" {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst+suffix, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// scoredCSV is prism score's CSV output: the # lines and the records by
// column name.
type scoredCSV struct {
	notes []string
	head  []string
	rows  []map[string]string
}

func parseScoredCSV(t *testing.T, data string) scoredCSV {
	t.Helper()
	var out scoredCSV
	var body strings.Builder
	for _, line := range strings.SplitAfter(data, "\n") {
		if strings.HasPrefix(line, "#") {
			out.notes = append(out.notes, strings.TrimSpace(strings.TrimPrefix(line, "#")))
			continue
		}
		body.WriteString(line)
	}
	recs, err := csv.NewReader(strings.NewReader(body.String())).ReadAll()
	if err != nil {
		t.Fatalf("output CSV: %v\n%s", err, data)
	}
	if len(recs) == 0 {
		t.Fatalf("no CSV header:\n%s", data)
	}
	out.head = recs[0]
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, h := range out.head {
			m[h] = r[i]
		}
		out.rows = append(out.rows, m)
	}
	return out
}

func numOf(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return v
}

// handScores computes every candidate's corrected score from the
// calibrator file's own numbers, independently of calib.Apply: average
// each probe's scores, fill a missing cell with the file's training mean,
// form J (s+ − s0, s0 − s−, sc − s0), center it within each context, and
// evaluate α s0 − J̃β (prism, alpha_prism), s0 − Õδ (half) or
// s0 − (Õδ − H̃δ²/2) (taylor).
func handScores(t *testing.T, c *calib.Calibrator, rows []model.ScoreRow) map[[2]string]float64 {
	t.Helper()
	type cell struct{ sum, n float64 }
	col := map[string]int{}
	for i, p := range c.ScoreColumns {
		col[p] = i
	}
	cells := map[[2]string][]cell{}
	for _, r := range rows {
		k := [2]string{r.Context, r.Candidate}
		if cells[k] == nil {
			cells[k] = make([]cell, len(c.ScoreColumns))
		}
		i, ok := col[r.Probe]
		if !ok || r.Missing {
			continue
		}
		cells[k][i].sum += r.Score
		cells[k][i].n++
	}
	byCtx := map[string][][2]string{}
	for k := range cells {
		byCtx[k[0]] = append(byCtx[k[0]], k)
	}
	q, K := len(c.Columns), len(c.Attributes)
	out := map[[2]string]float64{}
	for _, ks := range byCtx {
		n := len(ks)
		s0 := make([]float64, n)
		J := make([][]float64, n)
		for i, k := range ks {
			sc := make([]float64, len(c.ScoreColumns))
			for j, cl := range cells[k] {
				if cl.n > 0 {
					sc[j] = cl.sum / cl.n
				} else {
					sc[j] = c.Means[j]
				}
			}
			s0[i] = sc[0]
			J[i] = make([]float64, q)
			for j, name := range c.Columns {
				ci, ok := col[name]
				if !ok {
					continue // half, taylor: context columns unused
				}
				if strings.HasSuffix(name, ":-") {
					J[i][j] = sc[0] - sc[ci]
				} else {
					J[i][j] = sc[ci] - sc[0]
				}
			}
		}
		center := func(v []float64) {
			var m float64
			for _, x := range v {
				m += x
			}
			m /= float64(len(v))
			for i := range v {
				v[i] -= m
			}
		}
		Jc := make([][]float64, q)
		for j := range q {
			Jc[j] = make([]float64, n)
			for i := range n {
				Jc[j][i] = J[i][j]
			}
			center(Jc[j])
		}
		O, H := make([][]float64, K), make([][]float64, K)
		for k := range K {
			O[k], H[k] = make([]float64, n), make([]float64, n)
			for i := range n {
				O[k][i] = (J[i][2*k] + J[i][2*k+1]) / 2
				H[k][i] = J[i][2*k] - J[i][2*k+1]
			}
			center(O[k])
			center(H[k])
		}
		for i, k := range ks {
			y := c.Alpha * s0[i]
			switch c.Method {
			case "prism", "alpha_prism":
				for j := range q {
					y -= Jc[j][i] * c.Beta[j]
				}
			case "half":
				for a := range K {
					y -= O[a][i] * c.Delta[a]
				}
			case "taylor":
				for a := range K {
					y -= O[a][i]*c.Delta[a] - H[a][i]*c.Delta[a]*c.Delta[a]/2
				}
			}
			out[k] = y
		}
	}
	return out
}

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
		if !slices.Contains(got.notes, "imputed: 2 score cells in 2 candidates filled with the calibrator's training means (len:- 1, tone:+ 1)") {
			t.Errorf("%s: notes %q lack the imputed count", m, got.notes)
		}
		if !slices.ContainsFunc(got.notes, func(s string) bool { return strings.Contains(s, "need not lie on the human scale") }) {
			t.Errorf("%s: notes %q do not say corrected scores need not lie on the human scale", m, got.notes)
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
	got := parseScoredCSV(t, string(data))
	if !slices.Contains(got.notes, "mismatch (--allow-mismatch): mode: integer (calibrator) vs expected") || len(got.rows) != 60 {
		t.Errorf("notes %q, %d rows", got.notes, len(got.rows))
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

// prism score on a workspace dataset sends exactly the calibrator's
// conditions (baseline and its probe wordings; no other attribute, no
// neutral clause) once per candidate and run, and a rerun sends nothing.
func TestScoreWorkspaceSendsOnlyCalibratorProbes(t *testing.T) {
	ws, cal, _, srv := clitest.ServerStudy(t, 5)
	c := clitest.ReadCalibrator(t, cal)
	if !slices.Equal(c.Probes(), []string{"baseline", "coverage:+", "coverage:-"}) || c.Judge == nil || c.Judge.Backend != "openai" || c.Judge.Model != "m" {
		t.Fatalf("calibrator probes %v, judge %+v", c.Probes(), c.Judge)
	}
	before, n0 := srv.Counts()
	out := filepath.Join(t.TempDir(), "fresh.csv")
	code, stdout, errOut := clitest.RunCmd("score", "--calibrator", cal, "--workspace", ws, "--dataset", "fresh", "-o", out, "--concurrency", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, stdout, errOut)
	}
	after, n1 := srv.Counts()
	sent := map[string]int{}
	for p, v := range after {
		if d := v - before[p]; d != 0 {
			sent[p] = d
		}
	}
	// 15 candidates × (1 baseline + 2 wordings × 2 signs) × 1 run.
	want := map[string]int{"baseline": 15, "coverage:+": 30, "coverage:-": 30}
	if n1-n0 != 75 || len(sent) != len(want) || sent["baseline"] != 15 || sent["coverage:+"] != 30 || sent["coverage:-"] != 30 {
		t.Errorf("sent %d requests per probe %v, want 75: %v", n1-n0, sent, want)
	}
	if !strings.Contains(stdout, "(5 of its 10 conditions: 3 probes baseline coverage:+ coverage:-") || !strings.Contains(stdout, "0 answered, 0 from cache, 75 to send") {
		t.Errorf("estimate:\n%s", stdout)
	}
	first, _ := os.ReadFile(out)
	if got := parseScoredCSV(t, string(first)); len(got.rows) != 15 || got.head[len(got.head)-1] != "term:coverage" {
		t.Errorf("%d rows, header %v", len(got.rows), got.head)
	}
	// A rerun sends nothing and writes the same scores.
	code, stdout, errOut = clitest.RunCmd("score", "--calibrator", cal, "--workspace", ws, "--dataset", "fresh", "-o", out)
	if code != 0 {
		t.Fatalf("rerun: exit %d: %s", code, errOut)
	}
	if _, n2 := srv.Counts(); n2 != n1 || !strings.Contains(stdout, "75 answered, 0 from cache, 0 to send") {
		t.Errorf("rerun sent %d requests:\n%s", n2-n1, stdout)
	}
	second, _ := os.ReadFile(out)
	if !bytes.Equal(first, second) {
		t.Error("the rerun wrote other scores")
	}
	// An -o FILE ending in .jsonl selects JSON Lines.
	jl := filepath.Join(t.TempDir(), "fresh.jsonl")
	if code, _, errOut := clitest.RunCmd("score", "--calibrator", cal, "--workspace", ws, "--dataset", "fresh", "-o", jl); code != 0 {
		t.Fatalf("-o .jsonl: exit %d: %s", code, errOut)
	}
	if data, _ := os.ReadFile(jl); !bytes.HasPrefix(data, []byte(`{"header":{`)) || bytes.Count(data, []byte("\n")) != 16 {
		t.Errorf("-o fresh.jsonl:\n%s", data)
	}
	// --dry-run prints the estimate of another dataset and sends nothing.
	code, stdout, errOut = clitest.RunCmd("score", "--calibrator", cal, "--workspace", ws, "--dataset", "train", "--dry-run")
	if _, n3 := srv.Counts(); code != 0 || n3 != n1 || stdout != "" || !strings.Contains(errOut, "120 answered, 0 from cache, 0 to send") {
		t.Errorf("dry run on the training data: exit %d, sent %d:\n%s%s", code, n3-n1, stdout, errOut)
	}
	// Another model is refused, naming the field.
	code, _, errOut = clitest.RunCmd("score", "--calibrator", cal, "--workspace", ws, "--dataset", "fresh", "--model", "m2", "--dry-run")
	if code != 1 || !strings.Contains(errOut, "model: m (calibrator) vs m2") {
		t.Errorf("--model m2: exit %d, stderr %q", code, errOut)
	}
}

// An interrupted prism score (ctrl+c) stores what was answered; the rerun
// sends only the rest: no answered request twice, beyond the few in
// flight at the interrupt.
func TestScoreResumesAfterInterrupt(t *testing.T) {
	ws, cal, _, srv := clitest.ServerStudy(t, 20) // 60 candidates × 5 conditions = 300 requests
	_, n0 := srv.Counts()
	ctx, cancel := context.WithCancel(context.Background())
	srv.Mu.Lock()
	srv.After, srv.AfterN = make(chan struct{}), n0+100
	after := srv.After
	srv.Mu.Unlock()
	go func() {
		<-after
		cancel()
	}()
	args := []string{"score", "--calibrator", cal, "--workspace", ws, "--dataset", "fresh", "--concurrency", "2", "-o", filepath.Join(t.TempDir(), "x.csv")}
	var out, errb bytes.Buffer
	code := clikit.RunMain(ctx, args, &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "rerun the same command to resume") || !strings.Contains(errb.String(), "prism score --calibrator") {
		t.Fatalf("interrupted: exit %d\n%s", code, errb.String())
	}
	_, n1 := srv.Counts()
	code, stdout, errOut := clitest.RunCmd(args...)
	if code != 0 {
		t.Fatalf("resume: exit %d: %s", code, errOut)
	}
	_, n2 := srv.Counts()
	srv.Mu.Lock()
	twice := 0
	for _, v := range srv.PerID {
		if v > 1 {
			twice++
		}
	}
	distinct := len(srv.PerID)
	srv.Mu.Unlock()
	t.Logf("interrupt after %d requests; the resume sent %d; %d requests sent twice", n1-n0, n2-n1, twice)
	if distinct != 240+300 {
		t.Errorf("%d distinct requests answered, want 540 (240 training + 300 scoring)", distinct)
	}
	// Up to --concurrency (2) answers can be in flight at the interrupt.
	if twice > 2 || n2-n0 > 300+2 {
		t.Errorf("%d requests sent twice, %d sent in all for 300: more than the 2 in flight", twice, n2-n0)
	}
	if !strings.Contains(stdout, "to send") {
		t.Errorf("resume output:\n%s", stdout)
	}
}

// The crash test of prism score, as TestRunSurvivesSIGKILL for prism run:
// a prism score child is SIGKILLed mid-run and rerun. Every answer
// committed before the kill is never requested again, no more than the
// --concurrency requests in flight are sent twice, and the rerun writes
// every candidate's score.
func TestScoreSurvivesSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	srv := clitest.NewPrismServer(t, 4*time.Millisecond)
	ws, cal := clitest.ServerStudyAt(t, 60, srv.URL) // fresh: 180 candidates × 5 conditions = 900 requests
	dir := t.TempDir()
	out := filepath.Join(dir, "scored.csv")
	args := []string{"score", "--calibrator", cal, "--workspace", ws, "--dataset", "fresh", "--concurrency", "4", "-o", out}
	child := func(log string) *exec.Cmd {
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), "PRISM_TEST_AS_MAIN=1")
		f, err := os.Create(filepath.Join(dir, log))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		cmd.Stdout, cmd.Stderr = f, f
		return cmd
	}
	trained := len(srv.Snapshot())
	if trained != 240 {
		t.Fatalf("training: %d requests answered, want 240", trained)
	}
	clitest.KillAt(t, child("first.log"), srv.At(trained+300), filepath.Join(dir, "first.log"), "prism score ended before 300 answers")
	srv.Idle()
	answeredAtKill := srv.Snapshot()
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("-o %s exists after the kill: %v", out, err)
	}
	st, err := store.Open(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	committed, err := st.Scores(context.Background(), "fresh", "m", "")
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(committed) == 0 || len(committed) >= 900 {
		t.Fatalf("%d answers committed at the kill; the test wants a kill mid-run", len(committed))
	}
	if err := child("second.log").Run(); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "second.log"))
		t.Fatalf("rerun: %v\n%s", err, log)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if got := parseScoredCSV(t, string(data)); len(got.rows) != 180 {
		t.Fatalf("the rerun scored %d candidates, want 180", len(got.rows))
	}

	// Map stored coordinates to server identities through the same plan.
	st, err = store.Open(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	d, err := st.Dataset(context.Background(), "fresh")
	if err != nil {
		t.Fatal(err)
	}
	c := clitest.ReadCalibrator(t, cal)
	b, err := c.ParsedBank()
	if err != nil {
		t.Fatal(err)
	}
	cfg := study.ConfigOf(c.Judge)
	plan, err := engine.NewPlan(context.Background(), st, engine.Spec{Dataset: d, Bank: b, JudgeName: "m", Config: cfg, Repeats: 1, Probes: c.Probes()})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Items) != 900 || plan.Estimate.Answered != 900 {
		t.Fatalf("after the rerun the store holds %d of %d answers", plan.Estimate.Answered, len(plan.Items))
	}
	idOf := map[string]string{}
	for i, it := range plan.Items {
		req, err := plan.Request(i)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := engine.ChatBody(cfg, req, int(it.Run))
		idOf[plan.Row(&it).Context+"|"+plan.Row(&it).Candidate+"|"+plan.Row(&it).Probe+"|"+plan.Row(&it).Wording] = clitest.RequestIdentity(body)
	}
	final := srv.Snapshot()
	for _, row := range committed {
		id := idOf[row.Context+"|"+row.Candidate+"|"+row.Probe+"|"+row.Wording]
		if id == "" || final[id] != answeredAtKill[id] {
			t.Errorf("%s/%s %s: committed before the kill, yet answered again (%d → %d)", row.Context, row.Candidate, row.Probe, answeredAtKill[id], final[id])
		}
	}
	resent := 0
	for _, id := range idOf {
		if final[id] == 0 {
			t.Errorf("request %s never answered by the server, yet stored", id[:8])
		}
		if final[id] > 1 {
			resent++
		}
	}
	t.Logf("kill after %d scoring answers: %d committed; the rerun re-sent %d", len(answeredAtKill)-trained, len(committed), resent)
	if resent > 4 {
		t.Errorf("%d requests re-sent after the kill, more than the 4 in flight (--concurrency 4)", resent)
	}
}

// On the real SummEval with the offline judge: a calibrator on three
// attributes plans exactly baseline + its 12 probe wordings per candidate
// (no neutral clause, no other attribute), and applied to its own
// training data its transfer check's Vanilla agreement is prism fit's
// Vanilla mean exactly, marked in-sample.
func TestScoreSummEval(t *testing.T) {
	path := shareddata.Path(t, "summeval/data.json")
	if testing.Short() || clitest.RaceEnabled {
		t.Skip("60,800 requests and a full fit: not in -short or -race runs")
	}
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws.db")
	clitest.MustRun(t, "data", "import", "summeval", path, "--name", "summeval", "--workspace", ws)
	clitest.MustRun(t, "run", "--workspace", ws, "--bank", "quality")
	cal := filepath.Join(dir, "cal.json")
	out, _ := clitest.MustRun(t, "fit", "--workspace", ws, "--attributes", "coverage,coherence,fluency", "--bootstrap", "200", "--json", "--save", cal)
	var rep calib.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	header, rows, errOut := jsonlOutput(t, "--calibrator", cal, "--workspace", ws)
	wall := time.Since(start)
	tr := header["transfer"].(map[string]any)
	base := tr["baseline"].(map[string]any)["mean"].(float64)
	corr := tr["corrected"].(map[string]any)["mean"].(float64)
	t.Logf("SummEval: fit Vanilla %.6f, PRISM (nested CV) %.4f; score: baseline %.6f, corrected (in-sample) %.4f; scoring 1,600 stored candidates took %v",
		rep.Methods.Vanilla.Mean, rep.Methods.PRISM.Mean, base, corr, wall)
	if base != rep.Methods.Vanilla.Mean || len(rows) != 1600 {
		t.Errorf("transfer baseline %v, fit Vanilla %v (want equal); %d rows", base, rep.Methods.Vanilla.Mean, len(rows))
	}
	for _, want := range []string{"1600 of 1600 scored candidates were training candidates of the calibrator: the corrected agreement below is in-sample",
		"(13 of its 38 conditions: 7 probes", "20800 answered, 0 from cache, 0 to send"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	// Under another judge name the calibrator's conditions are acquired
	// again (from the cache: the messages are the same): per probe,
	// exactly candidates × wordings.
	clitest.MustRun(t, "score", "--calibrator", cal, "--workspace", ws, "--judge", "again", "-o", filepath.Join(dir, "again.csv"))
	st, err := store.OpenReadOnly(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	stored, err := st.Scores(context.Background(), "summeval", "again", "")
	if err != nil {
		t.Fatal(err)
	}
	perProbe := map[string]int{}
	for _, r := range stored {
		perProbe[r.Probe]++
	}
	want := map[string]int{"baseline": 1600}
	for _, a := range []string{"coverage", "coherence", "fluency"} {
		want[a+":+"], want[a+":-"] = 3200, 3200
	}
	if len(perProbe) != len(want) {
		t.Errorf("stored per probe %v, want %v", perProbe, want)
	}
	for p, n := range want {
		if perProbe[p] != n {
			t.Errorf("probe %s: %d answers stored, want %d", p, perProbe[p], n)
		}
	}
}

// TestScoreImportedScores checks a calibrator fitted on imported scores
// (a judge without a bank): prism score on a workspace dataset scores that
// judge's stored answers and sends nothing, and says so.
func TestScoreImportedScores(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "study.db")
	in := filepath.Join(dir, "in.csv")
	// Scores recorded elsewhere: the offline judge's, exported from
	// another workspace.
	other := filepath.Join(dir, "other.db")
	clitest.MustRun(t, "data", "import", "demo", "--workspace", other)
	clitest.MustRun(t, "run", "--workspace", other, "--bank", "style7")
	clitest.MustRun(t, "export", "scores", "--workspace", other, "-o", in)
	clitest.MustRun(t, "data", "import", "demo", "--workspace", ws)
	clitest.MustRun(t, "import", "scores", "--dataset", "demo", "--judge", "external", in, "--workspace", ws)
	cal := filepath.Join(dir, "cal.json")
	clitest.MustRun(t, "fit", "--workspace", ws, "--judge", "external", "--bootstrap", "20", "--save", cal)
	out, errOut := clitest.MustRun(t, "score", "--workspace", ws, "--calibrator", cal, "--dataset", "demo")
	if !strings.Contains(errOut, "fitted on imported scores (no probe bank): scoring the stored answers of judge external on dataset demo; nothing is sent") {
		t.Errorf("stderr:\n%s", errOut)
	}
	// The demo has 12 contexts × 5 candidates: one row each.
	if n := strings.Count(out, "\n") - strings.Count(out, "\n#") - 2; n != 60 {
		t.Errorf("%d candidate rows, want 60:\n%s", n, out)
	}
	if !strings.Contains(errOut, "60 of 60 scored candidates were training candidates") {
		t.Errorf("in-sample not said:\n%s", errOut)
	}
}
