// Package batchapitest fakes the providers' batch endpoints on loopback
// (httptest), for tests of prism batch submit, status and fetch:
// OpenAI's Files and Batches (POST /v1/files, POST /v1/batches, GET
// /v1/batches[/{id}], GET /v1/files/{id}/content) and Anthropic's
// Message Batches (POST /v1/messages/batches, GET
// /v1/messages/batches/{id}[/results]), with the objects' shapes as the
// providers document them. A batch stays in progress for Polls status
// calls, then ends: every request answered, or with ExpireAfter ≥ 0 only
// that many and the rest expired.
package batchapitest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// Key is the API key the fakes accept.
const Key = "sk-fake-batch-key-0123456789"

// Fake is one provider's fake batch API.
type Fake struct {
	Server *httptest.Server
	// Answer is the reply text to a request (its custom_id as sent);
	// default {"score": 1}.
	Answer func(customID string) string
	// Polls is how many status calls see a batch in progress (default 1).
	Polls int
	// ExpireAfter ≥ 0: a batch runs only its first ExpireAfter requests
	// and expires the rest. Negative (the default): all run.
	ExpireAfter int
	// Fail are statuses answered, one per call, before any real answer
	// (with Retry-After: 1).
	Fail []int

	mu      sync.Mutex
	creates int
	calls   []string
	files   map[string][]byte
	batches map[string]*batch
	order   []string
	seq     int
	anth    bool
}

type batch struct {
	id, input string
	lines     []line
	polls     int
	meta      map[string]any
	ended     bool
	output    string // file id (OpenAI)
	errors    string
}

type line struct {
	id  string
	raw json.RawMessage
}

// NewOpenAI starts a fake of OpenAI's Batch API; its base URL is
// BaseURL().
func NewOpenAI() *Fake { return start(false) }

// NewAnthropic starts a fake of Anthropic's Message Batches.
func NewAnthropic() *Fake { return start(true) }

func start(anth bool) *Fake {
	f := &Fake{Polls: 1, ExpireAfter: -1, files: map[string][]byte{}, batches: map[string]*batch{}, anth: anth}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	return f
}

// Close stops the server.
func (f *Fake) Close() { f.Server.Close() }

// BaseURL is the base URL a client is given (OpenAI's ends in /v1).
func (f *Fake) BaseURL() string {
	if f.anth {
		return f.Server.URL
	}
	return f.Server.URL + "/v1"
}

// Creates counts batches created: a batch paid for twice shows as two.
func (f *Fake) Creates() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.creates
}

// Calls are the calls served, "METHOD PATH STATUS", in order.
func (f *Fake) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

// Requests are the custom_ids of every batch created, in order.
func (f *Fake) Requests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, id := range f.order {
		for _, l := range f.batches[id].lines {
			out = append(out, l.id)
		}
	}
	return out
}

type recorder struct {
	http.ResponseWriter
	status int
}

func (r *recorder) WriteHeader(s int) { r.status = s; r.ResponseWriter.WriteHeader(s) }

func (f *Fake) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rec := &recorder{ResponseWriter: w, status: 200}
	defer func() { f.calls = append(f.calls, fmt.Sprintf("%s %s %d", r.Method, r.URL.Path, rec.status)) }()
	if len(f.Fail) > 0 {
		s := f.Fail[0]
		f.Fail = f.Fail[1:]
		rec.Header().Set("Retry-After", "1")
		apiError(rec, s, "injected failure")
		return
	}
	if !f.authorized(r) {
		apiError(rec, http.StatusUnauthorized, "invalid x-api-key")
		return
	}
	if f.anth {
		f.serveAnthropic(rec, r)
	} else {
		f.serveOpenAI(rec, r)
	}
}

func (f *Fake) authorized(r *http.Request) bool {
	// The Anthropic SDK sends its key as a bearer token or x-api-key,
	// depending on its version.
	return r.Header.Get("Authorization") == "Bearer "+Key || f.anth && r.Header.Get("x-api-key") == Key
}

func apiError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"type":"error","error":{"type":"api_error","message":%q}}`, msg)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// readLines reads JSONL lines with their custom_id.
func readLines(data []byte) ([]line, error) {
	var out []line
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var l struct {
			CustomID string `json:"custom_id"`
		}
		if err := json.Unmarshal(b, &l); err != nil || l.CustomID == "" {
			return nil, fmt.Errorf("line %d: no custom_id", len(out)+1)
		}
		out = append(out, line{id: l.CustomID, raw: append(json.RawMessage(nil), b...)})
	}
	return out, sc.Err()
}

func (f *Fake) answer(id string) string {
	if f.Answer != nil {
		return f.Answer(id)
	}
	return `{"score": 1}`
}

// poll advances b by one status call and reports whether it has ended.
func (b *batch) poll(polls int) bool {
	if !b.ended {
		b.polls++
		b.ended = b.polls > polls
	}
	return b.ended
}

// ran reports whether request i of b ran before the batch ended.
func (f *Fake) ran(i int) bool { return f.ExpireAfter < 0 || i < f.ExpireAfter }

func (f *Fake) next(prefix string) string {
	f.seq++
	return fmt.Sprintf("%s%d", prefix, f.seq)
}

func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func readBody(r *http.Request) []byte {
	b, _ := io.ReadAll(r.Body)
	return b
}

func trimPrefix(path, prefix string) (string, bool) {
	if !strings.HasPrefix(path, prefix) {
		return "", false
	}
	return strings.TrimPrefix(path, prefix), true
}
