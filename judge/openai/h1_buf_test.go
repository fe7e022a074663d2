package openai

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestH1LongRequestsAndReusedBuffers: requests whose headers are longer
// than h1Request foresees, and requests of different sizes one after
// another (each message is built in a buffer of the one before), reach
// the server as net/http's Transport writes them.
func TestH1LongRequestsAndReusedBuffers(t *testing.T) {
	s := newRawServer(t, func(w io.Writer, _ int) bool {
		io.WriteString(w, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}")
		return true
	})
	lean := leanOnly(t)
	for i, size := range []struct{ header, body int }{
		{0, 13}, {2000, 600}, {4000, 1500}, {0, 5000}, {300, 2}, {1300, 600}, {0, 13},
	} {
		var got [2][]byte
		for j, rt := range []http.RoundTripper{newHTTPTransport(), lean} {
			body := `{"m":"` + strings.Repeat("x", size.body) + `"}`
			req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, s.url+"/v1/chat/completions", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			if size.header > 0 {
				req.Header.Set("X-Long", strings.Repeat("h", size.header))
			}
			got[j] = s.received(t, rt, req, fmt.Sprintf("request %d, transport %d", i, j))
		}
		if !bytes.Equal(got[0], got[1]) {
			t.Errorf("request %d:\nnet/http %q\nh1       %q", i, got[0], got[1])
		}
	}
	if lean.lean.Load() != 7 {
		t.Errorf("h1Transport sent %d requests itself, want 7", lean.lean.Load())
	}
}
