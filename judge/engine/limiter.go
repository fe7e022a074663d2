package engine

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Limiter paces request starts under a requests-per-minute and a
// tokens-per-minute limit and holds them when the server says its own
// limits are nearly spent. It is safe for concurrent use.
//
// The RPM limit spaces starts at least 60s/RPM apart (a bucket of one
// request), so no one-second window ever holds more than RPM/60 starts
// (+1 at the window's edge). The TPM limit is a token bucket of one
// second's worth (TPM/60, at least the request being charged) refilled at
// TPM/60 per second, charged with each request's estimated tokens and
// corrected with actual usage (Adjust).
type Limiter struct {
	mu       sync.Mutex
	interval time.Duration // 60s/RPM; 0 when unlimited
	perToken time.Duration // 60s/TPM; 0 when unlimited
	burst    time.Duration // the TPM bucket's depth as time (1 s)
	lowWater int           // server remaining-requests at or below which starts are spread out

	nextReq time.Time // earliest next start under RPM
	tokDebt time.Time // the TPM bucket is empty until this time
	hold    time.Time // no start before this (server hints)

	now   func() time.Time
	sleep func(ctx context.Context, d time.Duration) error
}

// NewLimiter returns a limiter for l (Concurrency is used only to judge
// when the server's remaining quota is low).
func NewLimiter(l Limits) *Limiter {
	lim := &Limiter{burst: time.Second, lowWater: l.concurrency(), now: time.Now, sleep: sleepCtx}
	if l.RPM > 0 {
		lim.interval = time.Minute / time.Duration(l.RPM)
	}
	if l.TPM > 0 {
		lim.perToken = time.Minute / time.Duration(l.TPM)
	}
	return lim
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-t.C:
		return nil
	}
}

// Wait blocks until a request of the given estimated tokens may start, and
// charges it. It returns the context's error if ctx ends first.
func (l *Limiter) Wait(ctx context.Context, tokens int) error {
	for {
		l.mu.Lock()
		now := l.now()
		at := now
		if l.hold.After(at) {
			at = l.hold
		}
		if l.interval > 0 && l.nextReq.After(at) {
			at = l.nextReq
		}
		if l.perToken > 0 {
			// Full bucket: debt ≤ now + burst. A request larger than the
			// bucket waits for an empty debt instead of forever.
			need := time.Duration(tokens) * l.perToken
			free := l.tokDebt.Add(-max(0, l.burst-need))
			if free.After(at) {
				at = free
			}
		}
		if !at.After(now) {
			if l.interval > 0 {
				l.nextReq = later(l.nextReq, now).Add(l.interval)
			}
			if l.perToken > 0 {
				l.tokDebt = later(l.tokDebt, now).Add(time.Duration(tokens) * l.perToken)
			}
			l.mu.Unlock()
			return nil
		}
		l.mu.Unlock()
		if err := l.sleep(ctx, at.Sub(now)); err != nil {
			return err
		}
	}
}

// Adjust corrects the TPM charge of a finished request by the difference
// between its actual and estimated tokens (negative gives tokens back).
func (l *Limiter) Adjust(delta int) {
	if delta == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.perToken > 0 {
		l.tokDebt = l.tokDebt.Add(time.Duration(delta) * l.perToken)
	}
}

// Hold stops new starts until t (a server's wait hint).
func (l *Limiter) Hold(t time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if t.After(l.hold) {
		l.hold = t
	}
}

// Observe adapts to a server's response: a 429's Retry-After (or
// retry-after-ms) holds every start for that long, and the OpenAI
// x-ratelimit-remaining-requests / -tokens headers with their reset
// times hold starts when the remaining quota is low: with R requests left
// and the window resetting in D, the next start waits D/(R+1), spreading
// the rest of the window's quota evenly; with none left it waits D.
func (l *Limiter) Observe(status int, h http.Header) {
	now := l.now()
	if status == http.StatusTooManyRequests {
		if d, ok := retryAfter(h, now); ok {
			l.Hold(now.Add(min(d, maxHold)))
		}
	}
	for _, lim := range [...]string{"requests", "tokens"} {
		rem, err := strconv.ParseFloat(strings.TrimSpace(h.Get("x-ratelimit-remaining-"+lim)), 64)
		if err != nil {
			continue
		}
		reset, ok := parseReset(h.Get("x-ratelimit-reset-" + lim))
		if !ok {
			continue
		}
		left := rem
		if lim == "tokens" {
			// Tokens left, in requests of about 1,000 tokens: spread only
			// when fewer than the concurrency cap's worth remain.
			left = rem / 1000
		}
		if left <= float64(l.lowWater) {
			l.Hold(now.Add(min(maxHold, time.Duration(float64(reset)/(left+1)))))
		}
	}
}

// maxHold caps one server hint, so a garbled header cannot stall a run.
const maxHold = 10 * time.Minute

// Transport wraps base (nil: http.DefaultTransport) so that every response
// the judge's client receives, retries included, is observed.
func (l *Limiter) Transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return observingTransport{base: base, lim: l}
}

type observingTransport struct {
	base http.RoundTripper
	lim  *Limiter
}

func (t observingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if resp != nil {
		t.lim.Observe(resp.StatusCode, resp.Header)
	}
	return resp, err
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// retryAfter reads retry-after-ms, then Retry-After in seconds or as an
// HTTP date.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if v := h.Get("retry-after-ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, t.Sub(now)), true
	}
	return 0, false
}

// parseReset reads an x-ratelimit-reset value: a Go-style duration as
// OpenAI sends it ("1s", "6m0s", "20ms") or plain seconds ("0.5").
func parseReset(v string) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if d, err := time.ParseDuration(v); err == nil && d >= 0 {
		return d, true
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second)), true
	}
	return 0, false
}
