package engine

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/judge/openai"
)

// Limiter paces request starts under a requests-per-minute and a
// tokens-per-minute limit and holds them when the server says its own
// limits are nearly spent. It is safe for concurrent use.
//
// The RPM limit puts starts on a grid 60s/RPM apart (nextStart): a start
// never goes before its slot, and one that woke late keeps the grid, so
// no one-second window ever holds more than RPM/60 starts (+1 at the
// window's edge) and the timer's lateness is not lost. The TPM limit is a token bucket of one
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
	why     string    // why hold is set, for the progress line
	trouble string    // the last transport failure with no success since
	hold429 bool      // hold came from a 429: a later success lifts it
	maxHold time.Duration

	now   func() time.Time
	sleep func(ctx context.Context, d time.Duration) error
}

// NewLimiter returns a limiter for l (Concurrency is used only to judge
// when the server's remaining quota is low).
func NewLimiter(l Limits) *Limiter {
	lim := &Limiter{burst: time.Second, lowWater: l.concurrency(), now: time.Now, sleep: sleepCtx, maxHold: l.maxWait()}
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
				l.nextReq = l.nextStart(now)
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

// nextStart is the earliest start after one at now, on the RPM limit's
// grid: the slot after the one taken (nextReq + interval) when now is
// less than an interval past it, so a start that woke late (a timer's
// lateness, a contended lock) does not push every later start back by
// as much; else, after an idle spell, a new grid from now. Slots stay an
// interval apart and every start is within an interval after its slot,
// so no one-second window holds more than RPM/60 + 1 starts. Scheduling
// from the time it woke instead delivered 93.4% of 6,000 RPM and 90.4%
// of 10,000.
func (l *Limiter) nextStart(now time.Time) time.Time {
	if now.Sub(l.nextReq) < l.interval {
		return l.nextReq.Add(l.interval)
	}
	return now.Add(l.interval)
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

// Hold stops new starts until t (a server's wait hint), capped at the
// limits' MaxWait from now; why says what asked for it.
func (l *Limiter) Hold(t time.Time, why string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.holdLocked(t, why, false)
}

func (l *Limiter) holdLocked(t time.Time, why string, from429 bool) {
	if limit := l.now().Add(l.maxHold); t.After(limit) {
		t = limit
	}
	if t.After(l.hold) {
		l.hold, l.why, l.hold429 = t, why, from429
	}
}

// Waiting reports why new requests are held and until when: a server's
// wait hint ("" and the zero time when nothing holds them beyond the
// configured pacing).
func (l *Limiter) Waiting() (string, time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.hold.After(l.now()) {
		return "", time.Time{}
	}
	return l.why, l.hold
}

// Observe adapts to a server's response: a 429's Retry-After (or
// retry-after-ms) holds every start for that long, and the OpenAI
// x-ratelimit-remaining-requests / -tokens headers with their reset
// times hold starts when the remaining quota is low: with R requests left
// and the window resetting in D, the next start waits D/(R+1), spreading
// the rest of the window's quota evenly; with none left it waits D. Every
// hold is capped at Limits.MaxWait, and a 2xx answer lifts a hold a 429
// set: the server is answering again, so waiting longer wastes the run.
func (l *Limiter) Observe(status int, h http.Header) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	switch {
	case status >= 200 && status < 300:
		l.trouble = ""
		if l.hold429 {
			l.hold, l.why, l.hold429 = time.Time{}, "", false
		}
	case status >= 400:
		l.trouble = fmt.Sprintf("HTTP %d %s", status, http.StatusText(status))
	}
	if status == http.StatusTooManyRequests {
		if d, ok := judge.ParseRetryAfter(h, now); ok {
			why := fmt.Sprintf("the server asked to wait %s (HTTP 429)", roundWait(d))
			if d > l.maxHold {
				why = fmt.Sprintf("the server asked to wait %s (HTTP 429; capped at %s)", roundWait(d), roundWait(l.maxHold))
			}
			l.holdLocked(now.Add(d), why, true)
		}
	}
	for i, lim := range [...]string{"requests", "tokens"} {
		v := h.Get(remainingHeaders[i])
		if v == "" {
			continue // most servers send none: no parse (and no error value) per answer
		}
		rem, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			continue
		}
		reset, ok := judge.ParseReset(h.Get(resetHeaders[i]))
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
			l.holdLocked(now.Add(time.Duration(float64(reset)/(left+1))),
				fmt.Sprintf("the server's %s quota is nearly spent (%g left, resets in %s)", lim, rem, roundWait(reset)), false)
		}
	}
}

// The x-ratelimit headers Observe reads, for requests and tokens, in
// canonical form (Header.Get then neither builds nor converts the key).
var (
	remainingHeaders = [...]string{"X-Ratelimit-Remaining-Requests", "X-Ratelimit-Remaining-Tokens"}
	resetHeaders     = [...]string{"X-Ratelimit-Reset-Requests", "X-Ratelimit-Reset-Tokens"}
)

// roundWait prints a wait to a readable precision.
func roundWait(d time.Duration) time.Duration {
	if d >= time.Minute {
		return d.Round(time.Second)
	}
	return d.Round(10 * time.Millisecond)
}

// Transport wraps base (nil: openai.HTTPTransport(), whose idle pool
// keeps a connection per request in flight) so that every response the
// judge's client receives, retries included, is observed.
func (l *Limiter) Transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = openai.HTTPTransport()
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
	} else if err != nil && !openai.AttemptEnded(req.Context()) {
		t.lim.broken(err)
	}
	return resp, err
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// Retrying names the last transport failure (an HTTP error status or a
// broken connection) when no success came after it: requests are being
// retried. "" when the last response was a success.
func (l *Limiter) Retrying() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.trouble
}

// broken records a request that got no response at all, for Retrying
// (Observe records the statuses).
func (l *Limiter) broken(err error) {
	msg := err.Error()
	if len(msg) > 80 {
		msg = msg[:80] + "…"
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.trouble = "network error: " + judge.SanitizeServerText(msg)
}
