package clitest

import (
	"encoding/csv"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/model/datasets"
)

// DemoScores builds a tidy score file over the demo dataset's first
// contexts: runs, wordings and a missing score included.
func DemoScores(t *testing.T) string {
	d := datasets.Demo()
	var b strings.Builder
	b.WriteString("context,candidate,probe,score,run,wording\n")
	for i, c := range d.Contexts[:3] {
		for j, k := range c.Candidates {
			score := []string{"1", "2.5", "4", "", "0.1"}[(i+j)%5]
			b.WriteString(c.ID + "," + k.ID + ",baseline," + score + ",0,\n")
			b.WriteString(c.ID + "," + k.ID + ",length:+,3,0,0\n")
			b.WriteString(c.ID + "," + k.ID + ",length:+,3.25,1,1\n")
		}
	}
	return b.String()
}

// BaselineScores reads the judge's baseline scores from prism export
// scores: the mean over runs per "context/candidate".
func BaselineScores(t *testing.T, ws string) map[string]float64 {
	t.Helper()
	code, out, errOut := RunPrism(t, "export", "scores", "--workspace", ws)
	if code != 0 {
		t.Fatal(errOut)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	sum, n := map[string]float64{}, map[string]float64{}
	for _, r := range recs[1:] { // context,candidate,probe,score,run,wording
		if r[2] != "baseline" {
			continue
		}
		v, err := strconv.ParseFloat(r[3], 64)
		if err != nil {
			t.Fatal(err)
		}
		sum[r[0]+"/"+r[1]] += v
		n[r[0]+"/"+r[1]]++
	}
	for k := range sum {
		sum[k] /= n[k]
	}
	return sum
}

func cleanupFixtures() {
	for _, d := range fixtureDirs {
		os.RemoveAll(d)
	}
}

// fixtureDirs are other fixtures' directories (tempDirOnce), removed by
// TestMain.
var fixtureDirs []string

// TempDirOnce makes a directory for a fixture built once per package run;
// TestMain removes it.
func TempDirOnce(prefix string) (string, error) {
	d, err := os.MkdirTemp("", prefix)
	if err == nil {
		fixtureDirs = append(fixtureDirs, d)
	}
	return d, err
}

func ReadCalibrator(t *testing.T, path string) *calib.Calibrator {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := calib.ReadCalibrator(f, path)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
