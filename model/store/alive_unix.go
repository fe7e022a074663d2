//go:build unix

package store

import (
	"errors"
	"syscall"
)

// processAlive reports whether a process with this pid exists on this
// host (signal 0 checks without sending; EPERM means it exists but is
// not ours).
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
