package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/prism-eval/prism/judge"
)

// classify turns a go-openai or transport error into a *judge.Error whose
// message is redacted.
func (c *Client) classify(ctx context.Context, err error, ci *callInfo) *judge.Error {
	e := &judge.Error{Attempts: ci.attempts, RetryAfter: ci.retryAfter}
	var ae *goopenai.APIError
	var re *goopenai.RequestError
	var te *attemptError
	var urlErr *url.Error
	var se *json.SyntaxError
	var ue *json.UnmarshalTypeError
	switch {
	case ctx.Err() != nil:
		e.Kind, e.Msg = judge.KindCanceled, ctx.Err().Error()
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			e.Msg = "the caller's deadline passed"
		}
		return e
	case errors.As(err, &te):
		// The retry layer's own verdict (transport.go), an ambiguous
		// reply's included.
		e.Kind, e.Msg = te.kind, te.msg
		if te.status != 0 {
			e.Status = te.status
		}
	case errors.As(err, &ae):
		e.Status = ae.HTTPStatusCode
		e.Kind, e.Msg = judge.StatusKind(ae.HTTPStatusCode), ae.Message
	case errors.As(err, &re):
		e.Status = re.HTTPStatusCode
		e.Kind = judge.StatusKind(re.HTTPStatusCode)
		e.Msg = strings.TrimSpace(string(re.Body))
		if e.Msg == "" {
			e.Msg = http.StatusText(re.HTTPStatusCode)
		}
	case errors.As(err, &se), errors.As(err, &ue), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		e.Kind, e.Status = judge.KindServer, ci.status
		e.Msg = "the answer is not a chat completion: " + err.Error()
	case ci.kind != "":
		e.Kind, e.Status, e.Msg = ci.kind, ci.status, ci.detail
	case isLocalValidation(err):
		e.Kind, e.Msg = judge.KindConfig, err.Error()
	case errors.As(err, &urlErr) && urlErr.Op == "parse":
		// go-openai could not build the request URL from base_url.
		e.Kind, e.Msg = judge.KindConfig, "bad base URL (check base_url): "+err.Error()
	default:
		e.Kind, e.Msg = judge.KindNetwork, err.Error()
	}
	// Sanitise first (removing escapes could join a key split by them),
	// then redact, then clip (a clip must not cut a key in half).
	e.Msg = clipMsg(c.redact(judge.SanitizeServerText(e.Msg)))
	return e
}

// isLocalValidation reports go-openai's own request checks (no HTTP call).
func isLocalValidation(err error) bool {
	for _, le := range []error{
		goopenai.ErrReasoningModelMaxTokensDeprecated, goopenai.ErrReasoningModelLimitationsLogprobs,
		goopenai.ErrReasoningModelLimitationsOther, goopenai.ErrReasoningSamplingUnsupported,
		goopenai.ErrReasoningEffortUnsupported, goopenai.ErrChatCompletionInvalidModel,
		goopenai.ErrO1BetaLimitationsMessageTypes, goopenai.ErrO1BetaLimitationsTools,
	} {
		if errors.Is(err, le) {
			return true
		}
	}
	return false
}

// redact removes the API key from s.
func (c *Client) redact(s string) string { return redactKey(c.key, s) }

// redactKey removes key from s.
func redactKey(key, s string) string {
	if key == "" {
		return s
	}
	return strings.ReplaceAll(s, key, "[redacted]")
}

func clipMsg(s string) string {
	const max = 300
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return fmt.Sprintf("%s… (%d bytes)", s[:cut], len(s))
	}
	return s
}
