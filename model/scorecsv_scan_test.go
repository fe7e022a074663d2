package model

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
)

// scanSequential is ScanScoresCSV on one goroutine, as it was before the
// records were read beside the checks: the oracle the pipelined scan
// must equal, row for row and error for error.
func scanSequential(r io.Reader, file string, fn func(ScoreRow) error) error {
	t, err := openCSV(r, file, "a score file", []string{"context", "candidate", "probe", "score"})
	if err != nil {
		return err
	}
	ci, ki, pi, si := t.col["context"], t.col["candidate"], t.col["probe"], t.col["score"]
	ri, hasRun := t.col["run"]
	wi, hasWording := t.col["wording"]
	var lastCtx, lastCand string
	probes := internTable{} // valid probe names
	labels := internTable{} // runs and wordings
	for {
		rec, line, err := t.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		row := ScoreRow{Line: line}
		switch c := strings.TrimSpace(rec[ci]); {
		case c == "":
			return fmt.Errorf("%s: field \"context\" is empty", t.at("context"))
		case c == lastCtx:
			row.Context = lastCtx
		default:
			row.Context = strings.Clone(c)
			lastCtx = row.Context
		}
		switch k := strings.TrimSpace(rec[ki]); {
		case k == "":
			return fmt.Errorf("%s: field \"candidate\" is empty", t.at("candidate"))
		case k == lastCand:
			row.Candidate = lastCand
		default:
			row.Candidate = strings.Clone(k)
			lastCand = row.Candidate
		}
		p := strings.TrimSpace(rec[pi])
		if row.Probe = probes.get(p); row.Probe == "" {
			if _, _, _, err := ParseProbe(p); err != nil {
				return fmt.Errorf("%s: field \"probe\": %v", t.at("probe"), err)
			}
			row.Probe = probes.put(p)
		}
		if hasRun {
			row.Run = labels.intern(strings.TrimSpace(rec[ri]))
		}
		if hasWording {
			row.Wording = labels.intern(strings.TrimSpace(rec[wi]))
		}
		if s := strings.TrimSpace(rec[si]); s == "" {
			row.Missing = true
		} else if row.Score, err = parseNumberAt(t, "score", s); err != nil {
			return err
		}
		if err := fn(row); err != nil {
			return err
		}
	}
}

// scanAll collects what scan passes to fn, stopping fn with errStop at
// row stopAt (never when stopAt < 0).
func scanAll(scan func(io.Reader, string, func(ScoreRow) error) error, in string, stopAt int) ([]ScoreRow, error) {
	var rows []ScoreRow
	err := scan(strings.NewReader(in), "s.csv", func(r ScoreRow) error {
		if len(rows) == stopAt {
			return errStop
		}
		rows = append(rows, r)
		return nil
	})
	return rows, err
}

var errStop = errors.New("stop")

// sameScan fails t unless the pipelined and the sequential scan give the
// same rows and the same error on in.
func sameScan(t *testing.T, name, in string, stopAt int) {
	t.Helper()
	got, gerr := scanAll(ScanScoresCSV, in, stopAt)
	want, werr := scanAll(scanSequential, in, stopAt)
	if fmt.Sprint(gerr) != fmt.Sprint(werr) || (werr == errStop) != (gerr == errStop) {
		t.Fatalf("%s: error %v, sequentially %v", name, gerr, werr)
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, sequentially %d", name, len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s: row %d %+v, sequentially %+v", name, i, got[i], want[i])
		}
	}
}

// TestScanEqualsSequential: files of several batches with a fault at a
// random record (every kind the reader reports: a bad score, probe or
// empty id, a CSV syntax error, a short record, a multi-line quoted
// field before it), and a caller that stops the scan, read as the
// sequential scan reads them.
func TestScanEqualsSequential(t *testing.T) {
	faults := []func(i int) string{
		func(i int) string { return fmt.Sprintf("d%d,c,baseline,good\n", i) },
		func(i int) string { return fmt.Sprintf("d%d,c,coherence,1\n", i) },
		func(i int) string { return fmt.Sprintf("d%d,,baseline,1\n", i) },
		func(i int) string { return fmt.Sprintf("d%d,\"c,baseline,1\n", i) },
		func(i int) string { return fmt.Sprintf("d%d,c,baseline\n", i) },
		func(i int) string { return fmt.Sprintf("\"d\n%d\",c,a:+,1e3\n", i) },
		func(i int) string { return fmt.Sprintf("d%d,c, 2 ,x\n", i) },
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 40 {
		n := 1 + rng.IntN(4*batchRecords)
		at := rng.IntN(n)
		var b strings.Builder
		b.WriteString("probe,context,candidate,score,wording\n")
		for i := range n {
			if i == at {
				f := faults[trial%len(faults)](i)
				// the fault's columns are context,candidate,probe,score
				parts := strings.SplitN(strings.TrimSuffix(f, "\n"), ",", 4)
				if len(parts) == 4 {
					fmt.Fprintf(&b, "%s,%s,%s,%s,w\n", parts[2], parts[0], parts[1], parts[3])
				} else {
					b.WriteString(f)
				}
				continue
			}
			fmt.Fprintf(&b, "a%d:%s,d%d,m%d,%d.%d,w%d\n", i%5, "+-"[i%2:i%2+1], i/16, i%16, i%10, i%7, i%3)
		}
		stop := -1
		if trial%4 == 3 {
			stop = rng.IntN(n + 1)
		}
		sameScan(t, fmt.Sprintf("trial %d (fault %d at record %d of %d, stop at %d)", trial, trial%len(faults), at, n, stop), b.String(), stop)
	}
}

func FuzzScanEqualsSequential(f *testing.F) {
	f.Add("context,candidate,probe,score\nd,s,baseline,1\nd,s,x:+,\n", 1)
	f.Add("context,candidate,probe,score,run,wording\n\"d\n1\",s,ctx:a,2,r,w\nd,s,baseline,x\n", -1)
	f.Add("score,probe,candidate,context\n1e308,neutral:n,c,d\n", 0)
	f.Fuzz(func(t *testing.T, in string, stopAt int) {
		sameScan(t, "fuzz", in, stopAt)
	})
}

// watchedReader fails the test if it is read after done is set.
type watchedReader struct {
	t    *testing.T
	r    io.Reader
	done atomic.Bool
}

func (w *watchedReader) Read(p []byte) (int, error) {
	if w.done.Load() {
		w.t.Error("the file was read after ScanScoresCSV returned")
	}
	return w.r.Read(p[:min(len(p), 64)]) // small reads: many before a batch is full
}

// TestScanStopsReading: once ScanScoresCSV returns, on an error from fn
// or from the file, its reader reads no more.
func TestScanStopsReading(t *testing.T) {
	var b strings.Builder
	b.WriteString("context,candidate,probe,score\n")
	for i := range 20 * batchRecords {
		fmt.Fprintf(&b, "d%d,c,baseline,1\n", i)
	}
	for _, stopAt := range []int{0, 1, batchRecords, 3*batchRecords + 7} {
		w := &watchedReader{t: t, r: strings.NewReader(b.String())}
		n := 0
		err := ScanScoresCSV(w, "s.csv", func(ScoreRow) error {
			if n == stopAt {
				return errStop
			}
			n++
			return nil
		})
		w.done.Store(true)
		if err != errStop {
			t.Fatalf("stop at %d: %v", stopAt, err)
		}
	}
}
