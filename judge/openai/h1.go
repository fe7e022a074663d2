package openai

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// h1Transport is HTTPTransport: for a plain http:// server reached
// without a proxy it speaks HTTP/1.1 itself on the calling goroutine,
// one kept-alive connection per request in flight; everything else
// (https, proxies, unusual requests) goes to net/http's Transport.
//
// Why: net/http's client runs two goroutines per connection and hands
// each request and reply between them and the caller; with the kernel's
// loopback work that was half of the judge engine's CPU per request at
// concurrency 128 (docs/performance.md). Here a request is one write and
// its reply is read by the caller: no goroutine, no channel.
//
// What it keeps of net/http's behaviour, so that a server sees the same
// bytes and the retry layer the same replies and errors:
//   - the request is written as net/http writes it: request line, Host,
//     User-Agent, Content-Length, the headers sorted by name, then
//     "Accept-Encoding: gzip" (and a gzip reply is decoded as net/http
//     decodes it);
//   - replies are parsed by http.ReadResponse: Content-Length and
//     chunked bodies, Connection: close and HTTP/1.0 replies (the
//     connection is then not reused), informational 1xx replies skipped,
//     headers limited as net/http limits them (MaxResponseHeaderBytes,
//     default 10 MiB, 1xx replies included);
//   - a connection is reused only after its reply was read to the end
//     with nothing following it, and is checked for a close by the server
//     (h1Peek) before it is reused; a request whose write fails on a
//     reused connection before any byte went out is sent again on a new
//     one (net/http's rule: the server cannot have seen it); a reused
//     connection closed before any reply byte is an error, as in
//     net/http, for the retry layer to handle;
//   - the request's context bounds the dial, the write and the reply,
//     body included; an error after the context ended is its Err.
type h1Transport struct {
	fallback *http.Transport
	dialer   *net.Dialer
	maxIdle  int           // idle connections kept per server
	idleFor  time.Duration // an idle connection older than this is closed
	maxHead  int64         // bound on a reply's header bytes

	mu   sync.Mutex
	idle map[string][]*h1Conn // by host:port, most recently used last

	lean atomic.Int64 // requests sent here rather than by net/http (tests)
}

// h1Bufs holds request message buffers of up to h1MaxPooled bytes.
var h1Bufs = sync.Pool{New: func() any { return new([]byte) }}

const h1MaxPooled = 64 << 10

// h1MaxHeaderBytes is net/http's default bound on a reply's headers,
// informational replies included (Transport.MaxResponseHeaderBytes).
const h1MaxHeaderBytes = 10 << 20

func newH1Transport(fallback *http.Transport) *h1Transport {
	return &h1Transport{
		fallback: fallback,
		dialer:   &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}, // http.DefaultTransport's
		maxIdle:  cmp.Or(fallback.MaxIdleConnsPerHost, http.DefaultMaxIdleConnsPerHost),
		idleFor:  fallback.IdleConnTimeout,
		maxHead:  cmp.Or(fallback.MaxResponseHeaderBytes, h1MaxHeaderBytes),
		idle:     map[string][]*h1Conn{},
	}
}

// h1Conn is one connection: the reply reader counts the header bytes
// read through lim.
type h1Conn struct {
	c     net.Conn
	lim   h1Limit
	br    *bufio.Reader
	peek  *h1Peek
	addr  string
	since time.Time // idle since

	// The context whose end cuts c off (watch): its Done channel, and
	// the registration to undo.
	watched <-chan struct{}
	unwatch func() bool
	watches int // registrations made (tests)
}

// watch makes the end of ctx cut off c's reads and writes (a deadline
// in the past), registered once for all the requests c serves under one
// context rather than once a request: every request of a run has the
// run's context above it, so a registration per request was two
// operations on that context's lock for every request of every worker
// (docs/performance.md, "One deadline an attempt"). It reports false
// when a context c served before has ended and may have cut c off: c is
// then not to be used.
func (c *h1Conn) watch(ctx context.Context) bool {
	done := ctx.Done()
	if done == c.watched {
		return true
	}
	if c.unwatch != nil && !c.unwatch() {
		return false
	}
	c.watched, c.unwatch = done, nil
	if done != nil {
		conn := c.c
		c.unwatch = context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
		c.watches++
	}
	return true
}

// close closes c and drops its registration with the context it served.
func (c *h1Conn) close() {
	if c.unwatch != nil {
		c.unwatch()
	}
	c.c.Close()
}

var errH1HeaderLimit = errors.New("header limit reached")

// h1Limit reads from r at most n bytes (n < 0: no limit).
type h1Limit struct {
	r io.Reader
	n int64
}

func (l *h1Limit) Read(p []byte) (int, error) {
	if l.n < 0 {
		return l.r.Read(p)
	}
	if l.n == 0 {
		return 0, errH1HeaderLimit
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	return n, err
}

// RoundTrip implements http.RoundTripper.
func (t *h1Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !h1Supported || !t.leanable(req) {
		return t.fallbackRoundTrip(req)
	}
	t.lean.Add(1)
	ctx := req.Context()
	addr := req.URL.Host
	if req.URL.Port() == "" {
		addr = net.JoinHostPort(req.URL.Hostname(), "80")
	}
	buf := h1Bufs.Get().(*[]byte)
	msg, err := h1Request(*buf, req)
	if req.Body != nil {
		req.Body.Close()
	}
	if err != nil {
		return nil, err
	}
	// The message is written before exchange returns (one write, on this
	// goroutine): its buffer is free when RoundTrip returns.
	defer func() {
		if cap(msg) <= h1MaxPooled {
			*buf = msg[:0]
			h1Bufs.Put(buf)
		}
	}()
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c, reused, err := t.conn(ctx, addr)
		if err != nil {
			return nil, err
		}
		resp, retry, err := t.exchange(ctx, c, reused, req, msg)
		if retry {
			continue // nothing was written on a reused connection
		}
		return resp, err
	}
}

// conn returns an idle connection to addr that the server has not
// closed, or dials one.
func (t *h1Transport) conn(ctx context.Context, addr string) (*h1Conn, bool, error) {
	now := time.Now()
	for {
		t.mu.Lock()
		l := t.idle[addr]
		if len(l) == 0 {
			t.mu.Unlock()
			break
		}
		c := l[len(l)-1]
		l[len(l)-1] = nil
		t.idle[addr] = l[:len(l)-1]
		t.mu.Unlock()
		if (t.idleFor > 0 && now.Sub(c.since) > t.idleFor) || !c.peek.open() {
			c.close()
			continue
		}
		return c, true, nil
	}
	nc, err := t.dialer.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, false, err
	}
	c := &h1Conn{c: nc, addr: addr, peek: newH1Peek(nc)}
	c.lim.r = nc
	c.br = bufio.NewReader(&c.lim)
	return c, false, nil
}

// put returns c to the idle pool, or closes it when the pool is full.
// The pool's oldest connection is closed when it has been idle longer
// than idleFor (the pool is used newest first, so it may never be
// reached otherwise).
func (t *h1Transport) put(c *h1Conn) {
	c.since = time.Now()
	var old *h1Conn
	addr := c.addr
	t.mu.Lock()
	l := t.idle[addr]
	if len(l) > 0 && t.idleFor > 0 && c.since.Sub(l[0].since) > t.idleFor {
		old = l[0]
		l = append(l[:0], l[1:]...)
	}
	if len(l) < t.maxIdle {
		l = append(l, c)
		c = nil
	}
	t.idle[addr] = l
	t.mu.Unlock()
	for _, x := range []*h1Conn{old, c} {
		if x != nil {
			x.close()
		}
	}
}

// CloseIdleConnections closes the idle connections of both paths.
func (t *h1Transport) CloseIdleConnections() {
	t.mu.Lock()
	idle := t.idle
	t.idle = map[string][]*h1Conn{}
	t.mu.Unlock()
	for _, l := range idle {
		for _, c := range l {
			c.close()
		}
	}
	t.fallback.CloseIdleConnections()
}

// errH1ServerClosedIdle is net/http's error for a reused connection
// closed before its reply began.
var errH1ServerClosedIdle = errors.New("http: server closed idle connection")

// exchange writes msg on c and reads the reply's header. retry reports
// that c was reused and failed before any byte of msg was written: the
// caller sends msg again on another connection.
func (t *h1Transport) exchange(ctx context.Context, c *h1Conn, reused bool, req *http.Request, msg []byte) (resp *http.Response, retry bool, err error) {
	// The attempt's deadline bounds everything on c until the body is
	// read, and the end of the context cuts c off (watch). The context is
	// looked at once more after both are set: a cancellation before that
	// stops the request here, and one after it reaches c.
	if !c.watch(ctx) {
		c.close()
		return nil, true, nil // nothing was written: another connection
	}
	if d := attemptDeadline(ctx); !d.IsZero() {
		c.c.SetDeadline(d)
	}
	fail := func(err error) (*http.Response, bool, error) {
		c.close()
		return nil, false, h1CtxErr(ctx, err)
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	n, err := c.c.Write(msg)
	if err != nil {
		if reused && n == 0 && ctx.Err() == nil {
			c.close()
			return nil, true, nil
		}
		return fail(err)
	}
	// As net/http: the header bytes of the reply and of the informational
	// replies before it are bounded together; 101 ends the headers.
	c.lim.n = t.maxHead
	if _, err := c.br.Peek(1); err != nil {
		if reused && err == io.EOF {
			err = errH1ServerClosedIdle
		}
		return fail(t.headerErr(c, err))
	}
	for {
		resp, err = http.ReadResponse(c.br, req)
		if err != nil {
			return fail(t.headerErr(c, err))
		}
		if resp.StatusCode < 100 || resp.StatusCode > 199 || resp.StatusCode == http.StatusSwitchingProtocols {
			break
		}
	}
	c.lim.n = -1
	body := &h1Body{t: t, c: c, ctx: ctx, rc: resp.Body, close: resp.Close}
	if resp.StatusCode == http.StatusSwitchingProtocols {
		// Never asked for; net/http hands the connection over as the body.
		body.rc, body.close = io.NopCloser(c.br), true
	}
	if resp.Body == http.NoBody {
		// Nothing to read: the connection is free now, as in net/http.
		body.finish(!body.close && c.br.Buffered() == 0)
		return resp, false, nil
	}
	resp.Body = body
	if strings.EqualFold(resp.Header.Get("Content-Encoding"), "gzip") {
		resp.Body = &h1Gzip{body: body}
		resp.Header.Del("Content-Encoding")
		resp.Header.Del("Content-Length")
		resp.ContentLength = -1
		resp.Uncompressed = true
	}
	return resp, false, nil
}

// headerErr is net/http's error for a header over the limit, else err.
func (t *h1Transport) headerErr(c *h1Conn, err error) error {
	if c.lim.n == 0 {
		return fmt.Errorf("net/http: server response headers exceeded %d bytes; aborted", t.maxHead)
	}
	return err
}
