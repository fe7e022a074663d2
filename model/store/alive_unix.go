//go:build unix

package store

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"syscall"
)

// processAlive reports whether a process with this pid runs on this host
// (signal 0 checks without sending; EPERM means it exists but is not
// ours). A zombie — killed, not yet reaped by its parent — is not alive:
// a harness that kill -9s prism and starts it again at once must be able
// to resume.
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	if err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	// /proc/PID/stat is "pid (comm) S …"; comm may hold spaces and
	// parentheses, so the state follows the last ')'.
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true // no /proc (not Linux): the signal said it exists
	}
	if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) {
		return b[i+2] != 'Z'
	}
	return true
}
