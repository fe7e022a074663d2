package model

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func writeText(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

// A FIFO (what /dev/null or /dev/stdout stand for) is written to, not
// replaced by a regular file.
func TestWriteFileAtomicFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	// A reader opened first (non-blocking) lets the writer open at once.
	r, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := WriteFileAtomic(p, writeText("a,b\n")); err != nil {
		t.Fatal(err)
	}
	st, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("%s is now %v, want the FIFO left in place", p, st.Mode())
	}
	buf := make([]byte, 16)
	n, _ := r.Read(buf)
	if got := string(buf[:n]); got != "a,b\n" {
		t.Fatalf("the FIFO's reader got %q, want %q", got, "a,b\n")
	}
}

// A symbolic link is followed: the link stays, its target gets the text.
func TestWriteFileAtomicSymlink(t *testing.T) {
	dir := t.TempDir()
	target, link := filepath.Join(dir, "target.csv"), filepath.Join(dir, "link.csv")
	os.WriteFile(target, []byte("old"), 0o644)
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(link, writeText("new")); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Lstat(link); st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("%s is no longer a symbolic link", link)
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Fatalf("target holds %q, want %q", b, "new")
	}
	// A link to a missing file is refused, saying so.
	dangling := filepath.Join(dir, "dangling")
	os.Symlink(filepath.Join(dir, "missing", "x"), dangling)
	err := WriteFileAtomic(dangling, writeText("x"))
	if err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("dangling link: err = %v, want a refusal naming the link", err)
	}
}

func TestWriteFileAtomicRegularAndDirectory(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.csv")
	for _, s := range []string{"one", "two"} {
		if err := WriteFileAtomic(p, writeText(s)); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(p); string(b) != s {
			t.Fatalf("got %q, want %q", b, s)
		}
	}
	if err := WriteFileAtomic(dir, writeText("x")); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Fatalf("directory: err = %v", err)
	}
}
