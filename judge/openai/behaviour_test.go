package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
)

func TestSchemaFallbackIsRemembered(t *testing.T) {
	f := newFake(t,
		apiError(400, "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model."),
		reply(`{"score": 7}`), reply(`{"score": 6}`))
	c := newClient(t, f.URL, &recorder{}, nil)
	r1, err := c.Score(context.Background(), request())
	if err != nil || r1.Score != 7 {
		t.Fatalf("first call: %v, %v", r1.Score, err)
	}
	if _, err := c.Score(context.Background(), request()); err != nil {
		t.Fatal(err)
	}
	if len(f.bodies) != 3 {
		t.Fatalf("%d requests, want 3", len(f.bodies))
	}
	rf, ok := f.bodies[0]["response_format"].(map[string]any)
	if !ok || rf["type"] != "json_schema" {
		t.Errorf("first request response_format = %v, want json_schema", f.bodies[0]["response_format"])
	}
	for i := 1; i < 3; i++ {
		if _, has := f.bodies[i]["response_format"]; has {
			t.Errorf("request %d still sends response_format after the server rejected it", i)
		}
	}
}

func TestRequestBodyIsExact(t *testing.T) {
	f := newFake(t, replyFull(`{"score": 7}`, []lp{{tok: `{"score": `, p: 1, top: map[string]float64{`{"score": `: 1}}, {tok: "7", p: 1, top: map[string]float64{"7": 1}}, {tok: "}", p: 1, top: map[string]float64{"}": 1}}}, usage{100, 64, 5}, "", ""))
	zero, seed, topP := 0.0, 41, 0.9
	c := newClient(t, f.URL, &recorder{}, func(c *judge.Config) {
		c.Temperature, c.Seed, c.TopP = &zero, &seed, &topP
		c.MaxTokens, c.Repeats, c.Mode, c.TopLogprobs = 16, 3, judge.ModeExpected, 5
		c.ResponseFormat = judge.FormatNone
	})
	res, err := c.Score(context.Background(), request())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Samples) != 3 || res.Score != 7 {
		t.Fatalf("%d samples, score %v", len(res.Samples), res.Score)
	}
	if res.PromptTokens != 300 || res.CachedPromptTokens != 192 || res.CompletionTokens != 15 {
		t.Errorf("tokens %d/%d/%d, want 300/192/15", res.PromptTokens, res.CachedPromptTokens, res.CompletionTokens)
	}
	for r, b := range f.bodies {
		if v, ok := b["temperature"]; !ok || v != 0.0 {
			t.Errorf("repeat %d: temperature %v (present %v), want an explicit 0", r, v, ok)
		}
		if b["seed"] != float64(41+r) {
			t.Errorf("repeat %d: seed %v, want %d", r, b["seed"], 41+r)
		}
		if b["max_tokens"] != 16.0 || b["logprobs"] != true || b["top_logprobs"] != 5.0 {
			t.Errorf("repeat %d: max_tokens %v logprobs %v top_logprobs %v", r, b["max_tokens"], b["logprobs"], b["top_logprobs"])
		}
		if math.Abs(b["top_p"].(float64)-0.9) > 1e-6 {
			t.Errorf("top_p %v", b["top_p"])
		}
		if _, has := b["response_format"]; has {
			t.Error("response_format sent with FormatNone")
		}
		if b["model"] != "test-model" {
			t.Errorf("model %v", b["model"])
		}
	}
	if f.auth[0] != "Bearer "+fakeKey {
		t.Errorf("Authorization header not the key")
	}
}

func TestAuthStopsRepeats(t *testing.T) {
	f := newFake(t, apiError(401, "bad key"))
	c := newClient(t, f.URL, &recorder{}, func(c *judge.Config) { c.Repeats = 5 })
	_, err := c.Score(context.Background(), request())
	if !judge.KindOf(err).StopsRun() || f.calls() != 1 {
		t.Errorf("kind %q after %d calls; want auth after 1", judge.KindOf(err), f.calls())
	}
}

func TestCancellation(t *testing.T) {
	f := newFake(t, slow(5*time.Second, reply(`{"score": 1}`)))
	c := newClient(t, f.URL, &recorder{}, func(c *judge.Config) { c.Timeout = judge.Duration(10 * time.Second) })
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.Score(ctx, request())
	if judge.KindOf(err) != judge.KindCanceled || !judge.KindOf(err).StopsRun() {
		t.Errorf("kind %q, want canceled", judge.KindOf(err))
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("cancellation took %v", el)
	}
}

func TestPartialRepeats(t *testing.T) {
	// One repeat fails to parse; the score is the mean of the others and
	// every sample is kept.
	f := newFake(t, reply(`{"score": 4}`))
	f.script = []step{reply(`{"score": 4}`), reply(`no idea`), reply(`{"score": 6}`)}
	c := newClient(t, f.URL, &recorder{}, func(c *judge.Config) { c.Repeats = 3 })
	res, err := c.Score(context.Background(), request())
	if err != nil || res.Score != 5 || len(res.Samples) != 3 || res.Samples[1].Err.Kind != judge.KindUnparseable {
		t.Errorf("score %v err %v samples %+v", res.Score, err, res.Samples)
	}
}

func TestBatchAlignedByID(t *testing.T) {
	req := request()
	req.BatchIDs = []string{"c2", "c0", "c1"}
	req.BatchTexts = []string{"two", "zero", "one"}
	f := newFake(t, reply(`{"scores": {"c0": 3, "c1": 9, "c2": 5}}`))
	c := newClient(t, f.URL, &recorder{}, nil)
	res, err := c.Score(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"c0": 3, "c1": 9, "c2": 5}
	for i, it := range res.Items {
		if it.ID != req.BatchIDs[i] || !it.HasScore || it.Score != want[it.ID] {
			t.Errorf("item %d = %+v, want id %s score %v", i, it, req.BatchIDs[i], want[req.BatchIDs[i]])
		}
	}
	rf := f.bodies[0]["response_format"].(map[string]any)
	js, _ := json.Marshal(rf)
	if !strings.Contains(string(js), `"c1"`) || !strings.Contains(string(js), `"scores"`) {
		t.Errorf("batch schema %s does not name the candidates", js)
	}
}

func TestBatchExpected(t *testing.T) {
	req := request()
	req.BatchIDs = []string{"a", "b"}
	req.BatchTexts = []string{"x", "y"}
	f := newFake(t, replyFull(`{"a": 3, "b": 4}`, []lp{
		{tok: `{"a":`, p: 1, top: map[string]float64{`{"a":`: 1}},
		{tok: ` 3`, p: .5, top: map[string]float64{" 3": .5, " 2": .5}},
		{tok: `, "b":`, p: 1, top: map[string]float64{`, "b":`: 1}},
		{tok: ` 4`, p: 1, top: map[string]float64{" 4": 1}},
		{tok: `}`, p: 1, top: map[string]float64{"}": 1}},
	}, usage{}, "", ""))
	c := newClient(t, f.URL, &recorder{}, func(c *judge.Config) { c.Mode = judge.ModeExpected })
	res, err := c.Score(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Items[0].Score != 2.5 || res.Items[1].Score != 4 {
		t.Errorf("items %+v, want a=2.5 b=4", res.Items)
	}
}

// TestKeyNeverLeaks searches every error, log line and serialised config
// for the key, with servers that echo it back.
func TestKeyNeverLeaks(t *testing.T) {
	echo := "invalid key " + fakeKey + " (" + strings.Repeat("x", 290) + fakeKey + ")"
	scripts := [][]step{
		{apiError(401, echo)},
		{status(403, echo)},
		{apiError(500, echo)},
		{status(502, echo)},
		{apiError(429, echo)},
		{reply(echo)},
		{replyFull("", nil, usage{}, echo, "")},
		{apiError(400, echo)},
	}
	for i, s := range scripts {
		f := newFake(t, s...)
		rec := &recorder{}
		c := newClient(t, f.URL, rec, func(c *judge.Config) { c.Retries = 1 })
		res, err := c.Score(context.Background(), request())
		texts := append([]string{errString(err), fmt.Sprintf("%v %+v %#v", c.Config(), c.Config(), c.Config())}, rec.logs...)
		for _, smp := range res.Samples {
			texts = append(texts, smp.Raw)
			if smp.Err != nil {
				texts = append(texts, smp.Err.Error(), smp.Err.Msg)
			}
		}
		for _, s := range texts {
			if strings.Contains(s, fakeKey) || strings.Contains(s, fakeKey[:20]) {
				t.Errorf("script %d: key in %q", i, s)
			}
		}
		if err == nil {
			t.Errorf("script %d: no error", i)
		}
	}
	b, err := json.Marshal(newClient(t, "http://x", &recorder{}, nil).Config())
	if err != nil || strings.Contains(string(b), fakeKey) || strings.Contains(string(b), "api_key\"") {
		t.Errorf("config JSON %s (%v) carries the key", b, err)
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	for _, cfg := range []judge.Config{
		{Backend: judge.BackendOffline},
		func() judge.Config { c := judge.Defaults(); c.Backend = judge.BackendOpenAI; return c }(), // no model
	} {
		if _, err := New(cfg); judge.KindOf(err) != judge.KindConfig {
			t.Errorf("New(%+v) = %v, want a config error", cfg, err)
		}
	}
	c := newClient(t, "http://x", &recorder{}, nil)
	if _, err := c.Score(context.Background(), banks.Request{Scale: ten}); judge.KindOf(err) != judge.KindConfig {
		t.Errorf("request without messages: %v", err)
	}
	if c.Name() != "openai:test-model" {
		t.Errorf("Name() = %q", c.Name())
	}
}

// TestBatchLabelsNotIDs: the reply is keyed by the labels the judge saw,
// even when candidate ids look like other candidates' labels.
func TestBatchLabelsNotIDs(t *testing.T) {
	req := request()
	req.BatchIDs = []string{"2", "1"}
	req.BatchLabels = []string{"1", "2"}
	req.BatchTexts = []string{"shown first", "shown second"}
	f := newFake(t, reply(`{"scores": {"1": 3, "2": 9}}`))
	c := newClient(t, f.URL, &recorder{}, nil)
	res, err := c.Score(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Items[0].ID != "2" || res.Items[0].Score != 3 || res.Items[1].ID != "1" || res.Items[1].Score != 9 {
		t.Errorf("items %+v; want id 2 → 3 (label 1), id 1 → 9 (label 2)", res.Items)
	}
}
