package openai

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prism-eval/prism/judge"
)

func TestHint(t *testing.T) {
	now := time.Date(2026, 11, 30, 1, 0, 0, 0, time.UTC)
	tr := &Transport{Now: func() time.Time { return now }}
	cases := []struct {
		status int
		hdr    []string
		want   time.Duration
	}{
		{429, []string{"Retry-After", "3"}, 3 * time.Second},
		{429, []string{"Retry-After", "0.5"}, 500 * time.Millisecond},
		{503, []string{"Retry-After", "Mon, 30 Nov 2026 01:00:10 GMT"}, 10 * time.Second},
		{503, []string{"Retry-After", "Mon, 30 Nov 2026 00:59:00 GMT"}, 0}, // in the past
		{429, []string{"retry-after-ms", "20", "Retry-After", "5"}, 20 * time.Millisecond},
		{429, []string{"Retry-After", "soon"}, 0},
		{429, []string{"x-ratelimit-reset-requests", "1m30s", "x-ratelimit-reset-tokens", "2s"}, 90 * time.Second}, // no remaining: the later
		{429, []string{"x-ratelimit-remaining-tokens", "0", "x-ratelimit-reset-tokens", "6m0s", "x-ratelimit-remaining-requests", "3", "x-ratelimit-reset-requests", "9m"}, 6 * time.Minute},
		{429, []string{"x-ratelimit-reset-requests", "0.25"}, 250 * time.Millisecond},
		{500, []string{"x-ratelimit-reset-requests", "1s"}, 0}, // reset headers count only on a 429
		{429, nil, 0},
	}
	for _, c := range cases {
		resp := &http.Response{StatusCode: c.status, Header: http.Header{}}
		for i := 0; i+1 < len(c.hdr); i += 2 {
			resp.Header.Set(c.hdr[i], c.hdr[i+1])
		}
		if got := tr.hint(resp); got != c.want {
			t.Errorf("%d %v: hint %v, want %v", c.status, c.hdr, got, c.want)
		}
	}
}

func TestBackoff(t *testing.T) {
	// min(cap, base·2^a)·(½ + ½u): u = 0 gives half, u → 1 the whole.
	tr := &Transport{BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second, Rand: func() float64 { return 0 }}
	for a, want := range []time.Duration{50, 100, 200, 400, 500, 500} {
		if got := tr.backoff(a); got != want*time.Millisecond {
			t.Errorf("attempt %d: %v, want %v", a, got, want*time.Millisecond)
		}
	}
	tr.Rand = func() float64 { return 0.5 }
	if got := tr.backoff(1); got != 150*time.Millisecond {
		t.Errorf("u = 0.5: %v, want 150ms", got)
	}
}

func TestPatchJSON(t *testing.T) {
	got := string(patchJSON([]byte(`{"model":"m","temperature":0.5}`), map[string]any{"temperature": 0}))
	if got != `{"model":"m","temperature":0}` {
		t.Errorf("patched %s", got)
	}
	if got := string(patchJSON([]byte(`[1]`), map[string]any{"x": 1})); got != `[1]` {
		t.Errorf("non-object body changed: %s", got)
	}
}

// seenBy records the context of each request it passes on to base.
type seenBy struct {
	base http.RoundTripper
	ctxs []context.Context
}

func (s *seenBy) RoundTrip(req *http.Request) (*http.Response, error) {
	s.ctxs = append(s.ctxs, req.Context())
	return s.base.RoundTrip(req)
}

// TestAttemptTimeout: a server that does not answer in time, or stops
// in the middle of its body, ends the attempt as a timeout; the caller's
// context is not ended by it, and the attempt is over for a transport
// that observes it (AttemptEnded).
func TestAttemptTimeout(t *testing.T) {
	const timeout = 100 * time.Millisecond
	for _, c := range []struct {
		name    string
		partial bool // the server sends part of its body, then stalls
		want    string
	}{
		{"no reply", false, "no answer within 100ms"},
		{"part of the body", true, "body not complete within 100ms"},
	} {
		t.Run(c.name, func(t *testing.T) {
			release := make(chan struct{})
			s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if c.partial {
					w.Header().Set("Content-Length", "20")
					io.WriteString(w, `{"sc`)
					w.(http.Flusher).Flush()
				}
				select {
				case <-release:
				case <-r.Context().Done():
				}
			}))
			t.Cleanup(s.Close)
			t.Cleanup(func() { close(release) }) // before the server's own
			w := &seenBy{base: HTTPTransport()}
			tr := &Transport{Base: w, Timeout: timeout}
			caller := context.Background()
			req, err := http.NewRequestWithContext(withInfo(caller, &callInfo{}), http.MethodPost, s.URL, strings.NewReader("{}"))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := tr.RoundTrip(req)
			var ae *attemptError
			if !errors.As(err, &ae) || ae.kind != judge.KindTimeout || ae.msg != c.want {
				t.Fatalf("got %v, %v; want a timeout: %s", resp, err, c.want)
			}
			if len(w.ctxs) != 1 || caller.Err() != nil || !AttemptEnded(w.ctxs[0]) || AttemptEnded(caller) {
				t.Errorf("%d attempts; after the timeout the attempt ended %v, the caller's %v",
					len(w.ctxs), AttemptEnded(w.ctxs[0]), AttemptEnded(caller))
			}
		})
	}
}
