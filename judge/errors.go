package judge

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// ErrorKind classifies why a call produced no score. The acquisition engine
// decides from it whether to retry later, skip the cell or stop the run.
type ErrorKind string

const (
	KindRateLimit   ErrorKind = "rate_limit"   // HTTP 429 after the retries
	KindServer      ErrorKind = "server"       // HTTP 5xx or a body that is not a chat completion
	KindTimeout     ErrorKind = "timeout"      // the per-call timeout expired on every attempt
	KindNetwork     ErrorKind = "network"      // connection refused, reset, dropped mid-body
	KindAuth        ErrorKind = "auth"         // HTTP 401/403: never retried; stop the run
	KindNotFound    ErrorKind = "not_found"    // HTTP 404: no such model or endpoint; stop the run
	KindTLS         ErrorKind = "tls"          // certificate not trusted, wrong host, TLS to a plain port; stop the run
	KindDNS         ErrorKind = "dns"          // the server's host name does not exist; stop the run
	KindTooLarge    ErrorKind = "too_large"    // the reply exceeded max_reply_bytes; not retried
	KindBadRequest  ErrorKind = "bad_request"  // HTTP 400/422 and other 4xx: the request is wrong
	KindUnparseable ErrorKind = "unparseable"  // no score could be read from the reply
	KindOutOfRange  ErrorKind = "out_of_range" // a score outside the scale; never clipped
	KindRefusal     ErrorKind = "refusal"      // the model declined to score
	KindNoLogprobs  ErrorKind = "no_logprobs"  // expected mode, but the server sent no logprobs
	KindBadMass     ErrorKind = "bad_mass"     // expected mode, but the logprobs are not probabilities (Σp > 1 + LogprobTolerance)
	KindAmbiguous   ErrorKind = "ambiguous"    // the reply's envelope says two things: a key twice, several choices
	KindCanceled    ErrorKind = "canceled"     // the caller's context ended
	KindConfig      ErrorKind = "config"       // the judge is misconfigured (no model, bad scale, bad base URL)
)

// Retryable reports whether a later identical call may succeed: transient
// transport and server conditions.
func (k ErrorKind) Retryable() bool {
	switch k {
	case KindRateLimit, KindServer, KindTimeout, KindNetwork:
		return true
	}
	return false
}

// StopsRun reports whether every further call of the run would fail the
// same way, so a run should stop at once instead of continuing: auth,
// unknown model or endpoint, TLS verification, a host that does not exist,
// configuration errors and cancellation. None of them is Retryable.
func (k ErrorKind) StopsRun() bool {
	switch k {
	case KindAuth, KindNotFound, KindTLS, KindDNS, KindConfig, KindCanceled:
		return true
	}
	return false
}

// Error is a classified judge failure. Its message never contains the API
// key (backends redact it before building one).
type Error struct {
	Kind ErrorKind
	// Status is the HTTP status of the last attempt (0 when none).
	Status int
	// Msg is the reason in words, e.g. "score 11 outside 1–10".
	Msg string
	// Value is the offending score for KindOutOfRange.
	Value float64
	// Attempts counts HTTP attempts made (retries included).
	Attempts int
	// RetryAfter is the wait the server last asked for (Retry-After and
	// kin; 0 when none), as asked: the transport sleeps at most
	// max_retry_wait whatever the server asks. Absurd hints (an infinite
	// or overflowing number) are clamped to MaxHint.
	RetryAfter time.Duration
}

// MaxHint is the largest server wait hint prism reads (longer ones, e.g.
// "Retry-After: 1e300", are read as this).
const MaxHint = 7 * 24 * time.Hour

// Error formats the error; control characters and escape sequences in the
// message (which may come from a server) are removed.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("judge: ")
	b.WriteString(SanitizeServerText(string(e.Kind)))
	if e.Status != 0 {
		fmt.Fprintf(&b, " (HTTP %d)", e.Status)
	}
	if e.Msg != "" {
		b.WriteString(": ")
		b.WriteString(SanitizeServerText(e.Msg))
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " after %d attempts", e.Attempts)
	}
	return b.String()
}

// KindOf returns the kind of a judge error, or "" when err is nil or not a
// *Error.
func KindOf(err error) ErrorKind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return ""
}

// StatusKind is the failure kind of an HTTP error status: what the
// clients and the batch readers record for a reply they could not use.
func StatusKind(code int) ErrorKind {
	switch {
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return KindAuth
	case code == http.StatusNotFound:
		return KindNotFound
	case code == http.StatusTooManyRequests:
		return KindRateLimit
	case code == http.StatusRequestTimeout:
		return KindTimeout
	case code >= 500:
		return KindServer
	case code >= 400:
		return KindBadRequest
	}
	return KindServer
}
