package store

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

const (
	crashEnvPath  = "PRISM_STORE_CRASH_WRITER"
	crashBatches  = 10000 // far more than the writer gets through before the kill
	crashPerBatch = 100
)

// TestHelperWriter is not a test on its own: TestCrashLosesNoCommittedBatch
// runs the test binary again with only this function and the workspace
// path in the environment. It writes batches of responses and prints the
// number of rows committed after each commit.
func TestHelperWriter(t *testing.T) {
	path := os.Getenv(crashEnvPath)
	if path == "" {
		t.Skip("helper process for TestCrashLosesNoCommittedBatch")
	}
	ctx := context.Background()
	s, err := Open(ctx, path)
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(3)
	}
	seedJudgeAndDataset(t, s)
	fmt.Println("ready")
	batch := make([]Response, crashPerBatch)
	for b := 0; b < crashBatches; b++ {
		for i := range batch {
			batch[i] = answer("c2", "b", "baseline", strconv.Itoa(b*crashPerBatch+i), float64(i%5))
			batch[i].Raw = fmt.Sprintf("%0200d", b) // bulk, so checkpoints happen mid-run
		}
		if err := s.PutResponses(ctx, batch); err != nil {
			fmt.Println("put:", err)
			os.Exit(4)
		}
		fmt.Println((b + 1) * crashPerBatch)
	}
	os.Exit(0)
}

// TestCrashLosesNoCommittedBatch kills a writer process with SIGKILL in
// the middle of a long write loop, then checks that the file opens cleanly,
// passes PRAGMA integrity_check, and holds every row the writer reported
// committed (and only whole batches).
// startHelper runs this test binary's test named helper in a child
// process with env added, and returns the process and a scanner of its
// standard output (its standard error is the test's).
func startHelper(t *testing.T, helper, env string) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+helper+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, bufio.NewScanner(out)
}

func TestCrashLosesNoCommittedBatch(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a writer process")
	}
	path := filepath.Join(t.TempDir(), "crash.db")
	cmd, lines := startHelper(t, "TestHelperWriter", crashEnvPath+"="+path)
	committed := 0
	deadline := time.Now().Add(60 * time.Second)
	const killAfter = 6 // commits seen before the kill
	seen := 0
	for lines.Scan() {
		line := lines.Text()
		if line == "ready" {
			continue
		}
		n, err := strconv.Atoi(line)
		if err != nil {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("writer said %q", line)
		}
		committed, seen = n, seen+1
		if seen == killAfter || time.Now().After(deadline) {
			// Kill while the writer is inside its next batch.
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	for lines.Scan() { // commits that raced the kill still count
		if n, err := strconv.Atoi(lines.Text()); err == nil {
			committed = n
		}
	}
	err := cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("writer was not killed by SIGKILL (wait: %v); it may have finished before the kill", err)
	}
	if committed < killAfter*crashPerBatch {
		t.Fatalf("writer reported only %d committed rows", committed)
	}

	ctx := context.Background()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("reopening after SIGKILL: %v", err)
	}
	defer s.Close()
	if err := s.IntegrityCheck(ctx); err != nil {
		t.Fatal(err)
	}
	rows, err := s.Scores(ctx, "tiny", "j", testBank)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < committed {
		t.Fatalf("%d rows survive, but the writer reported %d committed", len(rows), committed)
	}
	if len(rows)%crashPerBatch != 0 {
		t.Fatalf("%d rows survive: not a whole number of %d-row batches", len(rows), crashPerBatch)
	}
	t.Logf("writer reported %d rows committed; %d found after SIGKILL", committed, len(rows))
}
