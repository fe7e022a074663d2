//go:build linux || darwin

package openai

import (
	"net"
	"syscall"
)

// h1Supported: h1Transport sends itself where h1Peek can look.
const h1Supported = true

// h1Peek looks at one connection: made once when it is dialled, so that
// each look is the syscall alone (no raw-conn or closure allocated per
// request).
type h1Peek struct {
	rc    syscall.RawConn // nil: none, the connection is never reused
	alive bool
	buf   [1]byte
	look  func(fd uintptr) bool
}

func newH1Peek(c net.Conn) *h1Peek {
	p := &h1Peek{}
	if sc, ok := c.(syscall.Conn); ok {
		if rc, err := sc.SyscallConn(); err == nil {
			p.rc = rc
		}
	}
	p.look = func(fd uintptr) bool {
		_, _, err := syscall.Recvfrom(int(fd), p.buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		// EAGAIN: open and nothing to read. Otherwise it was closed (0
		// bytes), reset, or holds bytes nobody asked for.
		p.alive = err == syscall.EAGAIN || err == syscall.EWOULDBLOCK
		return true // never wait for readiness
	}
	return p
}

// open reports whether an idle connection is still open with nothing
// unread on it: a peek that does not wait (one recv syscall). net/http
// learns the same from the read it keeps running on every idle
// connection; a connection the server closed while idle would otherwise
// fail the next request sent on it.
func (p *h1Peek) open() bool {
	if p.rc == nil {
		return false
	}
	p.alive = false
	err := p.rc.Read(p.look)
	return p.alive && err == nil
}
