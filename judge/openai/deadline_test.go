package openai

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prism-eval/prism/judge"
)

// seenBy records the context of each request it passes on to base.
type seenBy struct {
	base http.RoundTripper
	ctxs []context.Context
}

func (s *seenBy) RoundTrip(req *http.Request) (*http.Response, error) {
	s.ctxs = append(s.ctxs, req.Context())
	return s.base.RoundTrip(req)
}

// unwrapping is seenBy saying what it wraps.
type unwrapping struct{ *seenBy }

func (u unwrapping) Unwrap() http.RoundTripper { return u.base }

// okServer answers every request at once on a kept-alive connection.
func okServer(t *testing.T) *rawServer {
	return newRawServer(t, func(w io.Writer, _ int) bool {
		io.WriteString(w, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}")
		return true
	})
}

// callReq is a request as the client makes it: its context carries the
// call's callInfo.
func callReq(t *testing.T, ctx context.Context, u string) *http.Request {
	return postJSON(t, withInfo(ctx, &callInfo{}), u)
}

// TestAttemptDeadlineGoesBelow: over an h1Transport, reached directly or
// through a wrapper that says what it wraps, an attempt's timeout
// travels as the call's deadline and the request keeps its caller's
// context; any other transport, or a request without the call's info,
// gets a context with the timeout, as net/http needs.
func TestAttemptDeadlineGoesBelow(t *testing.T) {
	s := okServer(t)
	const timeout = time.Minute
	cases := []struct {
		name  string
		base  func(*seenBy) http.RoundTripper
		req   func() *http.Request
		below bool // the deadline goes below as the call's
	}{
		{"wrapped h1", func(w *seenBy) http.RoundTripper { return unwrapping{w} }, func() *http.Request { return callReq(t, context.Background(), s.url) }, true},
		{"wrapper that hides what it wraps", func(w *seenBy) http.RoundTripper { return w }, func() *http.Request { return callReq(t, context.Background(), s.url) }, false},
		{"no call info", func(w *seenBy) http.RoundTripper { return unwrapping{w} }, func() *http.Request { return postJSON(t, context.Background(), s.url) }, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := &seenBy{base: leanOnly(t)}
			tr := &Transport{Base: c.base(w), Timeout: timeout}
			before := time.Now()
			resp, err := tr.RoundTrip(c.req())
			after := time.Now()
			if err != nil {
				t.Fatal(err)
			}
			io.ReadAll(resp.Body)
			resp.Body.Close()
			if len(w.ctxs) != 1 {
				t.Fatalf("%d attempts", len(w.ctxs))
			}
			ctx := w.ctxs[0]
			_, has := ctx.Deadline()
			d := attemptDeadline(ctx)
			if has == c.below {
				t.Errorf("the request's context has a deadline: %v, want %v", has, !c.below)
			}
			if d.Before(before.Add(timeout)) || d.After(after.Add(timeout)) {
				t.Errorf("attempt deadline %v, want within [%v, %v]", d, before.Add(timeout), after.Add(timeout))
			}
		})
	}
}

// TestAttemptDeadlineEnds: a server that does not answer in time ends
// the attempt as a timeout on each path: h1Transport's own (waiting for
// the reply, and reading its body) and its net/http fallback. The
// caller's context is not ended by it, and the attempt is over for what
// observes it (AttemptEnded).
func TestAttemptDeadlineEnds(t *testing.T) {
	const timeout = 100 * time.Millisecond
	stalled := func(t *testing.T, head string) *rawServer {
		release := make(chan struct{})
		s := newRawServer(t, func(w io.Writer, _ int) bool {
			io.WriteString(w, head)
			<-release
			return false
		})
		t.Cleanup(func() { close(release) }) // before the server's own
		return s
	}
	cases := []struct {
		name     string
		head     string // what the server sends before it stalls
		fallback bool   // the request goes to net/http
		want     string
	}{
		{"no reply", "", false, "no answer within 100ms"},
		{"part of the body", "HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\n{\"sc", false, "body not complete within 100ms"},
		{"no reply, net/http", "", true, "no answer within 100ms"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := stalled(t, c.head)
			h1 := leanOnly(t)
			if c.fallback {
				h1 = newH1Transport(newHTTPTransport())
			}
			w := &seenBy{base: h1}
			tr := &Transport{Base: unwrapping{w}, Timeout: timeout}
			req := callReq(t, context.Background(), s.url)
			if c.fallback {
				req.Header.Set("Range", "bytes=0-") // not a request h1Transport sends itself
			}
			resp, err := tr.RoundTrip(req)
			var ae *attemptError
			if !errors.As(err, &ae) || ae.kind != judge.KindTimeout || ae.msg != c.want {
				t.Fatalf("got %v, %v; want a timeout: %s", resp, err, c.want)
			}
			if n := h1.lean.Load(); (n == 0) != c.fallback {
				t.Errorf("%d requests on the lean path, fallback %v", n, c.fallback)
			}
			ctx := w.ctxs[0]
			if ctx.Err() != nil || !AttemptEnded(ctx) {
				t.Errorf("after the timeout: the caller's context %v, the attempt ended %v", ctx.Err(), AttemptEnded(ctx))
			}
		})
	}
}

// TestH1WatchesAContextOnce: a connection reused under one context is
// registered with it once; after that context ends, a request under
// another goes out on a new connection (the old one may have been cut
// off by the end of the first) and succeeds.
func TestH1WatchesAContextOnce(t *testing.T) {
	s := okServer(t)
	rt := leanOnly(t)
	addr := strings.TrimPrefix(s.url, "http://")
	ctx1, cancel1 := context.WithCancel(context.Background())
	for i := range 3 {
		s.received(t, rt, postJSON(t, ctx1, s.url), "under the first context")
		idle := rt.idle[addr]
		if len(idle) != 1 || idle[0].watched != ctx1.Done() {
			t.Fatalf("request %d: %d idle connections, or not watching the context", i, len(idle))
		}
		if w := idle[0].watches; w != 1 {
			t.Fatalf("after request %d the connection was registered with its context %d times, want once", i, w)
		}
	}
	cancel1()
	s.received(t, rt, postJSON(t, context.Background(), s.url), "under another context after the first ended")
	if n := s.conns.Load(); n != 2 {
		t.Errorf("%d connections, want 2: the one the ended context watched is not reused", n)
	}
	if idle := rt.idle[addr]; len(idle) != 1 || idle[0].watched != nil || idle[0].unwatch != nil {
		t.Errorf("the new connection: %d idle, or still watching a context", len(idle))
	}
}
