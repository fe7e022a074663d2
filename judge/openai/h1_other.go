//go:build !(linux || darwin)

package openai

import "net"

// h1Supported: elsewhere every request goes through net/http.
const h1Supported = false

type h1Peek struct{}

func newH1Peek(net.Conn) *h1Peek { return &h1Peek{} }

func (*h1Peek) open() bool { return false }
