package data

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/prism-eval/prism/ui/cli/internal/clitest"
)

// export -o into a FIFO writes to it; the FIFO stays a FIFO (it stands for
// /dev/null, which a root test must not touch).
func TestExportToFIFO(t *testing.T) {
	dir := t.TempDir()
	ws, in, fifo := filepath.Join(dir, "ws.db"), filepath.Join(dir, "in.csv"), filepath.Join(dir, "pipe")
	os.WriteFile(in, []byte(clitest.DemoScores(t)), 0o644)
	if code, _, errOut := clitest.RunPrism(t, "data", "import", "demo", "--workspace", ws); code != 0 {
		t.Fatal(errOut)
	}
	if code, _, errOut := clitest.RunPrism(t, "import", "scores", "--judge", "ext", in, "--workspace", ws); code != 0 {
		t.Fatal(errOut)
	}
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// The export is small enough for the pipe's buffer: no reader needed
	// while it writes.
	if code, _, errOut := clitest.RunPrism(t, "export", "scores", "--judge", "ext", "-o", fifo, "--workspace", ws); code != 0 {
		t.Fatalf("export -o FIFO: %s", errOut)
	}
	if st, _ := os.Lstat(fifo); st.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("%s is now %v, want the FIFO", fifo, st.Mode())
	}
	buf := make([]byte, 64)
	n, _ := r.Read(buf)
	if !strings.HasPrefix(string(buf[:n]), "context,candidate,probe,score") {
		t.Fatalf("the FIFO's reader got %q", buf[:n])
	}
}

// An existing empty file is not turned into a workspace by import or run.
func TestEmptyFileIsNotAWorkspace(t *testing.T) {
	dir := t.TempDir()
	ws, in := filepath.Join(dir, "notes.txt"), filepath.Join(dir, "in.csv")
	os.WriteFile(ws, nil, 0o644)
	os.WriteFile(in, []byte(clitest.DemoScores(t)), 0o644)
	for _, args := range [][]string{
		{"import", "scores", "--judge", "ext", in, "--workspace", ws},
		{"data", "import", "demo", "--workspace", ws},
		{"run", "--bank", "quality", "--dry-run", "--workspace", ws},
	} {
		code, _, stderr := clitest.RunPrism(t, args...)
		if code == 0 || !strings.Contains(stderr, "not a prism workspace") || !strings.Contains(stderr, ws) {
			t.Errorf("prism %s: exit %d, stderr %q", strings.Join(args, " "), code, stderr)
		}
		if st, _ := os.Stat(ws); st.Size() != 0 {
			t.Fatalf("prism %s wrote %d bytes into the empty file", strings.Join(args, " "), st.Size())
		}
	}
}

// Imported number cells are decimal numbers, and with --bank each score
// lies on the bank's scale; without a bank a score keeps its own scale.
func TestImportScoresCellsAndScale(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws.db")
	if code, _, errOut := clitest.RunPrism(t, "data", "import", "demo", "--workspace", ws); code != 0 {
		t.Fatal(errOut)
	}
	lines := strings.Split(clitest.DemoScores(t), "\n")
	first := strings.Split(lines[1], ",") // context,candidate,baseline,score,run,wording
	write := func(name, score string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(lines[0]+"\n"+strings.Join([]string{first[0], first[1], "baseline", score, "0", ""}, ",")+"\n"), 0o644)
		return p
	}
	for i, cell := range []string{"4_5", "0x1p3", "inf", "nan"} {
		code, _, stderr := clitest.RunPrism(t, "import", "scores", "--judge", "j"+string(rune('a'+i)), write("lit.csv", cell), "--workspace", ws)
		if code == 0 || !strings.Contains(stderr, "lit.csv:2:") {
			t.Errorf("score %q: exit %d, stderr %q; want an error at lit.csv:2", cell, code, stderr)
		}
	}
	big := write("big.csv", "45")
	code, _, stderr := clitest.RunPrism(t, "import", "scores", "--judge", "onbank", "--bank", "quality", big, "--workspace", ws)
	if code == 0 || !strings.Contains(stderr, "big.csv:2") || !strings.Contains(stderr, "scale 1–10") {
		t.Errorf("45 on a 1–10 bank: exit %d, stderr %q; want refused at big.csv:2", code, stderr)
	}
	if code, _, stderr := clitest.RunPrism(t, "import", "scores", "--judge", "logits", big, "--workspace", ws); code != 0 {
		t.Errorf("45 with no bank: exit %d, stderr %q; want it kept on its own scale", code, stderr)
	}
}
