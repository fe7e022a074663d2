//go:build linux || darwin

package openai

import (
	"net"
	"syscall"
)

// h1Supported: h1Transport sends itself where h1Alive can look.
const h1Supported = true

// h1Alive reports whether an idle connection is still open with nothing
// unread on it: a peek that does not wait (one recv syscall). net/http
// learns the same from the read it keeps running on every idle
// connection; a connection the server closed while idle would otherwise
// fail the next request sent on it.
func h1Alive(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	alive := false
	var buf [1]byte
	err = rc.Read(func(fd uintptr) bool {
		_, _, err := syscall.Recvfrom(int(fd), buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		// EAGAIN: open and nothing to read. Otherwise it was closed (0
		// bytes), reset, or holds bytes nobody asked for.
		alive = err == syscall.EAGAIN || err == syscall.EWOULDBLOCK
		return true // never wait for readiness
	})
	return alive && err == nil
}
