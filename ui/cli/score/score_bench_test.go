package score

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
	"github.com/prism-eval/prism/ui/cli/internal/clitest"
)

// writeBenchScores writes nctx contexts × 5 candidates with a baseline and
// 16 attributes (32 probe columns) to path, and labels when labels is not
// "".
func writeBenchScores(b *testing.B, path, labels string, nctx int) {
	b.Helper()
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var lw *bufio.Writer
	if labels != "" {
		lf, err := os.Create(labels)
		if err != nil {
			b.Fatal(err)
		}
		defer lf.Close()
		lw = bufio.NewWriter(lf)
		defer lw.Flush()
		fmt.Fprintln(lw, "context,candidate,human")
	}
	fmt.Fprintln(w, "context,candidate,probe,score")
	for g := range nctx {
		for i := range 5 {
			x := float64(7*g + 3*i + 1)
			s0 := 5 + 2*math.Sin(x*1.7)
			ctx, cand := fmt.Sprintf("c%06d", g), fmt.Sprintf("k%d", i)
			if lw != nil {
				fmt.Fprintf(lw, "%s,%s,%.4f\n", ctx, cand, s0+math.Cos(x*2.3))
			}
			fmt.Fprintf(w, "%s,%s,baseline,%.4f\n", ctx, cand, s0)
			for a := range 16 {
				d := math.Sin(x * float64(a+2) * 0.37)
				fmt.Fprintf(w, "%s,%s,a%02d:+,%.4f\n", ctx, cand, a, s0+0.3*d)
				fmt.Fprintf(w, "%s,%s,a%02d:-,%.4f\n", ctx, cand, a, s0-0.2*d+0.05*math.Cos(x*float64(a+1)))
			}
		}
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
}

// benchCalibrator fits a 32-column calibrator on 40 synthetic contexts
// and writes 100,000 new candidates' scores (3.3 million score rows).
func benchCalibrator(b *testing.B) (cal, scores string) {
	b.Helper()
	dir := b.TempDir()
	ts, tl := filepath.Join(dir, "train.csv"), filepath.Join(dir, "train-labels.csv")
	writeBenchScores(b, ts, tl, 40)
	cal = filepath.Join(dir, "cal.json")
	if code, _, errOut := clitest.RunCmd("fit", "--scores", ts, "--labels", tl, "--bootstrap", "10", "--save", cal); code != 0 {
		b.Fatal(errOut)
	}
	scores = filepath.Join(dir, "new.csv")
	writeBenchScores(b, scores, "", 20000)
	return cal, scores
}

// BenchmarkScore100k: prism score on 100,000 candidates from a CSV with a
// 32-column calibrator, end to end (read, apply, write the CSV).
func BenchmarkScore100k(b *testing.B) {
	cal, scores := benchCalibrator(b)
	out := filepath.Join(b.TempDir(), "out.csv")
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime()
	for range b.N {
		if code := clikit.RunMain(context.Background(), []string{"score", "--calibrator", cal, "--scores", scores, "-o", out}, io.Discard, io.Discard); code != 0 {
			b.Fatal("prism score failed")
		}
	}
	reportCPU(b, cpu)
	b.ReportMetric(float64(100000*b.N)/b.Elapsed().Seconds(), "candidates/s")
}

// BenchmarkApply100k: Calibrator.Apply alone on the 3.3 million rows of
// 100,000 candidates already in memory.
func BenchmarkApply100k(b *testing.B) {
	calFile, scores := benchCalibrator(b)
	f, err := os.Open(calFile)
	if err != nil {
		b.Fatal(err)
	}
	c, err := calib.ReadCalibrator(f, calFile)
	f.Close()
	if err != nil {
		b.Fatal(err)
	}
	rows, err := clikit.ReadFile(scores, model.ReadScoresCSV)
	if err != nil {
		b.Fatal(err)
	}
	if len(c.Columns) != 32 || len(rows) != 3_300_000 {
		b.Fatalf("%d columns, %d rows", len(c.Columns), len(rows))
	}
	b.ResetTimer()
	for range b.N {
		if _, err := c.Apply(rows, nil, calib.ApplyOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(100000*b.N)/b.Elapsed().Seconds(), "candidates/s")
}
