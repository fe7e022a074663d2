package openai

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/model"
)

// Transport is the resilience layer go-openai lacks: an http.RoundTripper
// that retries one chat call on 429, 5xx, 408, per-attempt timeouts,
// broken connections and truncated or non-JSON 200 bodies, waiting
// min(MaxDelay, BaseDelay·2^a)·(½ + ½·u) before retry a (u uniform in
// [0,1), "equal jitter"), or the server's hint when it gives one
// (retry-after-ms, then Retry-After as seconds or an HTTP date, then on a
// 429 the x-ratelimit-reset-requests/-tokens of the exhausted limit). No
// wait exceeds MaxWait: a longer hint is cut to it (the hint itself is
// reported as judge.Error.RetryAfter), and the number of retries stays
// Retries. 401 and 403, like every other 4xx, are returned at once.
// Failures that no retry can heal are not retried either: a URL without
// an http(s) scheme or a host (KindConfig), TLS verification failures and
// TLS spoken to a plain HTTP port (KindTLS), a host name that does not
// exist (KindDNS). Every attempt runs under its own Timeout; cancelling
// the request's context stops everything.
//
// Bodies are read inside the attempt, at most MaxBody bytes of them, so
// that a connection dropped mid-body is retried rather than surfacing as
// a decode error later, and a huge reply cannot exhaust memory: a 2xx
// body beyond MaxBody fails the call (KindTooLarge, not retried) keeping
// only its first RawPrefix bytes. A 2xx body that is not JSON is retried
// (KindServer); one whose envelope says two things fails the call
// (KindAmbiguous, not retried: envelope.go).
type Transport struct {
	Base      http.RoundTripper // nil: HTTPTransport()
	Retries   int               // retries after the first attempt
	Timeout   time.Duration     // per attempt; 0: none
	MaxWait   time.Duration     // largest single wait; a longer hint is cut to it; 0: no cap
	MaxBody   int64             // largest reply body; 0: judge.DefaultMaxReplyBytes
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

// MaxIdleConnsPerHost is the idle connection pool per server of
// HTTPTransport: enough for one kept-alive connection per request in
// flight at any concurrency prism is run with. (Go's default of 2 made
// every request beyond the second of a round open a new connection:
// 110,000 connections for 121,600 requests at concurrency 128.)
const MaxIdleConnsPerHost = 1024

var sharedTransport = newHTTPTransport()

// HTTPTransport is the HTTP transport Clients send with unless
// WithBaseTransport says otherwise, one for the whole process so that its
// connections are reused across clients and runs: http.DefaultTransport's
// settings (proxy from the environment, dial, TLS and idle timeouts,
// HTTP/2) with an idle pool of MaxIdleConnsPerHost connections per server
// rather than 2.
func HTTPTransport() http.RoundTripper { return sharedTransport }

func newHTTPTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = 0 // no limit across servers; each is capped below
	t.MaxIdleConnsPerHost = MaxIdleConnsPerHost
	return t
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
	raw        string // the first RawPrefix bytes of a reply over MaxBody
}

// RawPrefix is how much of a too-large reply is kept for the record.
const RawPrefix = 4 << 10

type infoKey struct{}

func withInfo(ctx context.Context, ci *callInfo) context.Context {
	return context.WithValue(ctx, infoKey{}, ci)
}

// infoFrom is the callInfo ctx carries, else a new one.
func infoFrom(ctx context.Context) *callInfo {
	if ci, _ := ctx.Value(infoKey{}).(*callInfo); ci != nil {
		return ci
	}
	return &callInfo{}
}

// AttemptEnded reports whether the HTTP attempt whose request carries
// ctx has ended: each attempt runs under a context of its own, which
// ends with the attempt's timeout or the caller's cancellation. A
// transport that wraps the client's asks this to tell a failure of the
// server from the end of the attempt.
func AttemptEnded(ctx context.Context) bool { return ctx.Err() != nil }

// attemptError is what RoundTrip returns when the last attempt failed
// below HTTP (timeout, connection, TLS, DNS, bad URL), its reply was too
// large, or its envelope ambiguous.
type attemptError struct {
	kind   judge.ErrorKind
	status int // HTTP status when there was a response
	msg    string
}

func (e *attemptError) Error() string { return string(e.kind) + ": " + e.msg }

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
	if msg := badURL(req.URL); msg != "" {
		return nil, &attemptError{kind: judge.KindConfig, msg: msg}
	}
	base := t.Base
	if base == nil {
		base = sharedTransport
	}
	parent := req.Context()
	for attempt := 0; ; attempt++ {
		ci.attempts = attempt + 1
		resp, kind, detail := t.attempt(parent, base, req, body, ci)
		ci.kind, ci.detail = kind, detail
		status := 0
		if resp != nil {
			status = resp.StatusCode
			ci.status = status
		}
		if parent.Err() != nil {
			return nil, parent.Err()
		}
		if kind == "" {
			return resp, nil
		}
		if !kind.Retryable() || resp == nil && isSendOnce(parent) {
			return nil, &attemptError{kind: kind, status: status, msg: detail}
		}
		var hint time.Duration
		if resp != nil {
			hint = t.hint(resp)
			ci.retryAfter = hint
		}
		if attempt >= t.Retries {
			if resp != nil {
				return resp, nil // the client reads the status and body
			}
			return nil, &attemptError{kind: kind, msg: detail}
		}
		if err := t.wait(parent, attempt, hint, kind, detail); err != nil {
			return nil, err
		}
	}
}

// wait logs the failed attempt and waits before the next: the server's
// hint, else the backoff, at most MaxWait.
func (t *Transport) wait(ctx context.Context, attempt int, hint time.Duration, kind judge.ErrorKind, detail string) error {
	wait, asked := hint, ""
	if wait <= 0 {
		wait = t.backoff(attempt)
	}
	if t.MaxWait > 0 && wait > t.MaxWait {
		wait = t.MaxWait
		if hint > 0 {
			asked = fmt.Sprintf("; the server asked for %s", hint.Round(time.Second))
		}
	}
	if t.Log != nil {
		t.Log(judge.SanitizeServerText(fmt.Sprintf("judge: attempt %d/%d failed (%s: %s); retrying in %s%s",
			attempt+1, t.Retries+1, kind, detail, wait.Round(time.Millisecond), asked)))
	}
	return t.sleep(ctx, wait)
}

// attempt makes one HTTP attempt under its own timeout, reads the reply
// whole inside it (a connection dropped mid-body is retried, not a
// decode error later), and reports the failure kind ("" when the
// response should be returned as is).
func (t *Transport) attempt(parent context.Context, base http.RoundTripper, req *http.Request, body []byte, ci *callInfo) (*http.Response, judge.ErrorKind, string) {
	ctx, cancel := parent, context.CancelFunc(func() {})
	if t.Timeout > 0 {
		ctx, cancel = context.WithTimeout(parent, t.Timeout)
	}
	defer cancel()
	timedOut := func() bool { return parent.Err() == nil && ctx.Err() != nil }
	r := req.WithContext(ctx)
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	resp, err := base.RoundTrip(r)
	if err != nil {
		if timedOut() {
			return nil, judge.KindTimeout, fmt.Sprintf("no answer within %s", t.Timeout)
		}
		if kind, msg := permanent(err); kind != "" {
			return nil, kind, msg
		}
		return nil, judge.KindNetwork, err.Error()
	}
	limit := t.MaxBody
	if limit <= 0 {
		limit = judge.DefaultMaxReplyBytes
	}
	// One byte past the limit tells a body of exactly limit bytes from a
	// longer one; nothing beyond it is read.
	data, rerr := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	resp.Body.Close()
	over := int64(len(data)) > limit
	if over {
		data = data[:min(len(data), RawPrefix)]
	}
	resp.Body = io.NopCloser(bytes.NewReader(data))
	resp.ContentLength = int64(len(data))
	if rerr != nil {
		if timedOut() {
			return nil, judge.KindTimeout, fmt.Sprintf("body not complete within %s", t.Timeout)
		}
		return nil, judge.KindNetwork, "connection broken while reading the answer: " + rerr.Error()
	}
	if over && resp.StatusCode >= 200 && resp.StatusCode < 300 {
		ci.raw = string(data)
		return resp, judge.KindTooLarge, fmt.Sprintf("reply larger than %s (limit: max_reply_bytes)", model.SizeText(limit))
	}
	if isRawReply(parent) && resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return resp, "", "" // a file, not one JSON value (RawReply)
	}
	kind, detail := replyKind(resp.StatusCode, data)
	return resp, kind, detail
}

// replyKind classifies a reply read whole: the retried statuses, a 2xx
// body that is not JSON (retried), or one whose envelope says two things
// (refused: envelope.go). An error reply over the limit is read only for
// its message: its prefix is enough.
func replyKind(status int, data []byte) (judge.ErrorKind, string) {
	switch c := status; {
	case c == http.StatusTooManyRequests:
		return judge.KindRateLimit, "HTTP 429"
	case c == http.StatusRequestTimeout:
		return judge.KindTimeout, "HTTP 408"
	case c >= 500 && c != http.StatusNotImplemented:
		return judge.KindServer, "HTTP " + strconv.Itoa(c)
	case c >= 200 && c < 300:
		if !json.Valid(data) {
			return judge.KindServer, "the answer is not JSON"
		}
		if why := ambiguousValid(data); why != "" {
			return judge.KindAmbiguous, "the answer is ambiguous: " + why
		}
	}
	return "", ""
}

// badURL explains why u cannot be sent anywhere, or returns "".
func badURL(u *url.URL) string {
	switch {
	case u == nil:
		return "no URL"
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Sprintf("base URL %q has no http or https scheme (check base_url)", u.Redacted())
	case u.Host == "":
		return fmt.Sprintf("base URL %q has no host (check base_url)", u.Redacted())
	}
	return ""
}

// permanent classifies a transport error that no retry can heal, or
// returns "".
func permanent(err error) (judge.ErrorKind, string) {
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
		return judge.KindDNS, fmt.Sprintf("host %q not found (check base_url): %v", dnsErr.Name, err)
	}
	var (
		verify   *tls.CertificateVerificationError
		unknown  x509.UnknownAuthorityError
		hostname x509.HostnameError
		invalid  x509.CertificateInvalidError
		header   tls.RecordHeaderError
	)
	switch {
	case errors.As(err, &header), errors.Is(err, http.ErrSchemeMismatch):
		return judge.KindTLS, "the server does not speak TLS (is base_url http:// rather than https://?): " + err.Error()
	case errors.As(err, &verify), errors.As(err, &unknown), errors.As(err, &hostname), errors.As(err, &invalid):
		return judge.KindTLS, "TLS certificate verification failed: " + err.Error()
	}
	var ue *url.Error
	msg := err.Error()
	if (errors.As(err, &ue) && ue.Op == "parse") ||
		strings.Contains(msg, "unsupported protocol scheme") || strings.Contains(msg, "no Host in request URL") {
		return judge.KindConfig, "bad base URL (check base_url): " + msg
	}
	return "", ""
}

// hint returns the server's requested wait, or 0. Values that are not
// waits (negative, NaN, unreadable) are ignored; huge or infinite ones
// are read as judge.MaxHint.
func (t *Transport) hint(resp *http.Response) time.Duration {
	h := resp.Header
	now := time.Now
	if t.Now != nil {
		now = t.Now
	}
	if d, ok := judge.ParseRetryAfter(h, now()); ok {
		return d
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
		if d, ok := judge.ParseReset(h.Get("x-ratelimit-reset-" + lim)); ok {
			best = max(best, d)
		}
	}
	if !known {
		for _, lim := range []string{"requests", "tokens"} {
			if d, ok := judge.ParseReset(h.Get("x-ratelimit-reset-" + lim)); ok {
				best = max(best, d)
			}
		}
	}
	return best
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
