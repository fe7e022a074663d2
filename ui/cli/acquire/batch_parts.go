package acquire

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// partFiles are the files of one batch export: standard output (one part
// only), or -o FILE written as temporary files beside it and renamed when
// every part is written: FILE itself when there is one part, else
// FILE-stem.001.ext, .002, … (out.jsonl → out.001.jsonl).
type partFiles struct {
	path   string
	stdout io.Writer

	files  []*os.File
	direct *os.File // -o naming a device or pipe
	bufs   []*bufio.Writer
	names  []string // final names, set by finish
}

func (p *partFiles) open(part int) (io.Writer, error) {
	if p.path == "" {
		if part > 0 {
			return nil, errors.New("the export needs more than one file (its format's limits, --max-lines or --max-bytes): give -o FILE")
		}
		b := bufio.NewWriter(p.stdout)
		p.bufs = append(p.bufs, b)
		return b, nil
	}
	if st, err := os.Stat(p.path); err == nil && !st.Mode().IsRegular() && p.direct == nil {
		// A device or pipe (-o /dev/stdout): written in place, one part.
		if part > 0 {
			return nil, fmt.Errorf("the export needs more than one file (its format's limits, --max-lines or --max-bytes), but %s is not a regular file", p.path)
		}
		f, err := os.OpenFile(p.path, os.O_WRONLY, 0)
		if err != nil {
			return nil, fmt.Errorf("writing %s: %w", p.path, err)
		}
		p.direct = f
		b := bufio.NewWriter(f)
		p.bufs = append(p.bufs, b)
		return b, nil
	} else if p.direct != nil {
		return nil, fmt.Errorf("the export needs more than one file (its format's limits, --max-lines or --max-bytes), but %s is not a regular file", p.path)
	}
	dir, base := filepath.Split(p.path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".part*")
	if err != nil {
		return nil, fmt.Errorf("writing %s: %w", p.path, err)
	}
	p.files = append(p.files, f)
	b := bufio.NewWriterSize(f, 1<<20)
	p.bufs = append(p.bufs, b)
	return b, nil
}

// finish flushes and closes every part and gives it its final name.
func (p *partFiles) finish() error {
	for _, b := range p.bufs {
		if err := b.Flush(); err != nil {
			return err
		}
	}
	if p.direct != nil {
		p.names = []string{p.path}
		return p.direct.Close()
	}
	if p.path == "" {
		return nil
	}
	for _, f := range p.files {
		if err := f.Close(); err != nil {
			return fmt.Errorf("writing %s: %w", p.path, err)
		}
	}
	p.names = nil
	for i := range p.files {
		p.names = append(p.names, partName(p.path, i, len(p.files)))
	}
	for i, f := range p.files {
		if err := os.Rename(f.Name(), p.names[i]); err != nil {
			return fmt.Errorf("writing %s: %w", p.names[i], err)
		}
	}
	p.files = nil
	return nil
}

// abandon removes the temporary files of a failed export.
func (p *partFiles) abandon() {
	for _, f := range p.files {
		f.Close()
		os.Remove(f.Name())
	}
}

// dest says where the export went.
func (p *partFiles) dest() string {
	switch {
	case p.path == "":
		return "standard output"
	case len(p.names) == 1:
		return p.names[0]
	}
	return fmt.Sprintf("%d files (%s … %s)", len(p.names), p.names[0], p.names[len(p.names)-1])
}

// partName is the name of part i of n of an export to path.
func partName(path string, i, n int) string {
	if n == 1 {
		return path
	}
	ext := filepath.Ext(path)
	stem := strings.TrimSuffix(path, ext)
	if ext == "" {
		ext = ".jsonl"
	}
	return fmt.Sprintf("%s.%03d%s", stem, i+1, ext)
}
