package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/prism-eval/prism/judge"
)

// The chat-completions call is go-openai's CreateChatCompletion made
// here, so that the request body is encoded without go-openai's per-message
// json.Marshaler (encoding/json then marshals each message twice and
// re-scans the result: a fifth of the client's CPU time per request,
// docs/performance.md). Everything else is go-openai's: the URL, the
// headers and the model check come from one dry call at New, the
// reasoning-model checks run on every request as go-openai runs them, the
// body is byte for byte go-openai's (TestChatBodyMatchesGoOpenAI), and the
// reply and the errors are decoded as go-openai decodes them.

// sender sends chat completions for one Client.
type sender struct {
	url      string
	header   http.Header  // go-openai's headers (the key's included); read only
	http     *http.Client // over the Client's Transport
	modelErr error        // go-openai refuses the model for this endpoint
	// tmpl is http.NewRequestWithContext's request for url with header
	// (nil when url does not make one: each call then fails making it,
	// as before): each call's request is a copy of it, rather than a new
	// one with its URL parsed again and a header map made to be replaced.
	tmpl *http.Request
}

// errCaptured ends the dry call at New.
var errCaptured = errors.New("openai: request captured")

type captureDoer struct{ req *http.Request }

func (d *captureDoer) Do(r *http.Request) (*http.Response, error) {
	d.req = r
	return nil, errCaptured
}

// newSender makes one dry go-openai call under oc (its HTTP client
// captures the request and sends nothing) to learn what every call sends
// but its body.
func newSender(oc goopenai.ClientConfig, model string, hc *http.Client) *sender {
	s := &sender{http: hc, url: strings.TrimRight(oc.BaseURL, "/") + "/chat/completions"}
	d := &captureDoer{}
	oc.HTTPClient = d
	_, err := goopenai.NewClientWithConfig(oc).CreateChatCompletion(context.Background(), goopenai.ChatCompletionRequest{
		Model: model, Messages: []goopenai.ChatCompletionMessage{{Role: goopenai.ChatMessageRoleUser, Content: "-"}}})
	switch {
	case errors.Is(err, goopenai.ErrChatCompletionInvalidModel):
		s.modelErr = err
	case d.req != nil:
		// s.url is the very string go-openai builds the request from (its
		// fullURL for an OpenAI-type config without an API version).
		s.header = d.req.Header.Clone()
		// sendRequest's own headers, set once the request is built.
		s.header.Set("Accept", "application/json")
		if s.header.Get("Content-Type") == "" {
			s.header.Set("Content-Type", "application/json")
		}
	}
	// Otherwise the base URL does not make a request: every call fails
	// building it, as go-openai's do.
	if r, err := http.NewRequestWithContext(context.Background(), http.MethodPost, s.url, nil); err == nil {
		r.Header = s.header
		s.tmpl = r
	}
	return s
}

// create is go-openai's CreateChatCompletion for cr.
func (s *sender) create(ctx context.Context, cr goopenai.ChatCompletionRequest) (resp goopenai.ChatCompletionResponse, err error) {
	if s.modelErr != nil {
		return resp, s.modelErr
	}
	if err := goopenai.NewReasoningValidator().Validate(cr); err != nil {
		return resp, err
	}
	body, err := marshalChat(cr)
	if err != nil {
		return resp, err
	}
	req, err := s.request(ctx)
	if err != nil {
		return resp, err
	}
	// The body as NewRequestWithContext sets a *bytes.Reader's, of a type
	// the Transport takes without copying it.
	req.Body, req.ContentLength = newSendBody(body), int64(len(body))
	req.GetBody = func() (io.ReadCloser, error) { return newSendBody(body), nil }
	// Shared by every call, not copied: nothing below writes to it (an
	// http.RoundTripper must not change its request; http.Client copies
	// the header before it changes one; TestSharedHeaderUnchanged).
	req.Header = s.header
	res, err := s.do(req)
	if err != nil {
		return resp, err
	}
	defer res.Body.Close()
	rb, _ := res.Body.(*replyBody)
	if rb != nil {
		// Decoded or copied below: the reply's buffer is free after.
		defer rb.release()
	}
	resp.SetHeader(res.Header)
	if res.StatusCode < http.StatusOK || res.StatusCode >= http.StatusBadRequest {
		return resp, errorReply(res)
	}
	if rb != nil && rb.valid && rb.Len() == len(rb.data) {
		if rb.fast {
			// fastReply's value is json.Unmarshal's (reply.go).
			resp = rb.reply
			resp.SetHeader(res.Header)
			return resp, nil
		}
		// Decoding one valid JSON value, Unmarshal and Decoder.Decode
		// agree (values and errors); Unmarshal needs no buffer of its own.
		// Decoded in a copy on the heap so that resp itself does not
		// escape (one allocation less on the fast path).
		p := new(goopenai.ChatCompletionResponse)
		*p = resp
		err = json.Unmarshal(rb.data, p)
		if err == nil {
			err = ambiguousErr(rb.data) // fastReply refuses these: see envelope.go
		}
		return *p, err
	}
	p := new(goopenai.ChatCompletionResponse)
	*p = resp
	var seen bytes.Buffer
	err = json.NewDecoder(io.TeeReader(res.Body, &seen)).Decode(p)
	if err == nil {
		err = ambiguousErr(seen.Bytes())
	}
	return *p, err
}

// ambiguousErr is KindAmbiguous when the reply data is (Ambiguous).
func ambiguousErr(data []byte) error {
	if why := Ambiguous(data); why != "" {
		return &judge.Error{Kind: judge.KindAmbiguous, Msg: "the answer is ambiguous: " + why}
	}
	return nil
}

// request is http.NewRequestWithContext(ctx, POST, s.url, nil) with
// its header to be set: s.tmpl's fields, its own URL (a copy: nothing is
// shared that a layer below could write) and ctx.
func (s *sender) request(ctx context.Context) (*http.Request, error) {
	if s.tmpl == nil || ctx == nil {
		return http.NewRequestWithContext(ctx, http.MethodPost, s.url, nil)
	}
	req := s.tmpl.WithContext(ctx)
	u := *s.tmpl.URL
	req.URL = &u
	return req, nil
}

// errorReply is go-openai's error for a failure status: its APIError when
// the body holds one, else a RequestError with the body.
func errorReply(resp *http.Response) error {
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("error, reading response body: %w", err)
	}
	var errRes goopenai.ErrorResponse
	err = json.Unmarshal(body, &errRes)
	if err != nil || errRes.Error == nil {
		reqErr := &goopenai.RequestError{
			HTTPStatus:     resp.Status,
			HTTPStatusCode: resp.StatusCode,
			Err:            err,
			Body:           body,
		}
		if errRes.Error != nil {
			reqErr.Err = errRes.Error
		}
		return reqErr
	}
	errRes.Error.HTTPStatus = resp.Status
	errRes.Error.HTTPStatusCode = resp.StatusCode
	return errRes.Error
}

// chatBody is goopenai.ChatCompletionRequest's JSON for the fields
// chatRequest sets, in its field order and with its tags; chatMessage is
// goopenai.ChatCompletionMessage's for a role and a text content.
type chatBody struct {
	Model               string                                 `json:"model"`
	Messages            []chatMessage                          `json:"messages"`
	MaxTokens           int                                    `json:"max_tokens,omitempty"`
	MaxCompletionTokens int                                    `json:"max_completion_tokens,omitempty"`
	Temperature         float32                                `json:"temperature,omitempty"`
	TopP                float32                                `json:"top_p,omitempty"`
	Stream              bool                                   `json:"stream"`
	ResponseFormat      *goopenai.ChatCompletionResponseFormat `json:"response_format,omitempty"`
	Seed                *int                                   `json:"seed,omitempty"`
	LogProbs            bool                                   `json:"logprobs,omitempty"`
	TopLogProbs         int                                    `json:"top_logprobs,omitempty"`
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content,omitempty"`
}

// marshalChat is json.Marshal(cr) for a request of chatRequest's: the
// hand-written encoder's bytes (send_encode.go), which are
// json.Marshal(chatBody)'s, or json.Marshal's own for what it does not
// write (a NaN or infinite float, a schema that fails to marshal: its
// error).
func marshalChat(cr goopenai.ChatCompletionRequest) ([]byte, error) {
	if body, ok := encodeChat(&cr); ok {
		return body, nil
	}
	return marshalChatJSON(&cr)
}

// marshalChatJSON is json.Marshal(cr) for a request of chatRequest's, by
// encoding/json: the reference encodeChat is tested against.
func marshalChatJSON(cr *goopenai.ChatCompletionRequest) ([]byte, error) {
	b := chatBody{Model: cr.Model, Messages: make([]chatMessage, len(cr.Messages)),
		MaxTokens: cr.MaxTokens, MaxCompletionTokens: cr.MaxCompletionTokens,
		Temperature: cr.Temperature, TopP: cr.TopP, Stream: cr.Stream, ResponseFormat: cr.ResponseFormat,
		Seed: cr.Seed, LogProbs: cr.LogProbs, TopLogProbs: cr.TopLogProbs}
	for i, m := range cr.Messages {
		b.Messages[i] = chatMessage{Role: m.Role, Content: m.Content}
	}
	return json.Marshal(b)
}
