package banks

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/prism-eval/prism/model"
)

// zeros is an io.Reader that never ends, like /dev/zero.
type zeros struct{ n int64 }

func (z *zeros) Read(p []byte) (int, error) {
	clear(p)
	z.n += int64(len(p))
	return len(p), nil
}

func TestReadEndlessInput(t *testing.T) {
	z := &zeros{}
	_, err := Read(z, "zero.toml")
	var se *model.SizeError
	if !errors.As(err, &se) || err.Error() != "zero.toml: larger than the 1 MiB limit for a bank file" {
		t.Fatalf("err = %v, want the bank size limit", err)
	}
	if z.n > 2*MaxFileSize {
		t.Errorf("read %d bytes of an endless input, want about the limit", z.n)
	}
}

func TestParseTooLarge(t *testing.T) {
	data := []byte("name = \"x\"\n" + strings.Repeat("# padding\n", MaxFileSize/10))
	if _, err := Parse(data, "big.toml"); err == nil || !strings.Contains(err.Error(), "big.toml: larger than the 1 MiB limit for a bank file") {
		t.Errorf("err = %v", err)
	}
}

func TestReadFileRefusesDevices(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	_, err := ReadFile("/dev/zero")
	if err == nil || !strings.Contains(err.Error(), "/dev/zero: is a device or socket, not a file") {
		t.Errorf("err = %v", err)
	}
	data, err := BuiltinFile(Builtins()[0].Name)
	if err != nil {
		t.Fatal(err)
	}
	path := t.TempDir() + "/b.toml"
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadFile(path); err != nil || string(got) != string(data) {
		t.Errorf("ReadFile of a built-in bank: %v", err)
	}
}

// A pipe (the /dev/fd/N of a shell's <(…)) is read, bounded by the limit
// rather than by a size it does not have.
func TestReadFilePipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	path := fmt.Sprintf("/dev/fd/%d", r.Fd())
	if _, err := os.Stat(path); err != nil {
		w.Close()
		t.Skip("no /dev/fd")
	}
	go func() {
		defer w.Close()
		chunk := make([]byte, 64<<10)
		for i := 0; i < 2*MaxFileSize/len(chunk); i++ {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}()
	_, err = ReadFile(path)
	if err == nil || !strings.Contains(err.Error(), "larger than the 1 MiB limit for a bank file") {
		t.Errorf("err = %v", err)
	}
}
