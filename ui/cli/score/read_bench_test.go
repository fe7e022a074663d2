package score

import (
	"context"
	"io"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/model/synthstudy"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
	"github.com/prism-eval/prism/ui/cli/internal/clitest"
)

// answered1k is the read-path benchmarks' study: 1,000 contexts × 16
// candidates under the quality bank (38 conditions), fully answered by the
// offline judge (608,000 requests), and a calibrator fitted on it (prism
// fit --save). Built once per process (about 20 s), in a directory
// TestMain removes.
var answered1k struct {
	once    sync.Once
	ws, cal string
	err     error
}

func answeredStudy(b *testing.B) (ws, cal string) {
	b.Helper()
	s := &answered1k
	s.once.Do(func() {
		ctx := context.Background()
		dir, err := clitest.TempDirOnce("prism-read-bench")
		if err != nil {
			s.err = err
			return
		}
		s.ws, s.cal = filepath.Join(dir, "w.db"), filepath.Join(dir, "cal.json")
		st, err := store.Open(ctx, s.ws)
		if err != nil {
			s.err = err
			return
		}
		s.err = st.PutDataset(ctx, synthstudy.Dataset(1000, 16, 1), false)
		st.Close()
		if s.err != nil {
			return
		}
		for _, args := range [][]string{
			{"run", "--bank", "quality", "--workspace", s.ws},
			{"fit", "--workspace", s.ws, "--bootstrap", "100", "--save", s.cal},
		} {
			if code, _, errOut := clitest.RunCmd(args...); code != 0 {
				s.err = errorString("prism " + args[0] + ": " + errOut)
				return
			}
		}
	})
	if s.err != nil {
		b.Fatal(s.err)
	}
	return s.ws, s.cal
}

type errorString string

func (e errorString) Error() string { return string(e) }

// benchCmd runs prism args once per iteration and reports per-item rates
// and the process's CPU time per iteration (cpu-ms/op).
func benchCmd(b *testing.B, items int, unit string, args ...string) {
	b.Helper()
	b.ReportAllocs()
	cpu := cpuTime()
	for b.Loop() {
		if code := clikit.RunMain(context.Background(), args, io.Discard, io.Discard); code != 0 {
			_, _, errOut := clitest.RunCmd(args...)
			b.Fatalf("prism %v: exit %d: %s", args, code, errOut)
		}
	}
	reportCPU(b, cpu)
	b.ReportMetric(float64(items)*float64(b.N)/b.Elapsed().Seconds(), unit)
}

// cpuTime is the process's user + system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU time since since per iteration (cpu-ms/op):
// on a shared, loaded machine it moves far less with the load than the
// wall time does.
func reportCPU(b *testing.B, since time.Duration) {
	b.ReportMetric(float64(cpuTime()-since)/1e6/float64(b.N), "cpu-ms/op")
}

// BenchmarkScoreWorkspace16k is prism score with a saved calibrator on a
// workspace study whose answers are all stored (nothing to send): 16,000
// candidates read, scored and written (target: ≥ 100,000 candidates/s).
func BenchmarkScoreWorkspace16k(b *testing.B) {
	ws, cal := answeredStudy(b)
	out := filepath.Join(b.TempDir(), "out.csv")
	benchCmd(b, 16000, "candidates/s", "score", "--calibrator", cal, "--workspace", ws, "-o", out)
}

// BenchmarkDryRunAnswered608k is prism run --dry-run on the fully
// answered 608,000-request study (target: under 0.3 s).
func BenchmarkDryRunAnswered608k(b *testing.B) {
	ws, _ := answeredStudy(b)
	benchCmd(b, 608000, "requests/s", "run", "--bank", "quality", "--dry-run", "--workspace", ws)
}
