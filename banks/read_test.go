package banks

import (
	"errors"
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
	if err == nil || !strings.Contains(err.Error(), "/dev/zero: not a regular file") {
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
