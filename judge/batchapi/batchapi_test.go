package batchapi

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/judge/batchapi/batchapitest"
	"github.com/prism-eval/prism/judge/openai"
)

// noSleep records the retry layer's waits instead of sleeping.
func noSleep(waits *[]time.Duration) openai.Option {
	return openai.WithSleep(func(_ context.Context, d time.Duration) error {
		*waits = append(*waits, d)
		return nil
	})
}

func provider(t *testing.T, backend, base string, opts ...openai.Option) Provider {
	t.Helper()
	cfg := judge.Defaults()
	cfg.Backend, cfg.BaseURL, cfg.APIKey = backend, base, batchapitest.Key
	p, err := New(cfg, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

const openAILines = `{"custom_id":"k1","method":"POST","url":"/v1/chat/completions","body":{"model":"m","messages":[{"role":"user","content":"x"}]}}
{"custom_id":"k2","method":"POST","url":"/v1/chat/completions","body":{"model":"m","messages":[{"role":"user","content":"y"}]}}
`

const anthropicLines = `{"custom_id":"p1","params":{"model":"m","max_tokens":16,"messages":[{"role":"user","content":"x"}]}}
{"custom_id":"p2","params":{"model":"m","max_tokens":16,"messages":[{"role":"user","content":"y"}]}}
`

// TestRoundTrips: each provider's batch goes submit → in progress →
// done (counts, files) → results, through 429 and 503 answers the retry
// layer waits out (their Retry-After: 1 is honoured, not the backoff).
func TestRoundTrips(t *testing.T) {
	for _, tc := range []struct {
		backend string
		fake    func() *batchapitest.Fake
		lines   string
		results int
	}{
		{ProviderOpenAI, batchapitest.NewOpenAI, openAILines, 1},
		{ProviderAnthropic, batchapitest.NewAnthropic, anthropicLines, 1},
	} {
		t.Run(tc.backend, func(t *testing.T) {
			f := tc.fake()
			defer f.Close()
			f.Fail = []int{429, 503}
			var waits []time.Duration
			p := provider(t, tc.backend, f.BaseURL(), noSleep(&waits))
			ctx := context.Background()
			st, err := p.Submit(ctx, Input{Name: "in.jsonl", Data: []byte(tc.lines), Lines: 2, Tag: "t1"})
			if err != nil {
				t.Fatal(err)
			}
			if len(waits) != 2 || waits[0] != time.Second || waits[1] != time.Second || f.Creates() != 1 {
				t.Fatalf("waits %v, creates %d: want two retries after Retry-After: 1s and one batch", waits, f.Creates())
			}
			if st.Done || st.ID == "" {
				t.Fatalf("just submitted: %+v", st)
			}
			if st, err = p.Status(ctx, st.ID); err != nil || st.Done || st.Waiting == "" || st.Counts.Processing != 2 {
				t.Fatalf("first poll: %+v, %v", st, err)
			}
			if st, err = p.Status(ctx, st.ID); err != nil || !st.Done || st.Counts.Succeeded != 2 || st.Counts.Total != 2 {
				t.Fatalf("second poll: %+v, %v", st, err)
			}
			res, err := p.Results(ctx, st)
			if err != nil || len(res) != tc.results {
				t.Fatalf("results %v, %v", res, err)
			}
			if n := strings.Count(strings.TrimSpace(string(res[0].Data)), "\n") + 1; n != 2 {
				t.Fatalf("%d result lines, want 2:\n%s", n, res[0].Data)
			}
		})
	}
}

// TestExpiredHalfCounts: a batch that expires after one of two requests
// counts one succeeded and one expired; OpenAI's results are its output
// and error files.
func TestExpiredHalfCounts(t *testing.T) {
	for _, tc := range []struct {
		backend string
		fake    func() *batchapitest.Fake
		lines   string
		files   int
	}{
		{ProviderOpenAI, batchapitest.NewOpenAI, openAILines, 2},
		{ProviderAnthropic, batchapitest.NewAnthropic, anthropicLines, 1},
	} {
		t.Run(tc.backend, func(t *testing.T) {
			f := tc.fake()
			defer f.Close()
			f.Polls, f.ExpireAfter = 0, 1
			p := provider(t, tc.backend, f.BaseURL())
			ctx := context.Background()
			st, err := p.Submit(ctx, Input{Name: "in.jsonl", Data: []byte(tc.lines), Lines: 2, Tag: "t"})
			if err != nil {
				t.Fatal(err)
			}
			st, err = p.Status(ctx, st.ID)
			if err != nil || !st.Done || st.Counts.Succeeded != 1 || st.Counts.Expired != 1 {
				t.Fatalf("%+v, %v", st, err)
			}
			if res, err := p.Results(ctx, st); err != nil || len(res) != tc.files {
				t.Fatalf("results %v, %v", res, err)
			}
		})
	}
}

// TestCreateSentOnce: a create call whose connection breaks is not
// retried (the batch may exist: a retry could pay for it twice), and
// the error says so; an upload that breaks is retried.
func TestCreateSentOnce(t *testing.T) {
	var creates, uploads atomic.Int32
	f := batchapitest.NewOpenAI()
	defer f.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/batches" && r.Method == http.MethodPost {
			creates.Add(1)
			hj, _ := w.(http.Hijacker)
			c, _, _ := hj.Hijack()
			c.Close()
			return
		}
		if r.URL.Path == "/v1/files" && uploads.Add(1) == 1 {
			hj, _ := w.(http.Hijacker)
			c, _, _ := hj.Hijack()
			c.Close()
			return
		}
		f.Server.Config.Handler.ServeHTTP(w, r)
	}))
	defer srv.Close()
	var waits []time.Duration
	p := provider(t, ProviderOpenAI, srv.URL+"/v1", noSleep(&waits))
	_, err := p.Submit(context.Background(), Input{Name: "in.jsonl", Data: []byte(openAILines), Lines: 2, Tag: "t"})
	var e *Error
	if !errors.As(err, &e) || !e.MayExist || creates.Load() != 1 || uploads.Load() != 2 {
		t.Fatalf("err %v (MayExist %v), %d creates, %d uploads: want one create, MayExist, and the upload retried", err, e != nil && e.MayExist, creates.Load(), uploads.Load())
	}
}

// TestErrorsHoldNoKey: an auth failure names the status, not the key.
func TestErrorsHoldNoKey(t *testing.T) {
	f := batchapitest.NewAnthropic()
	defer f.Close()
	cfg := judge.Defaults()
	cfg.Backend, cfg.BaseURL, cfg.APIKey = ProviderAnthropic, f.BaseURL(), "sk-wrong-key-987654321"
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Status(context.Background(), "msgbatch_9")
	var e *Error
	if !errors.As(err, &e) || e.Kind != judge.KindAuth || strings.Contains(err.Error(), "sk-wrong") {
		t.Fatalf("%v", err)
	}
}

// TestFindByTag: an OpenAI batch created for a tag is found by it.
func TestFindByTag(t *testing.T) {
	f := batchapitest.NewOpenAI()
	defer f.Close()
	p := provider(t, ProviderOpenAI, f.BaseURL())
	ctx := context.Background()
	st, err := p.Submit(ctx, Input{Name: "in.jsonl", Data: []byte(openAILines), Lines: 2, Tag: "job-7"})
	if err != nil {
		t.Fatal(err)
	}
	got, ok, err := p.Find(ctx, "job-7")
	if err != nil || !ok || got.ID != st.ID || got.Files["input_file_id"] == "" {
		t.Fatalf("%+v %v %v", got, ok, err)
	}
	if _, ok, _ := p.Find(ctx, "job-8"); ok {
		t.Fatal("found a tag never sent")
	}
}
