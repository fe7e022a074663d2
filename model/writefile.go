package model

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFileAtomic writes an output file (-o FILE, --save FILE). A new path
// or a regular file is written through a temporary file in the same
// directory (mode 0644) and renamed into place, so a failed write never
// leaves a truncated file behind and an existing file is replaced whole or
// not at all. Renaming is only right for regular files: a device or FIFO
// (/dev/null, /dev/stdout, a named pipe) is written to directly, as a shell
// redirect would, and a symbolic link is followed, so the link stays and
// its target is replaced. A directory, a socket or a link to a missing
// file is refused.
func WriteFileAtomic(path string, write func(io.Writer) error) error {
	target, st, err := outputTarget(path)
	if err != nil {
		return err
	}
	if st != nil && !st.Mode().IsRegular() {
		return writeDirect(path, target, write)
	}
	return writeRenamed(target, write)
}

// outputTarget resolves path's symbolic links and returns the file to
// write and its current mode (nil when it does not exist yet).
func outputTarget(path string) (string, fs.FileInfo, error) {
	target := path
	if lst, err := os.Lstat(path); err == nil && lst.Mode()&fs.ModeSymlink != 0 {
		if target, err = filepath.EvalSymlinks(path); err != nil {
			return "", nil, fmt.Errorf("writing %s: a symbolic link whose target cannot be resolved (%v); give the target's path", path, err)
		}
	}
	st, err := os.Stat(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return target, nil, nil
	case err != nil:
		return "", nil, fmt.Errorf("writing %s: %w", path, err)
	case st.IsDir():
		return "", nil, fmt.Errorf("writing %s: is a directory, want a file name", path)
	case st.Mode()&fs.ModeSocket != 0:
		return "", nil, fmt.Errorf("writing %s: is a socket, want a file, device or pipe", path)
	}
	return target, st, nil
}

// writeDirect writes to a device or pipe in place: it cannot be replaced,
// only written to.
func writeDirect(path, target string, write func(io.Writer) error) error {
	f, err := os.OpenFile(target, os.O_WRONLY, 0)
	if err == nil {
		err = write(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return errors.Join(fmt.Errorf("writing %s", path), err)
	}
	return nil
}

func writeRenamed(path string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return errors.Join(fmt.Errorf("writing %s", path), err)
	}
	return nil
}
