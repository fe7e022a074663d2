package openai

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// step answers one HTTP attempt of the fake server.
type step func(w http.ResponseWriter, r *http.Request)

// fakeServer is an in-process OpenAI-compatible server that plays a
// script, one step per attempt (the last step repeats), and records the
// request bodies it saw.
type fakeServer struct {
	*httptest.Server
	mu     sync.Mutex
	script []step
	bodies []map[string]any
	auth   []string
}

func newFake(t testing.TB, script ...step) *fakeServer {
	t.Helper()
	f := &fakeServer{script: script}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		f.mu.Lock()
		i := len(f.bodies)
		f.bodies = append(f.bodies, m)
		f.auth = append(f.auth, r.Header.Get("Authorization"))
		st := f.script[min(i, len(f.script)-1)]
		f.mu.Unlock()
		st(w, r)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeServer) calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.bodies)
}

// lp is one generated token with its alternatives (probabilities).
type lp struct {
	tok string
	p   float64
	top map[string]float64
}

type usage struct{ prompt, cached, completion int }

func completionJSON(content string, toks []lp, u usage, refusal, finish string) []byte {
	msg := map[string]any{"role": "assistant", "content": content}
	if refusal != "" {
		msg["refusal"] = refusal
	}
	if finish == "" {
		finish = "stop"
	}
	choice := map[string]any{"index": 0, "message": msg, "finish_reason": finish}
	if toks != nil {
		var content []map[string]any
		for _, t := range toks {
			var top []map[string]any
			for k, p := range t.top {
				top = append(top, map[string]any{"token": k, "logprob": math.Log(p)})
			}
			content = append(content, map[string]any{"token": t.tok, "logprob": math.Log(t.p), "top_logprobs": top})
		}
		choice["logprobs"] = map[string]any{"content": content}
	}
	body := map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
		"choices": []any{choice},
		"usage": map[string]any{
			"prompt_tokens": u.prompt, "completion_tokens": u.completion, "total_tokens": u.prompt + u.completion,
			"prompt_tokens_details": map[string]any{"cached_tokens": u.cached},
		},
	}
	b, _ := json.Marshal(body)
	return b
}

func reply(content string) step { return replyFull(content, nil, usage{12, 0, 5}, "", "") }

func replyFull(content string, toks []lp, u usage, refusal, finish string) step {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(completionJSON(content, toks, u, refusal, finish))
	}
}

func status(code int, body string, hdr ...string) step {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(hdr); i += 2 {
			w.Header().Set(hdr[i], hdr[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		io.WriteString(w, body)
	}
}

func apiError(code int, msg string, hdr ...string) step {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": "error"}})
	return status(code, string(b), hdr...)
}

// slow answers after d (or gives up when the client goes away).
func slow(d time.Duration, then step) step {
	return func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(d):
			then(w, r)
		case <-r.Context().Done():
		}
	}
}

// drop closes the connection without answering.
func drop(w http.ResponseWriter, r *http.Request) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		conn.Close()
	}
}

// truncated promises 500 bytes, sends a few, and closes.
func truncated(w http.ResponseWriter, r *http.Request) {
	conn, buf, err := w.(http.Hijacker).Hijack()
	if err != nil {
		return
	}
	fmt.Fprint(buf, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{\"id\":\"x\",\"choices\":[{\"mess")
	buf.Flush()
	conn.Close()
}
