package calib

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/prism-eval/prism/calib/internal/calibtest"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/synthstudy"
)

var sinkReport *Report

// BenchmarkFit times one complete fit on a SummEval-sized study: 100
// contexts × 16 candidates × 16 attributes (32 columns), three methods,
// nested CV over the 7-value grid, 2,000 bootstrap resamples, profiles.
func BenchmarkFit(b *testing.B) {
	rows, labels := calibtest.Synth(100, 16, 16, 1)
	opts := DefaultOptions()
	b.ReportAllocs()
	for b.Loop() {
		r, _, err := Fit(context.Background(), rows, labels, opts)
		if err != nil {
			b.Fatal(err)
		}
		sinkReport = r
	}
}

// BenchmarkFitDesign is BenchmarkFit without reading the score rows.
func BenchmarkFitDesign(b *testing.B) {
	rows, labels := calibtest.Synth(100, 16, 16, 1)
	d, _, err := BuildDesign(rows, labels, BuildOptions{})
	if err != nil {
		b.Fatal(err)
	}
	opts := DefaultOptions()
	b.ReportAllocs()
	for b.Loop() {
		r, _, err := FitDesign(context.Background(), d, opts)
		if err != nil {
			b.Fatal(err)
		}
		sinkReport = r
	}
}

// BenchmarkFitTaylor is BenchmarkFit with the opt-in Taylor method.
func BenchmarkFitTaylor(b *testing.B) {
	rows, labels := calibtest.Synth(100, 16, 16, 1)
	opts := DefaultOptions()
	opts.Taylor = true
	b.ReportAllocs()
	for b.Loop() {
		r, _, err := Fit(context.Background(), rows, labels, opts)
		if err != nil {
			b.Fatal(err)
		}
		sinkReport = r
	}
}

var sinkDesign *Design

// BenchmarkBuildDesign times reading 52,800 score rows into a design.
func BenchmarkBuildDesign(b *testing.B) {
	rows, labels := calibtest.Synth(100, 16, 16, 1)
	b.ReportAllocs()
	for b.Loop() {
		d, _, err := BuildDesign(rows, labels, BuildOptions{})
		if err != nil {
			b.Fatal(err)
		}
		sinkDesign = d
	}
}

// BenchmarkFitStudy1k fits synthgen's default study at 1,000 contexts:
// 16 candidates × 8 attributes (272,000 score rows), default options.
func BenchmarkFitStudy1k(b *testing.B) { benchFitStudy(b, 1000) }

// BenchmarkFitStudy5k is BenchmarkFitStudy1k at 5,000 contexts
// (1,360,000 score rows): time and allocation grow with the contexts.
func BenchmarkFitStudy5k(b *testing.B) { benchFitStudy(b, 5000) }

func benchFitStudy(b *testing.B, nctx int) {
	rows, labels := synthstudy.Scores(nctx, 16, 8, 1, 1)
	opts := DefaultOptions()
	b.ReportAllocs()
	for b.Loop() {
		r, _, err := Fit(context.Background(), rows, labels, opts)
		if err != nil {
			b.Fatal(err)
		}
		sinkReport = r
	}
}

// BenchmarkFitMemory1k runs prism fit's path from files in process —
// read the labels, stream the score CSV into a DesignBuilder sized from
// them, build the design without J̃ (DropCentered), FitDesign; not the
// command's memory limit — on synthgen's study of 1,000 contexts × 16
// candidates × 8 attributes, and reports the heap's peak beside the
// design's size (docs/performance.md, "Fit memory"):
//
//	design-B      8 bytes × (J + J̃ + s0, y, v, y*): rows × (2q + 4)
//	peak-heap-B   the most heap (live and garbage) seen, less the heap before
//	peak-live-B   the most heap marked live by one collection, less before
//	peak/design   peak-heap-B ÷ design-B
//
// The peaks are sampled every 200 µs from runtime/metrics, so they can
// only be under the true peaks.
func BenchmarkFitMemory1k(b *testing.B) { benchFitMemory(b, 1000) }

// BenchmarkFitMemory5k is BenchmarkFitMemory1k at 5,000 contexts
// (1,360,000 score rows): every figure should be 5× the 1k one.
func BenchmarkFitMemory5k(b *testing.B) { benchFitMemory(b, 5000) }

func benchFitMemory(b *testing.B, nctx int) {
	dir := b.TempDir()
	scores, labels := filepath.Join(dir, "s.csv"), filepath.Join(dir, "l.csv")
	writeStudyCSV(b, nctx, scores, labels)
	var peakHeap, peakLive, design float64
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		sinkReport = nil
		runtime.GC() // each round starts from the same heap
		base := heapSample()
		b.StartTimer()
		var mon heapMonitor
		mon.start()
		d, r := fitFiles(b, scores, labels)
		h, l := mon.stop()
		peakHeap, peakLive = max(peakHeap, float64(h-base.heap)), max(peakLive, float64(l-base.live))
		design = float64(8 * (2*len(d.J) + len(d.S0) + len(d.Human) + len(d.V) + len(d.YStar))) // J̃ counted, held or not
		sinkReport = r
	}
	b.ReportMetric(design, "design-B")
	b.ReportMetric(peakHeap, "peak-heap-B")
	b.ReportMetric(peakLive, "peak-live-B")
	b.ReportMetric(peakHeap/design, "peak/design")
}

// fitFiles is `prism fit --scores S --labels L`'s calib work.
func fitFiles(b *testing.B, scores, labels string) (*Design, *Report) {
	lf, err := os.Open(labels)
	if err != nil {
		b.Fatal(err)
	}
	labs, err := model.ReadLabelsCSV(lf, labels)
	lf.Close()
	if err != nil {
		b.Fatal(err)
	}
	sf, err := os.Open(scores)
	if err != nil {
		b.Fatal(err)
	}
	defer sf.Close()
	bu := NewDesignBuilder(BuildOptions{ScoresFile: scores, LabelsFile: labels, DropCentered: true})
	bu.Reserve(len(labs))
	if err := model.ScanScoresCSV(bufio.NewReader(sf), scores, func(r model.ScoreRow) error { return bu.Add(&r) }); err != nil {
		b.Fatal(err)
	}
	d, _, err := bu.Build(labs)
	if err != nil {
		b.Fatal(err)
	}
	r, _, err := FitDesign(context.Background(), d, DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	return d, r
}

// writeStudyCSV writes synthgen's study (synthstudy.Scores(nctx, 16, 8,
// 1, 1)) as the CSV files prism fit reads.
func writeStudyCSV(b *testing.B, nctx int, scores, labels string) {
	rows, labs := synthstudy.Scores(nctx, 16, 8, 1, 1)
	for _, w := range []struct {
		path  string
		write func(*bufio.Writer) error
	}{
		{scores, func(w *bufio.Writer) error { return model.WriteScoresCSV(w, rows) }},
		{labels, func(w *bufio.Writer) error { return model.WriteLabelsCSV(w, labs) }},
	} {
		f, err := os.Create(w.path)
		if err != nil {
			b.Fatal(err)
		}
		bw := bufio.NewWriter(f)
		if err := w.write(bw); err != nil {
			b.Fatal(err)
		}
		if err := bw.Flush(); err != nil {
			b.Fatal(err)
		}
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

type heapFigures struct{ heap, live uint64 }

var heapMetrics = []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/live:bytes"}}

func heapSample() heapFigures {
	s := make([]metrics.Sample, len(heapMetrics))
	copy(s, heapMetrics)
	metrics.Read(s)
	return heapFigures{s[0].Value.Uint64(), s[1].Value.Uint64()}
}

// heapMonitor samples the heap until stopped and keeps the maxima.
type heapMonitor struct {
	done chan struct{}
	wg   sync.WaitGroup
	peak heapFigures
}

func (m *heapMonitor) start() {
	m.done = make(chan struct{})
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		t := time.NewTicker(200 * time.Microsecond)
		defer t.Stop()
		for {
			h := heapSample()
			m.peak.heap, m.peak.live = max(m.peak.heap, h.heap), max(m.peak.live, h.live)
			select {
			case <-m.done:
				return
			case <-t.C:
			}
		}
	}()
}

func (m *heapMonitor) stop() (heap, live uint64) {
	close(m.done)
	m.wg.Wait()
	h := heapSample()
	return max(m.peak.heap, h.heap), max(m.peak.live, h.live)
}

var sinkScored *Scored

// BenchmarkApply100k scores 100,000 candidates (10,000 contexts × 10)
// from stored scores with a 32-column calibrator (16 attributes):
// averaging, imputation, centering, prediction, terms and ranks. The
// rate is candidates/s.
func BenchmarkApply100k(b *testing.B) {
	const nctx, ncand, K = 10000, 10, 16
	c := &Calibrator{Method: "prism", Metric: "spearman", Centering: CenterWithinContext, Alpha: 1, Gamma: GammaChoice{Value: 1}}
	for k := 0; k < K; k++ {
		a := fmt.Sprintf("a%02d", k)
		c.Attributes = append(c.Attributes, a)
		c.Columns = append(c.Columns, a+":+", a+":-")
		c.Beta = append(c.Beta, 0.1*float64(k%5), -0.05*float64(k%3))
	}
	c.ScoreColumns = c.scoreColumns()
	c.Means = make([]float64, len(c.ScoreColumns))
	rows := make([]model.ScoreRow, 0, nctx*ncand*(1+2*K))
	for g := 0; g < nctx; g++ {
		ctx := fmt.Sprintf("c%05d", g)
		for i := 0; i < ncand; i++ {
			cand := fmt.Sprintf("m%02d", i)
			s0 := float64((g*7+i*3)%10 + 1)
			rows = append(rows, model.ScoreRow{Context: ctx, Candidate: cand, Probe: "baseline", Score: s0})
			for k, col := range c.Columns {
				rows = append(rows, model.ScoreRow{Context: ctx, Candidate: cand, Probe: col, Score: s0 + float64((g+i+k)%3-1)})
			}
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		s, err := c.Apply(rows, nil, ApplyOptions{})
		if err != nil {
			b.Fatal(err)
		}
		sinkScored = s
	}
	b.ReportMetric(float64(nctx*ncand)*float64(b.N)/b.Elapsed().Seconds(), "candidates/s")
}
