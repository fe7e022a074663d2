package openai

import (
	"context"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
)

const fakeKey = "sk-prism-TEST-9f8e7d6c5b4a-DO-NOT-LEAK"

var ten = banks.Scale{Min: 1, Max: 10}

func request() banks.Request {
	return banks.Request{
		Messages: []banks.Message{
			{Role: "system", Content: "You are evaluating machine-generated summaries of news articles."},
			{Role: "user", Content: "Source article. … Summary. … Respond with only a JSON object: {\"score\": <int 1–10>}."},
		},
		Scale: ten,
	}
}

// recorder captures retry waits and log lines.
type recorder struct {
	mu     sync.Mutex
	sleeps []time.Duration
	logs   []string
}

func (r *recorder) sleep(ctx context.Context, d time.Duration) error {
	r.mu.Lock()
	r.sleeps = append(r.sleeps, d)
	r.mu.Unlock()
	return ctx.Err()
}

func (r *recorder) log(s string) {
	r.mu.Lock()
	r.logs = append(r.logs, s)
	r.mu.Unlock()
}

func newClient(t testing.TB, url string, rec *recorder, mod func(*judge.Config)) *Client {
	t.Helper()
	cfg := judge.Defaults()
	cfg.Backend, cfg.Model, cfg.BaseURL, cfg.APIKey = judge.BackendOpenAI, "test-model", url, fakeKey
	cfg.Retries = 3
	cfg.Timeout = judge.Duration(2 * time.Second)
	if mod != nil {
		mod(&cfg)
	}
	c, err := New(cfg, WithSleep(rec.sleep), WithLog(rec.log), WithRand(func() float64 { return 0 }),
		WithBackoff(100*time.Millisecond, time.Second),
		WithClock(func() time.Time { return time.Date(2026, 11, 30, 1, 0, 0, 0, time.UTC) }))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestClientCases(t *testing.T) {
	ms := time.Millisecond
	expected := func(c *judge.Config) { c.Mode = judge.ModeExpected }
	cases := []struct {
		name     string
		cfg      func(*judge.Config)
		script   []step
		wantKind judge.ErrorKind // "" for a score
		want     float64         // the score
		mass     float64         // expected mode: probability mass on valid scores
		calls    int             // HTTP attempts the server saw
		sleeps   []time.Duration // waits between them
	}{
		{name: "plain JSON", script: []step{reply(`{"score": 7}`)}, want: 7, calls: 1},
		{name: "code fence and prose", script: []step{reply("Here is my rating.\n```json\n{\"score\": \"8\"}\n```\nHope this helps.")}, want: 8, calls: 1},
		{name: "bare labelled score", script: []step{reply("Score: 6\n")}, want: 6, calls: 1},
		{name: "prose ending in a score", script: []step{reply("The summary is accurate but thin. Score: 6")}, wantKind: judge.KindUnparseable, calls: 1},
		{name: "refusal ending in a number", script: []step{reply("I cannot rate this summary on a scale of 1 to 10.")}, wantKind: judge.KindRefusal, calls: 1},
		{name: "JSON exponent", script: []step{reply(`{"score": 1e1}`)}, want: 10, calls: 1},
		{name: "429 Retry-After seconds", script: []step{apiError(429, "slow down", "Retry-After", "2"), reply(`{"score": 5}`)}, want: 5, calls: 2, sleeps: []time.Duration{2 * time.Second}},
		{name: "429 Retry-After date", script: []step{apiError(429, "slow down", "Retry-After", "Mon, 30 Nov 2026 01:00:03 GMT"), reply(`{"score": 5}`)}, want: 5, calls: 2, sleeps: []time.Duration{3 * time.Second}},
		{name: "429 retry-after-ms", script: []step{apiError(429, "slow down", "retry-after-ms", "150", "Retry-After", "9"), reply(`{"score": 4}`)}, want: 4, calls: 2, sleeps: []time.Duration{150 * ms}},
		{name: "429 x-ratelimit requests exhausted", script: []step{apiError(429, "rpm", "x-ratelimit-remaining-requests", "0", "x-ratelimit-reset-requests", "1s", "x-ratelimit-remaining-tokens", "900", "x-ratelimit-reset-tokens", "20ms"), reply(`{"score": 4}`)}, want: 4, calls: 2, sleeps: []time.Duration{time.Second}},
		{name: "429 x-ratelimit tokens exhausted", script: []step{apiError(429, "tpm", "x-ratelimit-remaining-requests", "10", "x-ratelimit-reset-requests", "1s", "x-ratelimit-remaining-tokens", "0", "x-ratelimit-reset-tokens", "20ms"), reply(`{"score": 4}`)}, want: 4, calls: 2, sleeps: []time.Duration{20 * ms}},
		{name: "429 hint beyond max wait is cut to it", script: []step{apiError(429, "daily quota", "x-ratelimit-remaining-requests", "0", "x-ratelimit-reset-requests", "6m0s")}, wantKind: judge.KindRateLimit, calls: 4, sleeps: []time.Duration{time.Minute, time.Minute, time.Minute}},
		{name: "429 without hints backs off", script: []step{apiError(429, "busy"), apiError(429, "busy"), reply(`{"score": 3}`)}, want: 3, calls: 3, sleeps: []time.Duration{50 * ms, 100 * ms}},
		{name: "500 then 503 then ok", script: []step{apiError(500, "boom"), status(503, "<html>unavailable</html>"), reply(`{"score": 9}`)}, want: 9, calls: 3, sleeps: []time.Duration{50 * ms, 100 * ms}},
		{name: "500 forever", script: []step{apiError(500, "boom")}, wantKind: judge.KindServer, calls: 4, sleeps: []time.Duration{50 * ms, 100 * ms, 200 * ms}},
		{name: "slow past the timeout then ok", cfg: func(c *judge.Config) { c.Timeout = judge.Duration(400 * ms) }, script: []step{slow(2*time.Second, reply(`{"score": 2}`)), reply(`{"score": 2}`)}, want: 2, calls: 2, sleeps: []time.Duration{50 * ms}},
		{name: "slow forever", cfg: func(c *judge.Config) { c.Timeout = judge.Duration(400 * ms); c.Retries = 1 }, script: []step{slow(2*time.Second, reply(`{"score": 2}`))}, wantKind: judge.KindTimeout, calls: 2, sleeps: []time.Duration{50 * ms}},
		{name: "dropped connection then ok", script: []step{drop, reply(`{"score": 6}`)}, want: 6, calls: 2, sleeps: []time.Duration{50 * ms}},
		{name: "dropped forever", cfg: func(c *judge.Config) { c.Retries = 1 }, script: []step{drop}, wantKind: judge.KindNetwork, calls: 2, sleeps: []time.Duration{50 * ms}},
		{name: "truncated body then ok", script: []step{truncated, reply(`{"score": 6}`)}, want: 6, calls: 2, sleeps: []time.Duration{50 * ms}},
		{name: "truncated forever", cfg: func(c *judge.Config) { c.Retries = 1 }, script: []step{truncated}, wantKind: judge.KindNetwork, calls: 2, sleeps: []time.Duration{50 * ms}},
		{name: "non-JSON 200", cfg: func(c *judge.Config) { c.Retries = 1 }, script: []step{status(200, "<html>proxy login</html>")}, wantKind: judge.KindServer, calls: 2, sleeps: []time.Duration{50 * ms}},
		{name: "out of range", script: []step{reply(`{"score": 11}`)}, wantKind: judge.KindOutOfRange, calls: 1},
		{name: "not an integer", script: []step{reply(`{"score": 7.5}`)}, wantKind: judge.KindUnparseable, calls: 1},
		{name: "no number", script: []step{reply(`The summary is fine.`)}, wantKind: judge.KindUnparseable, calls: 1},
		{name: "refusal text", script: []step{reply("I'm sorry, but I can't help with rating this content.")}, wantKind: judge.KindRefusal, calls: 1},
		{name: "refusal field", script: []step{replyFull("", nil, usage{}, "I cannot assist with that.", "")}, wantKind: judge.KindRefusal, calls: 1},
		{name: "content filter", script: []step{replyFull("", nil, usage{}, "", "content_filter")}, wantKind: judge.KindRefusal, calls: 1},
		{name: "401 is never retried", script: []step{apiError(401, "Incorrect API key provided: "+fakeKey)}, wantKind: judge.KindAuth, calls: 1},
		{name: "403 is never retried", script: []step{status(403, "forbidden for key "+fakeKey)}, wantKind: judge.KindAuth, calls: 1},
		{name: "404 model", script: []step{apiError(404, "The model `test-model` does not exist")}, wantKind: judge.KindNotFound, calls: 1},
		{name: "404 endpoint, plain body", script: []step{status(404, "404 page not found")}, wantKind: judge.KindNotFound, calls: 1},
		{name: "422 is a bad request", script: []step{apiError(422, "messages: field required")}, wantKind: judge.KindBadRequest, calls: 1},
		{
			name: "logprobs token variants", cfg: expected,
			// P(7) = .5 (" 7") + .1 ("7"); P(8) = .2 (" 8") + .1 ("08"); "x" = .1 is not a score.
			script: []step{replyFull(`{"score": 7}`, []lp{
				{tok: `{"`, p: 1, top: map[string]float64{`{"`: 1}}, {tok: `score`, p: 1, top: map[string]float64{`score`: 1}},
				{tok: `":`, p: 1, top: map[string]float64{`":`: 1}},
				{tok: ` 7`, p: .5, top: map[string]float64{" 7": .5, "7": .1, " 8": .2, "08": .1, "x": .1}},
				{tok: `}`, p: 1, top: map[string]float64{"}": 1}},
			}, usage{}, "", "")},
			want: (7*.6 + 8*.3) / .9, mass: .9, calls: 1,
		},
		{
			name: "logprobs score repeated in prose", cfg: expected,
			// The 7 in the prose must be ignored; the 8 after "score" counts.
			script: []step{replyFull(`I would give 7 at first. {"score": 8}`, []lp{
				{tok: "I would give", p: 1, top: map[string]float64{"I would give": 1}},
				{tok: " 7", p: .9, top: map[string]float64{" 7": .9, " 2": .1}},
				{tok: ` at first. {"score":`, p: 1, top: map[string]float64{` at first. {"score":`: 1}},
				{tok: " 8", p: .8, top: map[string]float64{" 8": .8, " 9": .2}},
				{tok: "}", p: 1, top: map[string]float64{"}": 1}},
			}, usage{}, "", "")},
			want: 8.2, mass: 1, calls: 1,
		},
		{
			name: "logprobs two-token 10", cfg: expected,
			// "1","0": P(10) = .6·.5, P(1) = .6·.5 (stop after 1), P(9) = .3, P(8) = .1.
			script: []step{replyFull(`{"score": 10}`, []lp{
				{tok: `{"score": `, p: 1, top: map[string]float64{`{"score": `: 1}},
				{tok: "1", p: .6, top: map[string]float64{"1": .6, "9": .3, "8": .1}},
				{tok: "0", p: .5, top: map[string]float64{"0": .5, "}": .5}},
				{tok: "}", p: 1, top: map[string]float64{"}": 1}},
			}, usage{}, "", "")},
			want: 10*.3 + 1*.3 + 9*.3 + 8*.1, mass: 1, calls: 1,
		},
		{name: "logprobs refused", cfg: expected, script: []step{reply(`{"score": 7}`)}, wantKind: judge.KindNoLogprobs, calls: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, tc.script...)
			rec := &recorder{}
			c := newClient(t, f.URL, rec, tc.cfg)
			res, err := c.Score(context.Background(), request())
			if got := judge.KindOf(err); got != tc.wantKind {
				t.Fatalf("error kind %q (%v), want %q", got, err, tc.wantKind)
			}
			if tc.wantKind == "" {
				if !res.HasScore || math.Abs(res.Score-tc.want) > 1e-9 {
					t.Errorf("score %v (has %v), want %v", res.Score, res.HasScore, tc.want)
				}
				if tc.mass != 0 && math.Abs(res.Samples[0].ProbMass-tc.mass) > 1e-9 {
					t.Errorf("mass %v, want %v", res.Samples[0].ProbMass, tc.mass)
				}
			} else if res.HasScore {
				t.Errorf("an error case scored %v", res.Score)
			}
			if f.calls() != tc.calls {
				t.Errorf("server saw %d attempts, want %d", f.calls(), tc.calls)
			}
			if res.Samples[0].Attempts != tc.calls {
				t.Errorf("sample records %d attempts, want %d", res.Samples[0].Attempts, tc.calls)
			}
			if len(rec.sleeps) != len(tc.sleeps) {
				t.Fatalf("waits %v, want %v", rec.sleeps, tc.sleeps)
			}
			for i := range tc.sleeps {
				if rec.sleeps[i] != tc.sleeps[i] {
					t.Errorf("wait %d = %v, want %v", i, rec.sleeps[i], tc.sleeps[i])
				}
			}
			for _, s := range append(rec.logs, errString(err)) {
				if strings.Contains(s, fakeKey) {
					t.Errorf("the API key leaked: %q", s)
				}
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
