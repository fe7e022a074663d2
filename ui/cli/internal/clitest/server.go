package clitest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Completion is a chat completion whose message is content.
func Completion(content string) string {
	c, _ := json.Marshal(content)
	return fmt.Sprintf(`{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],"usage":{"prompt_tokens":90,"completion_tokens":6,"total_tokens":96}}`, c)
}

// TinyWorkspace imports a 2 × 2 JSONL dataset (4 candidates, 152 requests
// under the quality bank) into a new workspace.
func TinyWorkspace(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	data := filepath.Join(dir, "tiny.jsonl")
	var b strings.Builder
	for c := range 2 {
		for k := range 2 {
			fmt.Fprintf(&b, `{"context": "doc%d", "candidate": "s%d", "task": "news-summary", "source": "Article %d: the council voted to build a bridge.", "text": "Summary %d of article %d.", "human": %d}`+"\n", c, k, c, k, c, k+c)
		}
	}
	if err := os.WriteFile(data, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(dir, "ws.db")
	MustRun(t, "data", "import", "jsonl", data, "--name", "tiny", "--workspace", ws)
	return ws
}

func ServerArgs(ws, url string, extra ...string) []string {
	return append([]string{"run", "--workspace", ws, "--bank", "quality", "--backend", "openai", "--model", "m",
		"--base-url", url + "/v1", "--response-format", "none", "--retries", "0"}, extra...)
}

// PrismServer is an in-process OpenAI-compatible server that answers
// {"score": N} after a delay and counts 200 answers per request identity
// (messages + seed, which carries the run). Tests synchronise on what it
// has seen (at, idle), never on time.
type PrismServer struct {
	*httptest.Server
	latency time.Duration
	mu      sync.Mutex
	idleC   *sync.Cond // broadcast when a handler ends
	active  int        // handlers running
	answers map[string]int
	waits   map[int]chan struct{} // at(n): closed once n identities are answered
}

func NewPrismServer(t *testing.T, latency time.Duration) *PrismServer {
	s := &PrismServer{latency: latency, answers: map[string]int{}, waits: map[int]chan struct{}{}}
	s.idleC = sync.NewCond(&s.mu)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.active++
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			s.active--
			s.mu.Unlock()
			s.idleC.Broadcast()
		}()
		b, _ := io.ReadAll(r.Body)
		id := RequestIdentity(b)
		select {
		case <-time.After(s.latency):
		case <-r.Context().Done():
			return
		}
		content, _ := json.Marshal(fmt.Sprintf(`{"score": %d}`, 1+int(id[0])%10))
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],"usage":{"prompt_tokens":90,"completion_tokens":6,"total_tokens":96}}`, content)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		s.mu.Lock()
		s.answers[id]++
		if c, ok := s.waits[len(s.answers)]; ok {
			close(c)
			delete(s.waits, len(s.answers))
		}
		s.mu.Unlock()
	}))
	t.Cleanup(s.Close)
	return s
}

// At returns a channel closed once n distinct requests have been answered.
func (s *PrismServer) At(n int) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := make(chan struct{})
	if len(s.answers) >= n {
		close(c)
		return c
	}
	if old, ok := s.waits[n]; ok {
		return old
	}
	s.waits[n] = c
	return c
}

// Idle waits until no handler is running: every request that reached the
// server has been answered or abandoned, and counted.
func (s *PrismServer) Idle() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.active > 0 {
		s.idleC.Wait()
	}
}

func RequestIdentity(body []byte) string {
	var req struct {
		Messages json.RawMessage `json:"messages"`
		Seed     *int            `json:"seed"`
	}
	_ = json.Unmarshal(body, &req)
	h := sha256.New()
	h.Write(req.Messages)
	if req.Seed != nil {
		fmt.Fprintf(h, "|%d", *req.Seed)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func (s *PrismServer) Snapshot() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(s.answers))
	for k, v := range s.answers {
		out[k] = v
	}
	return out
}

// KillAt starts cmd and sends it SIGKILL once reached is closed; it fails
// with what (and cmd's log) when cmd ends first.
func KillAt(t *testing.T, cmd *exec.Cmd, reached <-chan struct{}, logPath, what string) {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-reached:
	case err := <-exited:
		log, _ := os.ReadFile(logPath)
		t.Fatalf("%s: %v\n%s", what, err, log)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-exited
}
