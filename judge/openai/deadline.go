package openai

import (
	"context"
	"io"
	"net/http"
	"time"
)

// One deadline an attempt. The retry layer (Transport.attempt) bounds
// each attempt by Timeout. Below a transport that can take the deadline
// itself (h1Transport, reached through wrappers that say what they wrap
// with Unwrap), the attempt's deadline travels in the call's callInfo and
// becomes the connection's; elsewhere the attempt gets a context with a
// timeout, as before. A context per attempt was a timer and a
// registration with the run's context, whose lock every worker shares:
// about 5 µs of CPU a request at concurrency 128 (docs/performance.md,
// "One deadline an attempt").

// attemptDeadline is when the attempt under way in ctx ends: the
// earlier of ctx's deadline and the one the retry layer left in its
// callInfo; zero for none.
func attemptDeadline(ctx context.Context) time.Time {
	d, _ := ctx.Deadline()
	if ci, ok := ctx.Value(infoKey{}).(*callInfo); ok && !ci.deadline.IsZero() && (d.IsZero() || ci.deadline.Before(d)) {
		d = ci.deadline
	}
	return d
}

// AttemptEnded reports whether the HTTP attempt whose request carries ctx
// has ended: ctx ended, or the deadline the client's retry layer set for
// the attempt has passed. A transport that wraps the client's (Unwrap)
// asks this rather than ctx.Err(), which says nothing of the deadline.
func AttemptEnded(ctx context.Context) bool {
	if ctx.Err() != nil {
		return true
	}
	d := attemptDeadline(ctx)
	return !d.IsZero() && !time.Now().Before(d)
}

// takesDeadline reports whether rt, or what it wraps (Unwrap), is an
// h1Transport: one that bounds a request by attemptDeadline. A wrapper
// that says what it wraps passes each request's context on unchanged.
func takesDeadline(rt http.RoundTripper) bool {
	for range 16 { // a bound, in case of a wrapper that wraps itself
		switch t := rt.(type) {
		case *h1Transport:
			return true
		case interface{ Unwrap() http.RoundTripper }:
			rt = t.Unwrap()
		default:
			return false
		}
	}
	return false
}

// fallbackRoundTrip sends req with net/http's transport, bounded by
// attemptDeadline through a context that ends when the reply's body is
// closed.
func (t *h1Transport) fallbackRoundTrip(req *http.Request) (*http.Response, error) {
	d := attemptDeadline(req.Context())
	if d.IsZero() {
		return t.fallback.RoundTrip(req)
	}
	ctx, cancel := context.WithDeadline(req.Context(), d)
	resp, err := t.fallback.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		return nil, err
	}
	resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

// cancelBody ends its request's context when it is closed.
type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}
