package analysis

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/model/synthstudy"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
	"github.com/prism-eval/prism/ui/cli/internal/clitest"
)

// fitStudy1k is one study of 1,000 contexts × 16 candidates × 8
// attributes (baseline and both signs in 2 wordings: 528,000 score rows)
// both in a workspace (the dataset and an import judge's scores) and as
// the score and label files prism export writes from it. It is built once
// per process, in a directory TestMain removes (tempDirOnce).
var fitStudy1k struct {
	once                  sync.Once
	dir, ws, scores, labs string
	err                   error
}

func benchStudy(b *testing.B) (ws, scores, labels string) {
	b.Helper()
	s := &fitStudy1k
	s.once.Do(func() {
		ctx := context.Background()
		if s.dir, s.err = clitest.TempDirOnce("prism-fit-bench"); s.err != nil {
			return
		}
		s.ws, s.scores, s.labs = filepath.Join(s.dir, "w.db"), filepath.Join(s.dir, "s.csv"), filepath.Join(s.dir, "l.csv")
		d := synthstudy.Dataset(1000, 16, 1)
		rows, _ := synthstudy.Scores(1000, 16, 8, 2, 1)
		st, err := store.Open(ctx, s.ws)
		if err != nil {
			s.err = err
			return
		}
		defer st.Close()
		if s.err = st.PutDataset(ctx, d, false); s.err != nil {
			return
		}
		if _, s.err = st.ImportScores(ctx, d.Name, "imported", rows); s.err != nil {
			return
		}
		stored, err := st.Scores(ctx, d.Name, "imported", "")
		if err != nil {
			s.err = err
			return
		}
		if s.err = writeTo(s.scores, func(w io.Writer) error { return model.WriteScoresCSV(w, stored) }); s.err != nil {
			return
		}
		s.err = writeTo(s.labs, func(w io.Writer) error { return model.WriteLabelsCSV(w, d.Labels()) })
	})
	if s.err != nil {
		b.Fatal(s.err)
	}
	return s.ws, s.scores, s.labs
}

func writeTo(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

var sinkFitOut string

func benchFit(b *testing.B, args ...string) {
	b.ReportAllocs()
	for b.Loop() {
		var out, errOut bytes.Buffer
		if code := clikit.RunMain(context.Background(), args, &out, &errOut); code != 0 {
			b.Fatalf("prism %v: exit %d: %s", args, code, errOut.String())
		}
		sinkFitOut = out.String()
	}
}

// BenchmarkFitWorkspace1k is prism fit --workspace on fitStudy: reading
// the stored study and fitting it.
func BenchmarkFitWorkspace1k(b *testing.B) {
	ws, _, _ := benchStudy(b)
	benchFit(b, "fit", "--workspace", ws, "--json")
}

// BenchmarkFitCSV1k is prism fit on the same study's exported files; its
// report equals BenchmarkFitWorkspace1k's.
func BenchmarkFitCSV1k(b *testing.B) {
	_, scores, labels := benchStudy(b)
	benchFit(b, "fit", "--scores", scores, "--labels", labels, "--json")
}
