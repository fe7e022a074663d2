// Package openaitest is a minimal OpenAI-compatible chat-completions
// server for measuring prism's HTTP client: it answers every request with
// {"score": N} after a fixed latency and counts requests and the TCP
// connections clients opened. It does only what the measurement needs (it
// reads the body and answers); the behaviour tests have their own fakes.
package openaitest

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"
)

// Server is an OpenAI-compatible server answering after Latency.
type Server struct {
	*httptest.Server
	Latency time.Duration

	requests atomic.Int64
	conns    atomic.Int64
	late     atomic.Int64 // ns the handlers resumed after their latency, summed
	turn     atomic.Int64 // ns from a reply to its connection's next request, summed
	turns    atomic.Int64 // the requests turn sums over
}

// connClock is one connection's: when its last reply's handler returned.
// A connection's requests are handled one at a time, so it needs no lock.
type connClock struct{ replied time.Time }

type connClockKey struct{}

func withConnClock(ctx context.Context, _ net.Conn) context.Context {
	return context.WithValue(ctx, connClockKey{}, &connClock{})
}

// NewServer starts a server on 127.0.0.1 (an ephemeral port) that answers
// after latency.
func NewServer(latency time.Duration) *Server {
	s := &Server{Latency: latency}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(s.handle))
	s.Server.Config.ConnContext = withConnClock
	s.Server.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.conns.Add(1)
		}
	}
	s.Start()
	return s
}

// Listen is NewServer on addr (e.g. "127.0.0.1:0").
func Listen(addr string, latency time.Duration) (*Server, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &Server{Latency: latency}
	s.Server = &httptest.Server{Listener: l, Config: &http.Server{Handler: http.HandlerFunc(s.handle), ConnContext: withConnClock}}
	s.Server.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.conns.Add(1)
		}
	}
	s.Start()
	return s, nil
}

// Requests is the number of requests answered or being answered.
func (s *Server) Requests() int64 { return s.requests.Load() }

// Conns is the number of TCP connections clients opened.
func (s *Server) Conns() int64 { return s.conns.Load() }

// Stats is what GET /stats answers: the requests answered (/stats
// excluded), the connections opened (the one asking included), the
// server process's CPU time, and how long after their latency the
// handlers resumed, summed over the requests: time the server's timer
// adds to every request, which no client can win back (a Go timer of
// 20 ms on an idle 2-core VM here resumes 0.6 ms late). Turnaround is, summed over
// Turnarounds requests (each but a connection's first), the time from
// the end of the handler of a connection's previous request to the start
// of this one's: the client's time from an answer to its next request,
// with both processes' scheduling (docs/performance.md, "Bursts").
type Stats struct {
	Requests    int64         `json:"requests"`
	Conns       int64         `json:"conns"`
	CPU         time.Duration `json:"cpu_ns"`
	TimerLate   time.Duration `json:"timer_late_ns"`
	Turnaround  time.Duration `json:"turnaround_ns"`
	Turnarounds int64         `json:"turnarounds"`
}

// ProcessCPU is the calling process's user + system CPU time.
func ProcessCPU() time.Duration {
	u, s := ProcessCPUSplit()
	return u + s
}

// ProcessCPUSplit is the calling process's user and system CPU time.
func ProcessCPUSplit() (user, sys time.Duration) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}

// Serve listens on addr, writes the base URL (ending in /v1) and a newline
// to w, and serves until SIGINT or SIGTERM; it then writes a last line
// "requests R conns C cpu D". A measuring client reads GET /stats (Stats
// as JSON) between its runs.
func Serve(addr string, latency time.Duration, w io.Writer) error {
	s, err := Listen(addr, latency)
	if err != nil {
		return err
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	fmt.Fprintf(w, "%s/v1\n", s.URL)
	<-sig
	signal.Stop(sig)
	s.Close()
	fmt.Fprintf(w, "requests %d conns %d cpu %s\n", s.Requests(), s.Conns(), ProcessCPU().Round(time.Millisecond))
	return nil
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/stats" {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(Stats{Requests: s.requests.Load(), Conns: s.conns.Load(), CPU: ProcessCPU(),
			TimerLate: time.Duration(s.late.Load()), Turnaround: time.Duration(s.turn.Load()), Turnarounds: s.turns.Load()})
		return
	}
	s.requests.Add(1)
	if c, ok := r.Context().Value(connClockKey{}).(*connClock); ok {
		if !c.replied.IsZero() {
			s.turn.Add(int64(time.Since(c.replied)))
			s.turns.Add(1)
		}
		defer func() { c.replied = time.Now() }()
	}
	b, _ := io.ReadAll(r.Body)
	if s.Latency > 0 {
		due := time.Now().Add(s.Latency)
		t := time.NewTimer(s.Latency)
		select {
		case <-t.C:
			s.late.Add(int64(max(time.Since(due), 0)))
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	// A score that depends on the request, so that answers differ.
	score := 1 + int(sha256.Sum256(b)[0])%10
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m",`+
		`"choices":[{"index":0,"message":{"role":"assistant","content":"{\"score\": %d}"},"finish_reason":"stop"}],`+
		`"usage":{"prompt_tokens":100,"completion_tokens":6,"total_tokens":106}}`, score)
}
