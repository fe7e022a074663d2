//go:build !(linux || darwin)

package openai

import "net"

// h1Supported: elsewhere every request goes through net/http.
const h1Supported = false

func h1Alive(net.Conn) bool { return false }
