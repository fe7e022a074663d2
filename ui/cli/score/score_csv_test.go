package score

import (
	"bytes"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/ui/cli/internal/clitest"
)

// writeCSVRef is scoreDoc.writeCSV as it was: every record through
// encoding/csv, each number a string first (the notes are in a sidecar).
func writeCSVRef(d *scoreDoc, w *bytes.Buffer) {
	r := d.res
	cw := csv.NewWriter(w)
	head := []string{"context", "candidate", "baseline", "corrected"}
	if r.HumanScale {
		head = append(head, "human_scale")
	}
	head = append(head, "rank_before", "rank_after", "imputed", "in_sample")
	if r.Labelled > 0 {
		head = append(head, "human")
	}
	for _, u := range r.Units {
		head = append(head, "term:"+u)
	}
	cw.Write(head)
	for i := range r.Rows {
		cw.Write(scoreRecord(nil, r, &r.Rows[i]))
	}
	cw.Flush()
}

// The scored CSV is byte for byte what encoding/csv writes: ids that
// need quoting (a comma, a quote, a newline, a leading space, `\.`) and
// ids that do not, every kind of number (NaN, ±Inf, -0, tiny and huge),
// with and without the human scale and labels.
func TestScoreCSVIsEncodingCSVs(t *testing.T) {
	ids := []string{"c1", "a,b", `say "hi"`, "two\nlines", "cr\rx", " lead", "\u00a0nbsp", `\.`, `\.x`, "é", "trail ", "x\ty"}
	nums := []float64{0, math.Copysign(0, -1), 1.5, -2.25e-300, 1e21, 123456789.125, math.NaN(), math.Inf(1), math.Inf(-1), 1.0 / 3}
	for _, humanScale := range []bool{false, true} {
		for _, labelled := range []int{0, 3} {
			r := &calib.Scored{Method: "prism", Units: []string{"a", "b,c"}, HumanScale: humanScale, Labelled: labelled}
			for i, id := range ids {
				for j := range 3 {
					n := func(k int) float64 { return nums[(i*7+j*3+k)%len(nums)] }
					r.Rows = append(r.Rows, calib.ScoredRow{Context: id, Candidate: ids[(i+j)%len(ids)],
						Baseline: n(0), Corrected: n(1), Scaled: n(2), Human: n(3), RankBefore: n(4), RankAfter: n(5),
						Terms: []float64{n(6), n(7)}, Imputed: i - j, InSample: j == 1})
				}
			}
			d := &scoreDoc{file: "cal.json", cal: &calib.Calibrator{Method: "prism", Centering: calib.CenterWithinContext}, res: r}
			var got, want bytes.Buffer
			if err := d.writeCSV(&got); err != nil {
				t.Fatal(err)
			}
			writeCSVRef(d, &want)
			if got.String() != want.String() {
				t.Fatalf("human scale %v, labelled %d:\n%s\nwant\n%s", humanScale, labelled, got.String(), want.String())
			}
		}
	}
}

// The scored CSV is plain: encoding/csv (as Python's csv module) reads the
// header as its first record. The notes go to FILE.notes.txt beside an -o
// file, and to standard error when the rows go to standard output.
func TestScoreCSVIsPlainNotesBeside(t *testing.T) {
	f := scoreFixture(t)
	out := filepath.Join(t.TempDir(), "scored.csv")
	code, stdout, errOut := clitest.RunCmd("score", "--calibrator", f.cal["prism"], "--scores", f.newS, "--labels", f.newL, "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	first, err := csv.NewReader(bytes.NewReader(data)).Read()
	if err != nil || !slices.Equal(first[:4], []string{"context", "candidate", "baseline", "corrected"}) {
		t.Fatalf("first record %q (%v), want the header", first, err)
	}
	notes := scoredNotes(t, out)
	if !strings.HasPrefix(notes[0], "prism score ") || !strings.Contains(stdout, "its notes to "+out+".notes.txt") {
		t.Errorf("notes %q; stdout %q", notes, stdout)
	}
	code, stdout, errOut = clitest.RunCmd("score", "--calibrator", f.cal["prism"], "--scores", f.newS, "--labels", f.newL)
	if code != 0 || !strings.HasPrefix(stdout, "context,candidate,") || !strings.Contains(errOut, notes[1]) {
		t.Errorf("to stdout: exit %d, stdout starts %q, stderr %q lacks %q", code, stdout[:min(len(stdout), 40)], errOut, notes[1])
	}
}

// TestAppendNumberIsShortest: appendNumber writes what AppendFloat's
// shortest 'g' form does, around every edge of its integer path.
func TestAppendNumberIsShortest(t *testing.T) {
	xs := []float64{0, math.Copysign(0, -1), 1, -1, 2.5, 999999, -999999, 1e6, -1e6, 999999.5, 1e21, 123456, 1e-7, math.MaxFloat64, math.SmallestNonzeroFloat64, math.Inf(1), math.NaN()}
	for i := range 2000 {
		xs = append(xs, float64(i*997-1000000), float64(i)/4, math.Nextafter(float64(i), 1e9))
	}
	for _, x := range xs {
		if got, want := string(appendNumber([]byte("x"), x)), "x"+strconv.FormatFloat(x, 'g', -1, 64); got != want {
			t.Errorf("appendNumber(%v) = %q, want %q", x, got, want)
		}
	}
}
