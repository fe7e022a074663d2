package openai

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prism-eval/prism/judge"
)

// rawServer is a TCP server whose replies are bytes written by hand, for
// what httptest's server never sends (HTTP/1.0, 1xx, truncated bodies,
// closes without saying so). serve answers the n-th request on a
// connection (n from 0); returning false closes the connection.
type rawServer struct {
	url   string
	conns atomic.Int64
	mu    sync.Mutex
	reqs  [][]byte // each request's bytes as received
	// closed receives after serve closed a connection.
	closed chan struct{}
}

func newRawServer(t *testing.T, serve func(w io.Writer, n int) bool) *rawServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &rawServer{url: "http://" + ln.Addr().String(), closed: make(chan struct{}, 100)}
	var wg sync.WaitGroup
	var open []net.Conn
	t.Cleanup(func() {
		ln.Close()
		s.mu.Lock()
		for _, c := range open {
			c.Close() // ends a read waiting on a client's idle connection
		}
		s.mu.Unlock()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.conns.Add(1)
			s.mu.Lock()
			open = append(open, c)
			s.mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() { c.Close(); s.closed <- struct{}{} }()
				br := bufio.NewReader(c)
				for n := 0; ; n++ {
					raw, err := readRawRequest(br)
					if err != nil {
						return
					}
					s.mu.Lock()
					s.reqs = append(s.reqs, raw)
					s.mu.Unlock()
					if !serve(c, n) {
						return
					}
				}
			}()
		}
	}()
	return s
}

// readRawRequest reads one request's header and Content-Length body as
// bytes.
func readRawRequest(br *bufio.Reader) ([]byte, error) {
	var raw []byte
	length := 0
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return nil, err
		}
		raw = append(raw, line...)
		if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(k, "Content-Length") {
			length, _ = strconv.Atoi(strings.TrimSpace(v))
		}
		if line == "\r\n" {
			break
		}
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(br, body); err != nil {
		return nil, err
	}
	return append(raw, body...), nil
}

// leanOnly is an h1Transport whose fallback fails every request, so a
// test knows the lean path answered.
func leanOnly(t testing.TB) *h1Transport {
	if !h1Supported {
		t.Skip("h1Transport sends nothing itself on this system")
	}
	fb := newHTTPTransport()
	fb.DialContext = func(context.Context, string, string) (net.Conn, error) {
		return nil, errors.New("fallback used")
	}
	return newH1Transport(fb)
}

// received sends req through rt, reads the reply, and returns the bytes
// s received for it; what names the request in a failure.
func (s *rawServer) received(t *testing.T, rt http.RoundTripper, req *http.Request, what string) []byte {
	t.Helper()
	resp, err := rt.RoundTrip(req)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	io.ReadAll(resp.Body)
	resp.Body.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reqs[len(s.reqs)-1]
}

func postJSON(t *testing.T, ctx context.Context, u string) *http.Request {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u+"/v1/chat/completions", strings.NewReader(`{"model":"m"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer sk-x")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Add("X-Multi", "a")
	req.Header.Add("X-Multi", " b ")
	return req
}

// TestH1WritesWhatNetHTTPWrites: a server receives the same bytes from
// h1Transport as from net/http's Transport, with and without a
// User-Agent of the caller's, GET and POST.
func TestH1WritesWhatNetHTTPWrites(t *testing.T) {
	s := newRawServer(t, func(w io.Writer, _ int) bool {
		io.WriteString(w, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}")
		return true
	})
	for _, tc := range []struct {
		name string
		edit func(*http.Request)
	}{
		{"post", func(*http.Request) {}},
		{"user agent", func(r *http.Request) { r.Header.Set("User-Agent", " prism/1 ") }},
		{"empty user agent", func(r *http.Request) { r.Header.Set("User-Agent", "") }},
		{"get", func(r *http.Request) { r.Method, r.Body, r.ContentLength, r.GetBody = http.MethodGet, nil, 0, nil }},
		{"query", func(r *http.Request) { r.URL.RawQuery = "a=1&b=%20" }},
	} {
		var got [2][]byte
		for i, rt := range []http.RoundTripper{newHTTPTransport(), leanOnly(t)} {
			req := postJSON(t, context.Background(), s.url)
			tc.edit(req)
			got[i] = s.received(t, rt, req, fmt.Sprintf("%s %d", tc.name, i))
		}
		if !bytes.Equal(got[0], got[1]) {
			t.Errorf("%s:\nnet/http %q\nh1       %q", tc.name, got[0], got[1])
		}
	}
}

// reply is one exchange's outcome, compared between the two transports.
type h1Outcome struct {
	status       int
	header       http.Header
	body         string
	uncompressed bool
	err, bodyErr bool
}

func roundTrip(t *testing.T, rt http.RoundTripper, u string) h1Outcome {
	t.Helper()
	resp, err := rt.RoundTrip(postJSON(t, context.Background(), u))
	if err != nil {
		return h1Outcome{err: true}
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	h := resp.Header.Clone()
	h.Del("Date")
	return h1Outcome{resp.StatusCode, h, string(b), resp.Uncompressed, false, err != nil}
}

func gzipped(s string) string {
	var b bytes.Buffer
	z := gzip.NewWriter(&b)
	io.WriteString(z, s)
	z.Close()
	return b.String()
}

// testMaxHead bounds reply headers in TestH1RepliesAsNetHTTP (net/http's
// default is 10 MiB).
const testMaxHead = 64 << 10

// TestH1RepliesAsNetHTTP: for replies a real server may send, h1Transport
// returns what net/http returns (status, headers, body, failure) and
// reuses the connection exactly when it may: two requests per case, the
// connections the server saw counted.
func TestH1RepliesAsNetHTTP(t *testing.T) {
	const ok = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 12\r\n\r\n{\"score\": 7}"
	gz := gzipped(`{"score": 7}`)
	for _, tc := range []struct {
		name  string
		reply string
		keep  bool // the connection may serve the second request
	}{
		{"content-length", ok, true},
		{"chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"sco\r\n7\r\nre\": 7}\r\n0\r\n\r\n", true},
		{"chunked trailer", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\nX-T: 1\r\n\r\n", true},
		{"connection close", "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}", false},
		{"http/1.0", "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\n{}", false},
		{"http/1.0 keep-alive", "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\n{}", true},
		{"1xx", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n" + ok, true},
		{"many 1xx", strings.Repeat("HTTP/1.1 102 Processing\r\n\r\n", 20) + ok, true},
		{"1xx over the header limit", strings.Repeat("HTTP/1.1 102 Processing\r\nX: "+strings.Repeat("a", 1000)+"\r\n\r\n", 70) + ok, false},
		{"gzip", "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: " + strconv.Itoa(len(gz)) + "\r\n\r\n" + gz, true},
		{"429 retry-after", "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 3\r\nX-Ratelimit-Remaining-Requests: 0\r\nContent-Length: 2\r\n\r\n{}", true},
		{"no content", "HTTP/1.1 204 No Content\r\n\r\n", true},
		{"truncated", "HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\n{\"sco", false},
		{"until close", "HTTP/1.1 200 OK\r\n\r\n{\"score\": 7}", false},
		{"bad status line", "HTTP/1.1 OK\r\n\r\n", false},
		{"huge header", "HTTP/1.1 200 OK\r\nX-Big: " + strings.Repeat("a", testMaxHead) + "\r\nContent-Length: 2\r\n\r\n{}", false},
		{"header at the limit", "HTTP/1.1 200 OK\r\nX-Big: " + strings.Repeat("a", testMaxHead-100) + "\r\nContent-Length: 2\r\n\r\n{}", true},
	} {
		var out [2][2]h1Outcome
		var conns [2]int64
		nh, h1 := newHTTPTransport(), leanOnly(t)
		nh.MaxResponseHeaderBytes = testMaxHead
		h1.maxHead = testMaxHead
		for i, rt := range []http.RoundTripper{nh, h1} {
			s := newRawServer(t, func(w io.Writer, _ int) bool {
				io.WriteString(w, tc.reply)
				// Close after replies that say so or cannot be delimited.
				return tc.keep
			})
			for j := range 2 {
				out[i][j] = roundTrip(t, rt, s.url)
				if j == 0 && !tc.keep {
					<-s.closed // the server's close has happened
				}
			}
			conns[i] = s.conns.Load()
		}
		if !reflect.DeepEqual(out[0], out[1]) {
			t.Errorf("%s:\nnet/http %+v\nh1       %+v", tc.name, out[0], out[1])
		}
		want := int64(2)
		if tc.keep {
			want = 1
		}
		if conns[1] != want {
			t.Errorf("%s: h1 used %d connections, want %d (net/http: %d)", tc.name, conns[1], want, conns[0])
		}
	}
}

// TestH1ServerClosesIdle: a connection the server closed while idle
// (keep-alive timeout, request limit without Connection: close) is not
// used again: the next request goes out on a new one and succeeds.
func TestH1ServerClosesIdle(t *testing.T) {
	s := newRawServer(t, func(w io.Writer, _ int) bool {
		io.WriteString(w, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}")
		return false // closes without saying so
	})
	rt := leanOnly(t)
	for i := range 3 {
		if o := roundTrip(t, rt, s.url); o.err || o.bodyErr || o.body != "{}" {
			t.Fatalf("request %d: %+v", i, o)
		}
		<-s.closed
	}
	if n := s.conns.Load(); n != 3 {
		t.Errorf("%d connections, want 3", n)
	}
}

// TestH1Context: cancelling the request's context ends the wait for the
// reply and the read of its body with the context's error, and the
// connection is not reused.
func TestH1Context(t *testing.T) {
	got := make(chan struct{}, 10)
	release := make(chan struct{})
	var reqs atomic.Int64
	s := newRawServer(t, func(w io.Writer, _ int) bool {
		got <- struct{}{}
		if reqs.Add(1) == 1 {
			<-release // no reply until the client gave up
			return false
		}
		io.WriteString(w, "HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\n{\"sc")
		<-release
		return false
	})
	defer close(release)
	rt := leanOnly(t)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-got; cancel() }()
	if _, err := rt.RoundTrip(postJSON(t, ctx, s.url)); !errors.Is(err, context.Canceled) {
		t.Fatalf("waiting for the reply: %v", err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	resp, err := rt.RoundTrip(postJSON(t, ctx, s.url))
	<-got
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := io.ReadAll(resp.Body); err == nil {
		t.Fatal("the body read went on after the cancel")
	}
	resp.Body.Close()
	if n := len(rt.idle[strings.TrimPrefix(s.url, "http://")]); n != 0 {
		t.Errorf("%d connections kept after a cancel", n)
	}
	ctx, cancel = context.WithTimeout(context.Background(), -time.Second)
	defer cancel()
	if _, err := rt.RoundTrip(postJSON(t, ctx, s.url)); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("expired context: %v", err)
	}
}

// TestH1Lean: what h1Transport leaves to net/http.
func TestH1Lean(t *testing.T) {
	rt := newH1Transport(newHTTPTransport())
	proxied := newH1Transport(newHTTPTransport())
	proxied.fallback.Proxy = func(*http.Request) (*url.URL, error) { return url.Parse("http://proxy:3128") }
	for _, tc := range []struct {
		name string
		rt   *h1Transport
		edit func(*http.Request)
		want bool
	}{
		{"plain", rt, func(*http.Request) {}, true},
		{"https", rt, func(r *http.Request) { r.URL.Scheme = "https" }, false},
		{"proxy", proxied, func(*http.Request) {}, false},
		{"put", rt, func(r *http.Request) { r.Method = http.MethodPut }, false},
		{"unknown length", rt, func(r *http.Request) { r.ContentLength = -1 }, false},
		{"expect", rt, func(r *http.Request) { r.Header.Set("Expect", "100-continue") }, false},
		{"accept-encoding", rt, func(r *http.Request) { r.Header.Set("Accept-Encoding", "br") }, false},
		{"newline in a value", rt, func(r *http.Request) { r.Header.Set("Authorization", "Bearer a\r\nX: y") }, false},
		{"bad name", rt, func(r *http.Request) { r.Header["X Y"] = []string{"1"} }, false},
		{"other host", rt, func(r *http.Request) { r.Host = "example.com" }, false},
		{"close", rt, func(r *http.Request) { r.Close = true }, false},
		{"non-ascii host", rt, func(r *http.Request) { r.URL.Host = "bücher.example" }, false},
	} {
		req := postJSON(t, context.Background(), "http://127.0.0.1:1")
		tc.edit(req)
		if got := tc.rt.leanable(req); got != tc.want {
			t.Errorf("%s: lean %v, want %v", tc.name, got, tc.want)
		}
	}
}

// pipeConn is a connection whose replies are given bytes, for fuzzing.
type pipeConn struct {
	net.Conn // nil: only the methods below are called
	r        *bytes.Reader
}

func (c *pipeConn) Read(p []byte) (int, error)       { return c.r.Read(p) }
func (c *pipeConn) Write(p []byte) (int, error)      { return len(p), nil }
func (c *pipeConn) Close() error                     { return nil }
func (c *pipeConn) SetDeadline(time.Time) error      { return nil }
func (c *pipeConn) SetReadDeadline(time.Time) error  { return nil }
func (c *pipeConn) SetWriteDeadline(time.Time) error { return nil }

// FuzzH1Reply: any bytes from a server give a reply or an error, never a
// panic, and a body no longer than the bytes sent.
func FuzzH1Reply(f *testing.F) {
	for _, s := range []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.0 200 OK\r\n\r\nxyz",
		"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n" + gzipped("{}"),
		"HTTP/1.1 101 Switching Protocols\r\n\r\nabc",
		"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rt := leanOnly(t)
		c := &h1Conn{c: &pipeConn{r: bytes.NewReader(data)}, addr: "x:80"}
		c.lim.r = c.c
		c.br = bufio.NewReader(&c.lim)
		req := postJSON(t, context.Background(), "http://x")
		resp, _, err := rt.exchange(context.Background(), c, false, req, []byte("POST / HTTP/1.1\r\n\r\n"))
		if err != nil {
			return
		}
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		if len(b) > len(data) && !resp.Uncompressed {
			t.Fatalf("body of %d bytes from %d", len(b), len(data))
		}
	})
}

// TestH1IdlePool: the pool keeps at most maxIdle connections per server
// and closes its oldest one once it has been idle longer than idleFor.
func TestH1IdlePool(t *testing.T) {
	rt := leanOnly(t)
	rt.maxIdle, rt.idleFor = 2, time.Hour
	var closed []int
	mk := func(i int, since time.Time) *h1Conn {
		return &h1Conn{c: &closeConn{i: i, closed: &closed}, addr: "a:80", since: since}
	}
	now := time.Now()
	rt.idle["a:80"] = []*h1Conn{mk(0, now.Add(-2*time.Hour))}
	rt.put(mk(1, time.Time{})) // conn 0 is stale: closed
	rt.put(mk(2, time.Time{}))
	rt.put(mk(3, time.Time{})) // the pool is full: closed
	if !reflect.DeepEqual(closed, []int{0, 3}) || len(rt.idle["a:80"]) != 2 {
		t.Errorf("closed %v, %d idle", closed, len(rt.idle["a:80"]))
	}
	if d := newH1Transport(&http.Transport{}).maxIdle; d != http.DefaultMaxIdleConnsPerHost {
		t.Errorf("maxIdle %d without a setting", d)
	}
}

type closeConn struct {
	net.Conn
	i      int
	closed *[]int
}

func (c *closeConn) Close() error { *c.closed = append(*c.closed, c.i); return nil }

// TestH1ClientOutcomesAsNetHTTP: a Client over h1Transport and one over
// net/http's Transport, given the same server replies, reach the same
// outcome: score, error kind, status, attempts, the server's wait hint
// and the waits slept (the retry layer and its reading of Retry-After
// and x-ratelimit-* see the same replies), and for failures above the
// socket the same message.
func TestH1ClientOutcomesAsNetHTTP(t *testing.T) {
	ok := string(completionJSON(`{"score": 7}`, nil, usage{100, 40, 5}, "", ""))
	okReply := "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(ok)) + "\r\n\r\n" + ok
	chunked := "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + strconv.FormatInt(int64(len(ok)), 16) + "\r\n" + ok + "\r\n0\r\n\r\n"
	status := func(line, headers, body string) string {
		return "HTTP/1.1 " + line + "\r\n" + headers + "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
	}
	for _, tc := range []struct {
		name    string
		replies []string // by request; "" closes the connection unanswered, "!" before a reply closes it after
		network bool     // the message names a socket error: compared by kind only
	}{
		{"ok", []string{okReply}, false},
		{"chunked", []string{chunked}, false},
		{"503 then ok", []string{status("503 Service Unavailable", "Retry-After: 2\r\n", "busy"), okReply}, false},
		{"429 throughout", []string{status("429 Too Many Requests", "X-Ratelimit-Remaining-Requests: 0\r\nX-Ratelimit-Reset-Requests: 1.5s\r\n", `{"error": {"message": "slow down"}}`)}, false},
		{"401", []string{status("401 Unauthorized", "", `{"error": {"message": "bad key", "type": "auth"}}`)}, false},
		{"not json", []string{status("200 OK", "", "<html>")}, false},
		{"closed unanswered", []string{""}, true},
		{"closed then ok", []string{"", okReply}, true},
		{"truncated", []string{"!HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n{\"id\""}, true},
		{"unterminated ok", []string{"!HTTP/1.1 200 OK\r\n\r\n" + ok}, false},
	} {
		type outcome struct {
			score            float64
			kind             judge.ErrorKind
			status, attempts int
			retryAfter       time.Duration
			msg              string
			sleeps           []time.Duration
			requests         int64
		}
		var got [2]outcome
		for i, base := range []http.RoundTripper{newHTTPTransport(), nil} {
			var n atomic.Int64
			s := newRawServer(t, func(w io.Writer, _ int) bool {
				r := tc.replies[min(int(n.Add(1))-1, len(tc.replies)-1)]
				if r == "" {
					return false
				}
				closeAfter := strings.HasPrefix(r, "!")
				io.WriteString(w, strings.TrimPrefix(r, "!"))
				return !closeAfter
			})
			if base == nil && !h1Supported {
				t.Skip("h1Transport sends nothing itself on this system")
			}
			rec := &recorder{}
			c := newClient(t, s.url+"/v1", rec, nil)
			if base != nil {
				c.transport.Base = base
			}
			lean := sharedTransport.lean.Load()
			res, err := c.Score(context.Background(), request())
			o := outcome{score: res.Score, sleeps: rec.sleeps, requests: n.Load()}
			var je *judge.Error
			if errors.As(err, &je) {
				o.kind, o.status, o.attempts, o.retryAfter = je.Kind, je.Status, je.Attempts, je.RetryAfter
				if !tc.network {
					o.msg = je.Msg
				}
			} else if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if base == nil && sharedTransport.lean.Load() == lean {
				t.Fatalf("%s: not sent through h1Transport", tc.name)
			}
			got[i] = o
		}
		if !reflect.DeepEqual(got[0], got[1]) {
			t.Errorf("%s:\nnet/http %+v\nh1       %+v", tc.name, got[0], got[1])
		}
	}
}
