package banks

import (
	"io"

	"github.com/prism-eval/prism/model"
)

// MaxFileSize bounds a bank file (docs/banks.md, "Size limit"). The built-in
// banks are under 30 KiB; the limit only stops a wrong file (/dev/zero, a
// dataset) from being read into memory and handed to the TOML parser.
const MaxFileSize = 1 << 20 // 1 MiB

const fileKind = "a bank file"

// ReadFile reads a bank file's bytes, at most MaxFileSize. Devices are
// refused before any read (model.OpenInput).
func ReadFile(path string) ([]byte, error) {
	return model.ReadFileLimited(path, MaxFileSize, fileKind)
}

// Read parses a bank from r, reading at most MaxFileSize+1 bytes.
func Read(r io.Reader, file string) (*Bank, error) {
	data, err := model.ReadLimited(r, MaxFileSize, file, fileKind)
	if err != nil {
		return nil, err
	}
	return Parse(data, file)
}
