package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/prism-eval/prism/judge"
)

// Transport is the resilience layer go-openai lacks: an http.RoundTripper
// that retries one chat call on 429, 5xx, 408, per-attempt timeouts,
// broken connections and truncated or non-JSON 200 bodies, waiting
// min(MaxDelay, BaseDelay·2^a)·(½ + ½·u) before retry a (u uniform in
// [0,1), "equal jitter"), or exactly the server's hint when it gives one
// (retry-after-ms, then Retry-After as seconds or an HTTP date, then on a
// 429 the x-ratelimit-reset-requests/-tokens of the exhausted limit).
// A hint beyond MaxWait ends the retries. 401 and 403, like every other
// 4xx, are returned at once. Every attempt runs under its own Timeout;
// cancelling the request's context stops everything.
//
// Bodies are read in full inside the attempt so that a connection dropped
// mid-body is retried rather than surfacing as a decode error later.
type Transport struct {
	Base      http.RoundTripper // nil: http.DefaultTransport
	Retries   int               // retries after the first attempt
	Timeout   time.Duration     // per attempt; 0: none
	MaxWait   time.Duration     // largest single wait; 0: no cap
	BaseDelay time.Duration     // first backoff (default 500ms)
	MaxDelay  time.Duration     // backoff cap (default 30s)

	// Sleep waits d or until ctx ends (tests inject a recorder).
	Sleep func(ctx context.Context, d time.Duration) error
	// Rand returns the jitter draw in [0,1).
	Rand func() float64
	// Now is the clock for HTTP-date Retry-After values.
	Now func() time.Time
	// Log receives one line per retry; lines never contain the key.
	Log func(line string)
}

// callInfo travels in the request context from the client to the
// transport and back: body patches in, attempt records out.
type callInfo struct {
	patch map[string]any // top-level JSON fields to set (e.g. temperature 0)

	attempts   int
	status     int
	kind       judge.ErrorKind // the last attempt's transient failure, "" if none
	retryAfter time.Duration
	detail     string
}

type infoKey struct{}

func withInfo(ctx context.Context, ci *callInfo) context.Context {
	return context.WithValue(ctx, infoKey{}, ci)
}

func infoFrom(ctx context.Context) *callInfo {
	ci, _ := ctx.Value(infoKey{}).(*callInfo)
	if ci == nil {
		ci = &callInfo{}
	}
	return ci
}

// transientError is what RoundTrip returns when the last attempt failed
// below HTTP (timeout, connection).
type transientError struct {
	kind judge.ErrorKind
	msg  string
}

func (e *transientError) Error() string { return string(e.kind) + ": " + e.msg }

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ci := infoFrom(req.Context())
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
	}
	if len(ci.patch) > 0 && len(body) > 0 {
		body = patchJSON(body, ci.patch)
	}
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	parent := req.Context()
	for attempt := 0; ; attempt++ {
		ci.attempts = attempt + 1
		resp, kind, detail := t.attempt(parent, base, req, body)
		ci.kind, ci.detail = kind, detail
		if resp != nil {
			ci.status = resp.StatusCode
		}
		if parent.Err() != nil {
			return nil, parent.Err()
		}
		if kind == "" {
			return resp, nil
		}
		var hint time.Duration
		if resp != nil {
			hint = t.hint(resp)
			ci.retryAfter = hint
		}
		giveUp := attempt >= t.Retries || (t.MaxWait > 0 && hint > t.MaxWait)
		if giveUp {
			if resp != nil {
				return resp, nil // the client reads the status and body
			}
			return nil, &transientError{kind: kind, msg: detail}
		}
		wait := hint
		if wait <= 0 {
			wait = t.backoff(attempt)
		}
		if t.Log != nil {
			t.Log(fmt.Sprintf("judge: attempt %d/%d failed (%s: %s); retrying in %s",
				attempt+1, t.Retries+1, kind, detail, wait.Round(time.Millisecond)))
		}
		if err := t.sleep(parent, wait); err != nil {
			return nil, err
		}
	}
}

// attempt makes one HTTP attempt and reports the transient failure kind
// ("" when the response should be returned as is).
func (t *Transport) attempt(parent context.Context, base http.RoundTripper, req *http.Request, body []byte) (*http.Response, judge.ErrorKind, string) {
	ctx, cancel := parent, context.CancelFunc(func() {})
	if t.Timeout > 0 {
		ctx, cancel = context.WithTimeout(parent, t.Timeout)
	}
	defer cancel()
	r := req.Clone(ctx)
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	resp, err := base.RoundTrip(r)
	if err != nil {
		if ctx.Err() != nil && parent.Err() == nil {
			return nil, judge.KindTimeout, fmt.Sprintf("no answer within %s", t.Timeout)
		}
		return nil, judge.KindNetwork, err.Error()
	}
	data, rerr := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(data))
	resp.ContentLength = int64(len(data))
	if rerr != nil {
		if ctx.Err() != nil && parent.Err() == nil {
			return nil, judge.KindTimeout, fmt.Sprintf("body not complete within %s", t.Timeout)
		}
		return nil, judge.KindNetwork, "connection broken while reading the answer: " + rerr.Error()
	}
	switch c := resp.StatusCode; {
	case c == http.StatusTooManyRequests:
		return resp, judge.KindRateLimit, "HTTP 429"
	case c == http.StatusRequestTimeout:
		return resp, judge.KindTimeout, "HTTP 408"
	case c >= 500 && c != http.StatusNotImplemented:
		return resp, judge.KindServer, "HTTP " + strconv.Itoa(c)
	case c >= 200 && c < 300 && !json.Valid(data):
		return resp, judge.KindServer, "the answer is not JSON"
	}
	return resp, "", ""
}

// hint returns the server's requested wait, or 0.
func (t *Transport) hint(resp *http.Response) time.Duration {
	h := resp.Header
	if v := h.Get("retry-after-ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 && ms < 1e12 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	if v := h.Get("Retry-After"); v != "" {
		if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 && s < 1e9 {
			return time.Duration(s * float64(time.Second))
		}
		if at, err := http.ParseTime(v); err == nil {
			now := time.Now
			if t.Now != nil {
				now = t.Now
			}
			return max(0, at.Sub(now()))
		}
	}
	if resp.StatusCode != http.StatusTooManyRequests {
		return 0
	}
	// x-ratelimit-*: wait for the limit that is exhausted; when the server
	// does not say which, for the later of the two resets.
	var best time.Duration
	known := false
	for _, lim := range []string{"requests", "tokens"} {
		rem := h.Get("x-ratelimit-remaining-" + lim)
		if rem != "" {
			known = true
		}
		if rem != "" && rem != "0" {
			continue
		}
		if d, ok := parseReset(h.Get("x-ratelimit-reset-" + lim)); ok {
			best = max(best, d)
		}
	}
	if !known {
		for _, lim := range []string{"requests", "tokens"} {
			if d, ok := parseReset(h.Get("x-ratelimit-reset-" + lim)); ok {
				best = max(best, d)
			}
		}
	}
	return best
}

// parseReset reads "1s", "6m0s", "20ms" (Go durations, as OpenAI sends
// them) or a bare number of seconds.
func parseReset(v string) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if d, err := time.ParseDuration(v); err == nil && d >= 0 {
		return d, true
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 && s < 1e9 {
		return time.Duration(s * float64(time.Second)), true
	}
	return 0, false
}

func (t *Transport) backoff(attempt int) time.Duration {
	base, cap := t.BaseDelay, t.MaxDelay
	if base <= 0 {
		base = 500 * time.Millisecond
	}
	if cap <= 0 {
		cap = 30 * time.Second
	}
	d := float64(base) * math.Pow(2, float64(attempt))
	d = math.Min(d, float64(cap))
	u := rand.Float64()
	if t.Rand != nil {
		u = t.Rand()
	}
	return time.Duration(d/2 + d/2*u)
}

func (t *Transport) sleep(ctx context.Context, d time.Duration) error {
	if t.Sleep != nil {
		return t.Sleep(ctx, d)
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// patchJSON sets top-level fields of a JSON object body; a body that is
// not an object is returned unchanged.
func patchJSON(body []byte, patch map[string]any) []byte {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return body
	}
	for k, v := range patch {
		b, err := json.Marshal(v)
		if err != nil {
			continue
		}
		m[k] = b
	}
	out, err := json.Marshal(m)
	if err != nil {
		return body
	}
	return out
}
