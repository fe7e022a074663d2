package batchapitest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"
)

var anthropicID = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

func (f *Fake) serveAnthropic(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	rest, ok := trimPrefix(p, "/v1/messages/batches")
	switch {
	case !ok:
		apiError(w, http.StatusNotFound, "no route "+p)
	case r.Method == http.MethodPost && rest == "":
		f.createAnthropic(w, r)
	case r.Method == http.MethodGet && strings.HasSuffix(rest, "/results"):
		b := f.batches[strings.TrimSuffix(strings.TrimPrefix(rest, "/"), "/results")]
		if b == nil || !b.ended {
			apiError(w, http.StatusNotFound, "no results (yet)")
			return
		}
		w.Header().Set("Content-Type", "application/binary")
		for i, l := range b.lines {
			f.writeResult(w, i, l)
		}
	case r.Method == http.MethodGet && strings.HasPrefix(rest, "/"):
		b := f.batches[strings.TrimPrefix(rest, "/")]
		if b == nil {
			apiError(w, http.StatusNotFound, "no such batch")
			return
		}
		b.poll(f.Polls)
		writeJSON(w, f.anthropicBatch(b))
	default:
		apiError(w, http.StatusNotFound, "no route "+p)
	}
}

func (f *Fake) createAnthropic(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Requests []json.RawMessage `json:"requests"`
	}
	if err := json.Unmarshal(readBody(r), &req); err != nil || len(req.Requests) == 0 || len(req.Requests) > 100_000 {
		apiError(w, http.StatusBadRequest, "want 1 to 100,000 requests")
		return
	}
	b := &batch{id: f.next("msgbatch_")}
	seen := map[string]bool{}
	for i, raw := range req.Requests {
		var q struct {
			CustomID string `json:"custom_id"`
			Params   struct {
				Model     string            `json:"model"`
				MaxTokens int               `json:"max_tokens"`
				Messages  []json.RawMessage `json:"messages"`
			} `json:"params"`
		}
		if err := json.Unmarshal(raw, &q); err != nil || !anthropicID.MatchString(q.CustomID) || seen[q.CustomID] ||
			q.Params.Model == "" || q.Params.MaxTokens < 1 || len(q.Params.Messages) == 0 {
			apiError(w, http.StatusBadRequest, fmt.Sprintf("requests[%d]: invalid", i))
			return
		}
		seen[q.CustomID] = true
		b.lines = append(b.lines, line{id: q.CustomID, raw: raw})
	}
	f.creates++
	f.batches[b.id] = b
	f.order = append(f.order, b.id)
	writeJSON(w, f.anthropicBatch(b))
}

func (f *Fake) writeResult(w http.ResponseWriter, i int, l line) {
	var res any = map[string]any{"type": "expired"}
	if f.ran(i) {
		res = map[string]any{"type": "succeeded", "message": map[string]any{"id": fmt.Sprintf("msg_%d", i), "type": "message",
			"role": "assistant", "model": "claude-fake", "content": []any{map[string]any{"type": "text", "text": f.answer(l.id)}},
			"stop_reason": "end_turn", "usage": map[string]int{"input_tokens": 20, "output_tokens": 4}}}
	}
	b, _ := json.Marshal(map[string]any{"custom_id": l.id, "result": res})
	w.Write(append(b, '\n'))
}

func (f *Fake) anthropicBatch(b *batch) map[string]any {
	n := len(b.lines)
	now := time.Now()
	counts := map[string]int{"processing": n, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
	status := "in_progress"
	var ended, results any
	if b.ended {
		status, ended = "ended", rfc3339(now)
		results = f.Server.URL + "/v1/messages/batches/" + b.id + "/results"
		done := n
		if f.ExpireAfter >= 0 && f.ExpireAfter < n {
			done = f.ExpireAfter
		}
		counts["processing"], counts["succeeded"], counts["expired"] = 0, done, n-done
	}
	return map[string]any{"id": b.id, "type": "message_batch", "processing_status": status, "request_counts": counts,
		"created_at": rfc3339(now), "expires_at": rfc3339(now.Add(24 * time.Hour)), "ended_at": ended,
		"archived_at": nil, "cancel_initiated_at": nil, "results_url": results}
}
