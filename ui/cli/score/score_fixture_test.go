package score

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/model"
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

// scoredCSV is prism score's CSV output: the records by column name. The
// CSV is plain (header first); its notes are in the sidecar (scoredNotes).
type scoredCSV struct {
	head []string
	rows []map[string]string
}

func parseScoredCSV(t *testing.T, data string) scoredCSV {
	t.Helper()
	var out scoredCSV
	recs, err := csv.NewReader(strings.NewReader(data)).ReadAll()
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

// scoredNotes are the notes prism score wrote beside its CSV -o out.
func scoredNotes(t *testing.T, out string) []string {
	t.Helper()
	data, err := os.ReadFile(notesFile(out))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
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
