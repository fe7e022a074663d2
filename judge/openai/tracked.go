package openai

import (
	"context"
	"errors"
	"time"

	"github.com/prism-eval/prism/judge"
)

// CallStats is what the retry layer (Transport) records of one call:
// attempts made, the last HTTP status, and the last attempt's transient
// failure. Other backends that send through a Transport (judge/anthropic)
// read it to report a call as this client does.
type CallStats struct {
	Attempts   int
	Status     int
	Kind       judge.ErrorKind // "" when the last attempt did not fail
	Detail     string
	RetryAfter time.Duration
}

// TrackCall returns a context for one call through a Transport and a
// function that reads what the Transport recorded of it.
func TrackCall(ctx context.Context) (context.Context, func() CallStats) {
	ci := &callInfo{}
	return withInfo(ctx, ci), func() CallStats {
		return CallStats{Attempts: ci.attempts, Status: ci.status, Kind: ci.kind, Detail: ci.detail, RetryAfter: ci.retryAfter}
	}
}

// TransportFailure reports whether err is (or wraps) the retry layer's
// own verdict on a call: a failure below HTTP, a reply too large or
// ambiguous, or a bad URL, with its kind, HTTP status (0: none) and
// message.
func TransportFailure(err error) (kind judge.ErrorKind, status int, msg string, ok bool) {
	var te *attemptError
	if !errors.As(err, &te) {
		return "", 0, "", false
	}
	return te.kind, te.status, te.msg, true
}

// Redact removes key from s (a key echoed in a server's text).
func Redact(key, s string) string { return redactKey(key, s) }

// ClipMessage bounds an error message as the client's are bounded.
func ClipMessage(s string) string { return clipMsg(s) }

type rawReplyKey struct{}
type sendOnceKey struct{}

// RawReply marks a call whose 2xx reply is a file rather than one JSON
// value (a batch's JSON Lines results): the retry layer takes it as it
// comes instead of retrying it as "not JSON".
func RawReply(ctx context.Context) context.Context {
	return context.WithValue(ctx, rawReplyKey{}, true)
}

// SendOnce marks a call that must not be repeated once it may have
// reached the server (creating a batch: a second copy would be paid
// twice). A reply that says it was refused (429, 5xx) is retried as any
// other; a timeout or a broken connection is not, and fails with the
// attempt's kind.
func SendOnce(ctx context.Context) context.Context {
	return context.WithValue(ctx, sendOnceKey{}, true)
}

func isRawReply(ctx context.Context) bool { v, _ := ctx.Value(rawReplyKey{}).(bool); return v }
func isSendOnce(ctx context.Context) bool { v, _ := ctx.Value(sendOnceKey{}).(bool); return v }
