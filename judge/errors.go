package judge

import (
	"errors"
	"fmt"
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
	KindBadRequest  ErrorKind = "bad_request"  // HTTP 400/404/422: the request or model is wrong
	KindUnparseable ErrorKind = "unparseable"  // no score could be read from the reply
	KindOutOfRange  ErrorKind = "out_of_range" // a score outside the scale; never clipped
	KindRefusal     ErrorKind = "refusal"      // the model declined to score
	KindNoLogprobs  ErrorKind = "no_logprobs"  // expected mode, but the server sent no logprobs
	KindCanceled    ErrorKind = "canceled"     // the caller's context ended
	KindConfig      ErrorKind = "config"       // the judge is misconfigured (no model, bad scale)
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
// same way, so a run should stop at once instead of continuing: auth and
// configuration errors and cancellation.
func (k ErrorKind) StopsRun() bool {
	switch k {
	case KindAuth, KindConfig, KindCanceled:
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
	// RetryAfter is the server's last wait hint (0 when none).
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("judge: ")
	b.WriteString(string(e.Kind))
	if e.Status != 0 {
		fmt.Fprintf(&b, " (HTTP %d)", e.Status)
	}
	if e.Msg != "" {
		b.WriteString(": ")
		b.WriteString(e.Msg)
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
