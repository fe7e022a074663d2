package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync"
	"testing"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
)

// sendCases are configurations × requests covering every field
// chatRequest sets.
func sendCases(t *testing.T) (cfgs []judge.Config, reqs []banks.Request) {
	zero, half, one := 0.0, 0.5, 1.0
	seed := 41
	for _, mod := range []func(*judge.Config){
		func(c *judge.Config) {},
		func(c *judge.Config) { c.Temperature, c.TopP, c.Seed, c.MaxTokens = &zero, &one, &seed, 20 },
		func(c *judge.Config) { c.Temperature, c.TopP = &half, &half; c.ResponseFormat = judge.FormatNone },
		func(c *judge.Config) {
			c.Mode, c.TopLogprobs = judge.ModeExpected, 20
			c.ResponseFormat = judge.FormatJSONObject
		},
		func(c *judge.Config) { c.Model, c.MaxTokens = "gpt-5-mini", 64 },
		func(c *judge.Config) { c.ResponseFormat = judge.FormatAuto },
		// go-openai refuses these before sending (reasoning models).
		func(c *judge.Config) { c.Model, c.Mode = "o3-mini", judge.ModeExpected },
		func(c *judge.Config) { c.Model, c.Temperature = "o1-preview", &half },
	} {
		cfg := judge.Defaults()
		cfg.Backend, cfg.Model = judge.BackendOpenAI, "test-model"
		cfg.ResponseFormat = judge.FormatJSONSchema
		mod(&cfg)
		cfgs = append(cfgs, cfg)
	}
	odd := request()
	odd.Messages = append(odd.Messages, banks.Message{Role: "user", Content: "<b>&amp;</b> \u2028\u2029 \xff\xfe é 日本 \"q\" \\ \t\n"},
		banks.Message{Role: "assistant", Content: ""})
	batch := request()
	batch.BatchIDs, batch.BatchTexts = []string{"c2", "c0"}, []string{"two", "zero"}
	reqs = []banks.Request{request(), odd, batch, rubricRequest(t, sajaRubric, 0), rubricRequest(t, gevalRubric, 0)}
	return cfgs, reqs
}

// TestChatBodyMatchesGoOpenAI: the body the client sends is go-openai's
// byte for byte, and chatRequest sets no field the body leaves out.
func TestChatBodyMatchesGoOpenAI(t *testing.T) {
	cfgs, reqs := sendCases(t)
	for i, cfg := range cfgs {
		for j, req := range reqs {
			for _, off := range []bool{false, true} {
				cr, _ := chatRequest(cfg, req, 3, off)
				want, err := json.Marshal(cr)
				if err != nil {
					t.Fatal(err)
				}
				got, err := marshalChat(cr)
				if err != nil || !bytes.Equal(got, want) {
					t.Errorf("config %d request %d: %v\n got %s\nwant %s", i, j, err, got, want)
				}
				// Everything set is in chatBody: decoding it back rebuilds cr.
				var back goopenai.ChatCompletionRequest
				if err := json.Unmarshal(got, &back); err != nil {
					t.Fatal(err)
				}
				for k := range back.Messages {
					back.Messages[k].Content = cr.Messages[k].Content // invalid UTF-8 comes back as U+FFFD
				}
				if !reflect.DeepEqual(back, cr) {
					t.Errorf("config %d request %d: a field is not in chatBody:\n%#v\n%#v", i, j, back, cr)
				}
			}
		}
	}
}

// capture records the requests a server receives.
type capture struct {
	mu   sync.Mutex
	reqs []capturedRequest
}

type capturedRequest struct {
	method, uri string
	header      http.Header
	body        []byte
}

func (c *capture) server(t *testing.T, answer string) *httptest.Server {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		c.mu.Lock()
		c.reqs = append(c.reqs, capturedRequest{r.Method, r.RequestURI, r.Header.Clone(), b})
		c.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, answer)
	}))
	t.Cleanup(s.Close)
	return s
}

// TestRequestMatchesGoOpenAI: what reaches the server (method, URL,
// headers, body) is what go-openai's CreateChatCompletion sends, and a
// failure status comes back as go-openai's error.
func TestRequestMatchesGoOpenAI(t *testing.T) {
	lean := sharedTransport.lean.Load()
	defer func() {
		if sharedTransport.lean.Load() == lean && h1Supported {
			t.Error("no request went through h1Transport")
		}
	}()
	cfgs, reqs := sendCases(t)
	for _, answer := range []string{
		string(completionJSON(`{"score": 7}`, nil, usage{100, 40, 5}, "", "")),
		`{"error": {"message": "bad", "type": "invalid_request_error", "code": "x"}}`,
		`{"id": 5, "choices": []}`, // a 200 go-openai cannot decode: the same error
	} {
		for _, key := range []judge.Secret{"", "sk-test-123"} {
			for _, suffix := range []string{"/v1", "/v1/"} {
				var ours, theirs capture
				so, st := ours.server(t, answer), theirs.server(t, answer)
				for i, cfg := range cfgs {
					cfg.APIKey = key
					cfg.BaseURL = so.URL + suffix
					c, err := New(cfg)
					if err != nil {
						t.Fatal(err)
					}
					oc := goopenai.DefaultConfig(string(key))
					oc.BaseURL = st.URL + "/v1"
					oc.HTTPClient = &http.Client{}
					api := goopenai.NewClientWithConfig(oc)
					for j, req := range reqs {
						cr, _ := c.chatRequest(req, 0)
						r1, err1 := c.send.create(context.Background(), cr)
						r2, err2 := api.CreateChatCompletion(context.Background(), cr)
						r1.SetHeader(nil)
						r2.SetHeader(nil)
						if !reflect.DeepEqual(r1, r2) || !reflect.DeepEqual(err1, err2) {
							t.Errorf("config %d request %d: %+v %v\n!= %+v %v", i, j, r1, err1, r2, err2)
						}
					}
				}
				if len(ours.reqs) != len(theirs.reqs) {
					t.Fatalf("%d requests, go-openai %d", len(ours.reqs), len(theirs.reqs))
				}
				for i := range ours.reqs {
					a, b := ours.reqs[i], theirs.reqs[i]
					if a.method != b.method || a.uri != b.uri || !reflect.DeepEqual(a.header, b.header) || !bytes.Equal(a.body, b.body) {
						t.Errorf("request %d:\n%s %s %v %s\n!= %s %s %v %s", i, a.method, a.uri, a.header, a.body, b.method, b.uri, b.header, b.body)
					}
				}
			}
		}
	}
}

// TestModelRefusedLocally: a model go-openai refuses for chat completions
// fails every call as go-openai's error, and nothing is sent.
func TestModelRefusedLocally(t *testing.T) {
	var got capture
	s := got.server(t, "{}")
	cfg := judge.Defaults()
	cfg.Backend, cfg.Model, cfg.BaseURL = judge.BackendOpenAI, goopenai.GPT3TextDavinci003, s.URL
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Score(context.Background(), request())
	if judge.KindOf(err) != judge.KindConfig || len(got.reqs) != 0 || len(res.Samples) != 1 {
		t.Fatalf("%+v %v, %d requests", res, err, len(got.reqs))
	}
	cr, _ := c.chatRequest(request(), 0)
	if _, err := c.send.create(context.Background(), cr); !errors.Is(err, goopenai.ErrChatCompletionInvalidModel) {
		t.Errorf("%v", err)
	}
}
