package batchapitest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

func (f *Fake) serveOpenAI(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch {
	case r.Method == http.MethodPost && p == "/v1/files":
		f.upload(w, r)
	case r.Method == http.MethodPost && p == "/v1/batches":
		f.createOpenAI(w, r)
	case r.Method == http.MethodGet && p == "/v1/batches":
		var list []map[string]any
		for _, id := range f.order {
			list = append(list, f.openAIBatch(f.batches[id]))
		}
		writeJSON(w, map[string]any{"object": "list", "data": list, "has_more": false})
	case r.Method == http.MethodGet && strings.HasPrefix(p, "/v1/batches/"):
		b := f.batches[strings.TrimPrefix(p, "/v1/batches/")]
		if b == nil {
			apiError(w, http.StatusNotFound, "no such batch")
			return
		}
		if b.poll(f.Polls) {
			f.finishOpenAI(b)
		}
		writeJSON(w, f.openAIBatch(b))
	case r.Method == http.MethodGet && strings.HasPrefix(p, "/v1/files/") && strings.HasSuffix(p, "/content"):
		data, ok := f.files[strings.TrimSuffix(strings.TrimPrefix(p, "/v1/files/"), "/content")]
		if !ok {
			apiError(w, http.StatusNotFound, "no such file")
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write(data)
	default:
		apiError(w, http.StatusNotFound, "no route "+p)
	}
}

func (f *Fake) upload(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseMultipartForm(64 << 20); err != nil || r.FormValue("purpose") != "batch" {
		apiError(w, http.StatusBadRequest, "want a multipart form with purpose batch")
		return
	}
	file, hdr, err := r.FormFile("file")
	if err != nil {
		apiError(w, http.StatusBadRequest, "no file")
		return
	}
	data, _ := io.ReadAll(file)
	id := f.next("file-")
	f.files[id] = data
	writeJSON(w, map[string]any{"id": id, "object": "file", "bytes": len(data), "created_at": time.Now().Unix(),
		"filename": hdr.Filename, "purpose": "batch", "status": "processed"})
}

func (f *Fake) createOpenAI(w http.ResponseWriter, r *http.Request) {
	var req struct {
		InputFileID      string         `json:"input_file_id"`
		Endpoint         string         `json:"endpoint"`
		CompletionWindow string         `json:"completion_window"`
		Metadata         map[string]any `json:"metadata"`
	}
	if err := json.Unmarshal(readBody(r), &req); err != nil || req.Endpoint != "/v1/chat/completions" || req.CompletionWindow != "24h" {
		apiError(w, http.StatusBadRequest, "bad create batch request")
		return
	}
	data, ok := f.files[req.InputFileID]
	if !ok {
		apiError(w, http.StatusNotFound, "no such file "+req.InputFileID)
		return
	}
	lines, err := readLines(data)
	if err != nil {
		apiError(w, http.StatusBadRequest, err.Error())
		return
	}
	f.creates++
	b := &batch{id: f.next("batch_"), input: req.InputFileID, lines: lines, meta: req.Metadata}
	f.batches[b.id] = b
	f.order = append(f.order, b.id)
	writeJSON(w, f.openAIBatch(b))
}

// finishOpenAI writes an ended batch's output and error files.
func (f *Fake) finishOpenAI(b *batch) {
	if b.output != "" || b.errors != "" {
		return
	}
	var out, errs strings.Builder
	for i, l := range b.lines {
		if !f.ran(i) {
			fmt.Fprintf(&errs, `{"id":"batch_req_%d","custom_id":%q,"response":null,"error":{"code":"batch_expired","message":"This request could not be executed before the completion window expired."}}`+"\n", i, l.id)
			continue
		}
		body := map[string]any{"id": fmt.Sprintf("chatcmpl-%d", i), "object": "chat.completion",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": f.answer(l.id)}}},
			"usage": map[string]any{"prompt_tokens": 20, "completion_tokens": 4, "total_tokens": 24}}
		resp, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("batch_req_%d", i), "custom_id": l.id,
			"response": map[string]any{"status_code": 200, "request_id": fmt.Sprint(i), "body": body}, "error": nil})
		out.Write(resp)
		out.WriteByte('\n')
	}
	if out.Len() > 0 {
		b.output = f.next("file-")
		f.files[b.output] = []byte(out.String())
	}
	if errs.Len() > 0 {
		b.errors = f.next("file-")
		f.files[b.errors] = []byte(errs.String())
	}
}

func (f *Fake) openAIBatch(b *batch) map[string]any {
	n := len(b.lines)
	status, done := "in_progress", 0
	if b.polls == 0 {
		status = "validating"
	}
	var out, errs any
	if b.ended {
		status, done = "completed", n
		if f.ExpireAfter >= 0 && f.ExpireAfter < n {
			status, done = "expired", f.ExpireAfter
		}
		if b.output != "" {
			out = b.output
		}
		if b.errors != "" {
			errs = b.errors
		}
	}
	return map[string]any{"id": b.id, "object": "batch", "endpoint": "/v1/chat/completions", "errors": nil,
		"input_file_id": b.input, "completion_window": "24h", "status": status, "output_file_id": out, "error_file_id": errs,
		"created_at": time.Now().Unix(), "request_counts": map[string]int{"total": n, "completed": done, "failed": 0},
		"metadata": b.meta}
}
