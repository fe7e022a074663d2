// Package batchapi sends prism's batch files to the providers' batch
// APIs and brings their results back: OpenAI's Batch API (a file
// uploaded, a batch created on it, its output and error files
// downloaded) through go-openai's Files and Batches client, and
// Anthropic's Message Batches (the requests sent inline, the results
// JSONL streamed back) through the official SDK's Messages.Batches. Both
// send through the judge's retry layer (openai.Transport): 429, 5xx and
// broken connections are retried with the server's Retry-After or
// jittered backoff, except that a batch's creation is never repeated
// once it may have reached the server (openai.SendOnce), since a second
// copy would be paid for twice. docs/engine.md, "prism batch submit,
// status, fetch", cites the endpoints and limits.
package batchapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	goopenai "github.com/sashabaranov/go-openai"

	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/judge/openai"
)

// Providers are the provider names a job records (judge backends).
const (
	ProviderOpenAI    = judge.BackendOpenAI
	ProviderAnthropic = judge.BackendAnthropic
)

// MaxDownload bounds a results file read back (the retry layer reads a
// reply whole): OpenAI caps an input file at 200 MB and Anthropic a batch
// at 256 MB, and results are of the same order.
const MaxDownload int64 = 2 << 30

// MinAttemptTimeout is the least time one HTTP attempt of a batch call is
// given, whatever the judge's --timeout: uploads and downloads are large.
const MinAttemptTimeout = 10 * time.Minute

// Counts are a batch's requests by outcome.
type Counts struct {
	Total, Succeeded, Errored, Expired, Canceled, Processing int
}

// Map is the counts as the workspace keeps them.
func (c Counts) Map() map[string]int {
	return map[string]int{"total": c.Total, "succeeded": c.Succeeded, "errored": c.Errored,
		"expired": c.Expired, "canceled": c.Canceled, "processing": c.Processing}
}

// Status is what a provider says of one batch.
type Status struct {
	ID     string
	Status string // the provider's word: validating, in_progress, completed, expired, ended, …
	// Done: the batch will not change (its results, if any, can be
	// fetched). Failed: it never ran (its input was refused).
	Done, Failed bool
	Counts       Counts
	// Files are the provider's file ids and URLs (input_file_id,
	// output_file_id, error_file_id; results_url).
	Files map[string]string
	// Waiting says what a batch not Done waits for; Reason why a Failed
	// one failed.
	Waiting, Reason string
}

// Input is one batch file to submit: its lines (the export's format for
// the provider), their number, a name for it, and prism's tag for the job
// (sent as metadata where the provider keeps some).
type Input struct {
	Name  string
	Data  []byte
	Lines int
	Tag   string
}

// Result is one results file of a batch, as downloaded.
type Result struct {
	Name string // what it is, for messages ("batch_1 output file file-2")
	Data []byte
}

// Provider is one provider's batch API.
type Provider interface {
	Name() string
	// Endpoint is the base URL, without credentials (what a job records).
	Endpoint() string
	Submit(ctx context.Context, in Input) (Status, error)
	Status(ctx context.Context, id string) (Status, error)
	// Results downloads the results of a Done batch.
	Results(ctx context.Context, st Status) ([]Result, error)
	// Find looks for the batch created for tag (a submit interrupted
	// before its answer was recorded); ok is false when the provider
	// shows none, or cannot tell.
	Find(ctx context.Context, tag string) (st Status, ok bool, err error)
}

// New is the batch API of cfg.Backend (openai or anthropic) at cfg's
// base URL with cfg's key and retry settings; opts are the judge
// client's (tests inject the backoff's sleep).
func New(cfg judge.Config, opts ...openai.Option) (Provider, error) {
	if cfg.Model == "" {
		cfg.Model = "batch" // the judge config wants one; a batch API call names none
	}
	if err := cfg.Validate(); err != nil {
		return nil, &Error{Op: "batch", Kind: judge.KindConfig, Msg: err.Error()}
	}
	cfg.MaxReplyBytes = max(cfg.MaxReplyBytes, MaxDownload)
	cfg.Timeout = judge.Duration(max(time.Duration(cfg.Timeout), MinAttemptTimeout))
	switch cfg.Backend {
	case judge.BackendOpenAI:
		return newOpenAI(cfg, opts), nil
	case judge.BackendAnthropic:
		return newAnthropic(cfg, opts), nil
	}
	return nil, &Error{Op: "batch", Kind: judge.KindConfig, Msg: fmt.Sprintf("backend %q has no batch API in prism: use openai or anthropic", cfg.Backend)}
}

// Error is a failed batch API call, its message sanitised, without the
// key, and bounded. MayExist is set when a create call failed after its
// request may have reached the server: the batch may exist.
type Error struct {
	Op       string
	Kind     judge.ErrorKind
	Status   int
	Msg      string
	MayExist bool
}

func (e *Error) Error() string {
	s := fmt.Sprintf("%s: %s", e.Op, e.Kind)
	if e.Status != 0 {
		s += fmt.Sprintf(" (HTTP %d)", e.Status)
	}
	if e.Msg != "" {
		s += ": " + e.Msg
	}
	return s
}

// classify turns an SDK, go-openai or retry-layer error into an *Error.
func classify(ctx context.Context, op, key string, err error, st openai.CallStats) *Error {
	e := &Error{Op: op}
	var oe *goopenai.APIError
	var re *goopenai.RequestError
	var ae *sdk.Error
	switch {
	case ctx.Err() != nil:
		e.Kind, e.Msg = judge.KindCanceled, ctx.Err().Error()
	case errors.As(err, &oe):
		e.Status, e.Kind, e.Msg = oe.HTTPStatusCode, judge.StatusKind(oe.HTTPStatusCode), oe.Message
	case errors.As(err, &re):
		e.Status, e.Kind, e.Msg = re.HTTPStatusCode, judge.StatusKind(re.HTTPStatusCode), strings.TrimSpace(string(re.Body))
	case errors.As(err, &ae):
		e.Status, e.Kind, e.Msg = ae.StatusCode, judge.StatusKind(ae.StatusCode), ae.Message
	default:
		if kind, status, msg, ok := openai.TransportFailure(err); ok {
			e.Kind, e.Status, e.Msg = kind, status, msg
		} else if st.Kind != "" {
			e.Kind, e.Status, e.Msg = st.Kind, st.Status, st.Detail
		} else {
			e.Kind, e.Msg = judge.KindNetwork, err.Error()
		}
	}
	if e.Msg == "" && e.Status != 0 {
		e.Msg = http.StatusText(e.Status)
	}
	if st.Attempts > 1 {
		e.Msg += fmt.Sprintf(" (after %d attempts)", st.Attempts)
	}
	e.Msg = openai.ClipMessage(openai.Redact(key, judge.SanitizeServerText(e.Msg)))
	return e
}

// createError classifies a failed create call: with no HTTP reply (a
// timeout, a broken connection) the batch may exist.
func createError(ctx context.Context, op, key string, err error, st openai.CallStats) *Error {
	e := classify(ctx, op, key, err, st)
	e.MayExist = e.Status == 0 && e.Kind != judge.KindConfig && e.Kind != judge.KindDNS && e.Kind != judge.KindTLS
	return e
}

// endpoint is a base URL without user info, query or fragment: what a
// workspace may keep of it.
func endpoint(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return ""
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}
