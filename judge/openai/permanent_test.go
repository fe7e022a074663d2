package openai

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prism-eval/prism/judge"
)

// failingBase is a base transport whose every round trip fails with err.
type failingBase struct {
	err   error
	calls atomic.Int32
}

func (b *failingBase) RoundTrip(*http.Request) (*http.Response, error) {
	b.calls.Add(1)
	return nil, b.err
}

// scoreOnce scores the standard request and checks the error kind, that
// it stops the run and that no retry was made (at most one attempt, no
// wait).
func scoreOnce(t *testing.T, c *Client, rec *recorder, want judge.ErrorKind) *judge.Error {
	t.Helper()
	res, err := c.Score(context.Background(), request())
	if got := judge.KindOf(err); got != want {
		t.Fatalf("kind %q (%v), want %q", got, err, want)
	}
	if !want.StopsRun() || want.Retryable() {
		t.Errorf("%s: StopsRun %v Retryable %v, want true, false", want, want.StopsRun(), want.Retryable())
	}
	if len(res.Samples) != 1 || res.Samples[0].Attempts > 1 {
		t.Errorf("%d samples, attempts %d; want one sample of at most one attempt", len(res.Samples), res.Samples[0].Attempts)
	}
	if len(rec.sleeps) != 0 {
		t.Errorf("waited %v before giving up on a permanent error", rec.sleeps)
	}
	var je *judge.Error
	errors.As(err, &je)
	return je
}

func TestPermanentErrorsAreNotRetried(t *testing.T) {
	dnsNotFound := &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "api.example.invalid", IsNotFound: true}}
	cases := []struct {
		name string
		err  error
		want judge.ErrorKind
	}{
		{"dns no such host", dnsNotFound, judge.KindDNS},
		{"unknown authority", &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}, judge.KindTLS},
		{"bare unknown authority", x509.UnknownAuthorityError{}, judge.KindTLS},
		{"hostname", x509.HostnameError{Certificate: &x509.Certificate{}, Host: "wrong.example"}, judge.KindTLS},
		{"expired", x509.CertificateInvalidError{Cert: &x509.Certificate{}, Reason: x509.Expired}, judge.KindTLS},
		{"tls to a plain port", tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}, judge.KindTLS},
		{"unsupported scheme", errors.New(`unsupported protocol scheme ""`), judge.KindConfig},
		{"no host", errors.New("http: no Host in request URL"), judge.KindConfig},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			base := &failingBase{err: tc.err}
			rec := &recorder{}
			c := newClient(t, "http://127.0.0.1:9/v1", rec, nil)
			c.transport.Base = base
			scoreOnce(t, c, rec, tc.want)
			if n := base.calls.Load(); n != 1 {
				t.Errorf("%d attempts, want 1", n)
			}
		})
	}
}

func TestTemporaryDNSErrorIsRetried(t *testing.T) {
	base := &failingBase{err: &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "server misbehaving", Name: "api.example.com", IsTemporary: true}}}
	rec := &recorder{}
	c := newClient(t, "http://127.0.0.1:9/v1", rec, func(c *judge.Config) { c.Retries = 2 })
	c.transport.Base = base
	_, err := c.Score(context.Background(), request())
	if judge.KindOf(err) != judge.KindNetwork || base.calls.Load() != 3 || len(rec.sleeps) != 2 {
		t.Errorf("kind %q after %d attempts, waits %v; want network after 3", judge.KindOf(err), base.calls.Load(), rec.sleeps)
	}
}

// TestTLSAgainstRealServers uses real handshakes: an untrusted
// certificate, a certificate for another host, and TLS spoken to a plain
// HTTP port.
func TestTLSAgainstRealServers(t *testing.T) {
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Error("a request got past a failed TLS verification")
	}))
	defer ts.Close()

	rec := &recorder{}
	c := newClient(t, ts.URL, rec, nil)
	c.transport.Base = &http.Transport{} // trusts only the system roots
	je := scoreOnce(t, c, rec, judge.KindTLS)
	if !strings.Contains(je.Msg, "certificate") {
		t.Errorf("message %q does not say what failed", je.Msg)
	}

	pool := x509.NewCertPool()
	pool.AddCert(ts.Certificate())
	rec = &recorder{}
	c = newClient(t, ts.URL, rec, nil)
	c.transport.Base = &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: "wrong.host.test"}}
	scoreOnce(t, c, rec, judge.KindTLS)

	plain := newFake(t, reply(`{"score": 7}`))
	rec = &recorder{}
	c = newClient(t, strings.Replace(plain.URL, "http://", "https://", 1), rec, nil)
	c.transport.Base = &http.Transport{}
	je = scoreOnce(t, c, rec, judge.KindTLS)
	if !strings.Contains(je.Msg, "does not speak TLS") {
		t.Errorf("message %q does not explain the scheme mismatch", je.Msg)
	}
}

func TestBadBaseURL(t *testing.T) {
	// Validate refuses the form; New reports it as a config error.
	for _, u := range []string{"notaurl", "localhost:8000/v1", "http://"} {
		cfg := judge.Defaults()
		cfg.Backend, cfg.Model, cfg.BaseURL = judge.BackendOpenAI, "m", u
		_, err := New(cfg)
		if judge.KindOf(err) != judge.KindConfig || !strings.Contains(err.Error(), "base_url") {
			t.Errorf("New with base_url %q: %v, want a config error naming base_url", u, err)
		}
	}
	// The transport refuses one too, without an attempt, however it got
	// there.
	base := &failingBase{err: errors.New("unreachable")}
	tr := &Transport{Base: base, Retries: 6, Sleep: (&recorder{}).sleep}
	for _, raw := range []string{"notaurl/chat/completions", "ftp://host/v1", "http:///v1/chat/completions"} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		req := &http.Request{Method: "POST", URL: u, Header: http.Header{}}
		_, err = tr.RoundTrip(req.WithContext(context.Background()))
		var ae *attemptError
		if !errors.As(err, &ae) || ae.kind != judge.KindConfig {
			t.Errorf("%s: %v, want a config error", raw, err)
		}
	}
	if base.calls.Load() != 0 {
		t.Errorf("%d attempts for unusable URLs", base.calls.Load())
	}
	// A URL go-openai cannot even build is a config error too.
	c := newClient(t, "http://x", &recorder{}, nil)
	e := c.classify(context.Background(), &url.Error{Op: "parse", URL: "http://[::1/chat", Err: errors.New("missing ']' in host")}, &callInfo{})
	if e.Kind != judge.KindConfig {
		t.Errorf("url parse error classified %q", e.Kind)
	}
}

// countingBody counts the bytes the transport read from a reply.
type countingBase struct{ read atomic.Int64 }

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

func (b *countingBase) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil {
		resp.Body = countingBody{resp.Body, &b.read}
	}
	return resp, err
}

func TestReplyTooLarge(t *testing.T) {
	const size = 3 << 20
	var written atomic.Int64
	huge := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		chunk := []byte(`{"id":"` + strings.Repeat("x", 4089) + "\n")
		for n := 0; n < size; n += len(chunk) {
			k, err := w.Write(chunk)
			written.Add(int64(k))
			if err != nil {
				return
			}
		}
	}
	f := newFake(t, huge, reply(`{"score": 7}`))
	rec := &recorder{}
	base := &countingBase{}
	c := newClient(t, f.URL, rec, nil)
	c.transport.Base = base
	res, err := c.Score(context.Background(), request())
	if judge.KindOf(err) != judge.KindTooLarge {
		t.Fatalf("kind %q (%v), want too_large", judge.KindOf(err), err)
	}
	k := judge.KindTooLarge
	if k.Retryable() || k.StopsRun() {
		t.Errorf("too_large: retryable %v stops %v, want neither", k.Retryable(), k.StopsRun())
	}
	if f.calls() != 1 || len(rec.sleeps) != 0 {
		t.Errorf("%d calls, waits %v: a too-large reply was retried", f.calls(), rec.sleeps)
	}
	s := res.Samples[0]
	if s.Err.Msg != "reply larger than 1 MiB (limit: max_reply_bytes)" || s.Err.Status != 200 {
		t.Errorf("error %+v", s.Err)
	}
	if len(s.Raw) == 0 || len(s.Raw) > RawPrefix || !strings.HasPrefix(s.Raw, `{"id":"xxx`) {
		t.Errorf("Raw keeps %d bytes (%.20q…), want a prefix of at most %d", len(s.Raw), s.Raw, RawPrefix)
	}
	if n := base.read.Load(); n > 1<<20+1 {
		t.Errorf("the transport read %d bytes of the reply, limit %d", n, 1<<20)
	}

	// A smaller limit applies; a reply of exactly the limit is read.
	body := completionJSON(`{"score": 7}`, nil, usage{}, "", "")
	f = newFake(t, replyFull(`{"score": 7}`, nil, usage{}, "", ""))
	c = newClient(t, f.URL, &recorder{}, func(c *judge.Config) { c.MaxReplyBytes = int64(len(body)) })
	if res, err := c.Score(context.Background(), request()); err != nil || res.Score != 7 {
		t.Errorf("a reply of exactly max_reply_bytes: %v, %v", res.Score, err)
	}
	c = newClient(t, f.URL, &recorder{}, func(c *judge.Config) { c.MaxReplyBytes = int64(len(body)) - 1 })
	if _, err := c.Score(context.Background(), request()); judge.KindOf(err) != judge.KindTooLarge ||
		!strings.Contains(err.Error(), fmt.Sprintf("larger than %d bytes", len(body)-1)) {
		t.Errorf("a reply one byte over: %v", err)
	}

	// An error reply over the limit keeps its status and is retried as
	// such (only its prefix is read).
	bigErr := status(503, strings.Repeat("unavailable ", 200_000))
	f = newFake(t, bigErr, reply(`{"score": 5}`))
	rec = &recorder{}
	c = newClient(t, f.URL, rec, nil)
	if res, err := c.Score(context.Background(), request()); err != nil || res.Score != 5 || len(rec.sleeps) != 1 {
		t.Errorf("a large 503 then ok: %v, %v, waits %v", res.Score, err, rec.sleeps)
	}
}

func TestRetryAfterIsCapped(t *testing.T) {
	f := newFake(t, apiError(429, "come back tomorrow", "Retry-After", "100000"), reply(`{"score": 6}`))
	rec := &recorder{}
	c := newClient(t, f.URL, rec, nil) // max_retry_wait: the default
	res, err := c.Score(context.Background(), request())
	if err != nil || res.Score != 6 {
		t.Fatalf("score %v, %v", res.Score, err)
	}
	if len(rec.sleeps) != 1 || rec.sleeps[0] != judge.DefaultMaxRetryWait {
		t.Errorf("waits %v, want [%v]: the hint must be cut to max_retry_wait", rec.sleeps, judge.DefaultMaxRetryWait)
	}
	if len(rec.logs) != 1 || !strings.Contains(rec.logs[0], "retrying in 1m0s; the server asked for 27h46m40s") {
		t.Errorf("log %q", rec.logs)
	}

	// Always refusing: every wait is the cap, the retries stay bounded,
	// and the error reports what the server asked for.
	f = newFake(t, apiError(429, "quota", "Retry-After", "100000"))
	rec = &recorder{}
	c = newClient(t, f.URL, rec, func(c *judge.Config) { c.MaxRetryWait = judge.Duration(5 * time.Second) })
	_, err = c.Score(context.Background(), request())
	var je *judge.Error
	if !errors.As(err, &je) || je.Kind != judge.KindRateLimit || je.RetryAfter != 100000*time.Second || f.calls() != 4 {
		t.Fatalf("error %+v after %d calls", je, f.calls())
	}
	for _, d := range rec.sleeps {
		if d != 5*time.Second {
			t.Errorf("waits %v, want 5s each", rec.sleeps)
			break
		}
	}
}

func TestHintRobust(t *testing.T) {
	now := time.Date(2026, 11, 30, 1, 0, 0, 0, time.UTC)
	tr := &Transport{Now: func() time.Time { return now }}
	cases := []struct {
		hdr  []string
		want time.Duration
	}{
		{[]string{"Retry-After", "100000"}, 100000 * time.Second},
		{[]string{"Retry-After", "-5"}, 0},
		{[]string{"Retry-After", "NaN"}, 0},
		{[]string{"Retry-After", "Infinity"}, judge.MaxHint},
		{[]string{"Retry-After", "+Inf"}, judge.MaxHint},
		{[]string{"Retry-After", "-Infinity"}, 0},
		{[]string{"Retry-After", "1e300"}, judge.MaxHint},
		{[]string{"Retry-After", "1e400"}, judge.MaxHint}, // out of float64 range
		{[]string{"Retry-After", " 2 "}, 2 * time.Second},
		{[]string{"Retry-After", "Fri, 31 Dec 9999 23:59:59 GMT"}, judge.MaxHint},
		{[]string{"retry-after-ms", "1e300"}, judge.MaxHint},
		{[]string{"retry-after-ms", "NaN", "Retry-After", "3"}, 3 * time.Second},
		{[]string{"retry-after-ms", "-1", "Retry-After", "3"}, 3 * time.Second},
		{[]string{"x-ratelimit-reset-requests", "1e300"}, judge.MaxHint},
		{[]string{"x-ratelimit-reset-requests", "100000h"}, judge.MaxHint},
		{[]string{"x-ratelimit-reset-requests", "NaN"}, 0},
	}
	for _, c := range cases {
		resp := &http.Response{StatusCode: 429, Header: http.Header{}}
		for i := 0; i+1 < len(c.hdr); i += 2 {
			resp.Header.Set(c.hdr[i], c.hdr[i+1])
		}
		got := tr.hint(resp)
		if got != c.want || got < 0 || got > judge.MaxHint {
			t.Errorf("%v: hint %v, want %v", c.hdr, got, c.want)
		}
	}
}

func TestServerTextIsSanitised(t *testing.T) {
	hostile := "Incorrect API key\x1b[2J\x1b[H\x07 provided\u009b2J: " + fakeKey
	hasControl := func(s string) bool {
		for _, r := range s {
			if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) {
				return true
			}
		}
		return false
	}
	scripts := map[string][]step{
		"401 JSON":      {apiError(401, hostile)},
		"401 plain":     {status(401, hostile)},
		"404":           {apiError(404, hostile)},
		"500":           {apiError(500, hostile)},
		"refusal field": {replyFull("", nil, usage{}, hostile, "")},
	}
	for name, script := range scripts {
		f := newFake(t, script...)
		rec := &recorder{}
		c := newClient(t, f.URL, rec, func(c *judge.Config) { c.Retries = 1 })
		res, err := c.Score(context.Background(), request())
		if err == nil {
			t.Fatalf("%s: no error", name)
		}
		texts := append([]string{err.Error(), res.Samples[0].Err.Msg}, rec.logs...)
		for _, s := range texts {
			if hasControl(s) || strings.Contains(s, fakeKey) {
				t.Errorf("%s: %q carries control characters or the key", name, s)
			}
		}
		if !strings.Contains(res.Samples[0].Err.Msg, "Incorrect API key provided: [redacted]") {
			t.Errorf("%s: message %q lost its text", name, res.Samples[0].Err.Msg)
		}
	}
	// The reply itself is data: stored verbatim (the key aside).
	reply := "{\"score\": 7} \x1b[1mbold\x1b[0m\x07"
	f := newFake(t, replyFull(reply, nil, usage{}, "", ""))
	c := newClient(t, f.URL, &recorder{}, nil)
	res, err := c.Score(context.Background(), request())
	if err != nil || res.Samples[0].Raw != reply {
		t.Errorf("Raw %q (%v), want the reply verbatim", res.Samples[0].Raw, err)
	}
}
