package openai

import (
	"bufio"
	"cmp"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/textproto"
	"os"
	"strconv"
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
//     (h1Alive) before it is reused; a request whose write fails on a
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
	wbuf  []byte
	addr  string
	since time.Time // idle since
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
		return t.fallback.RoundTrip(req)
	}
	t.lean.Add(1)
	ctx := req.Context()
	addr := req.URL.Host
	if req.URL.Port() == "" {
		addr = net.JoinHostPort(req.URL.Hostname(), "80")
	}
	msg, err := h1Request(req)
	if req.Body != nil {
		req.Body.Close()
	}
	if err != nil {
		return nil, err
	}
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

// leanable reports whether req is one h1Transport sends itself: POST or GET
// to an http:// URL without a proxy, a body of known length, and only
// the plain headers a JSON API call carries, all valid (net/http checks
// and refuses the others; it sees them here).
func (t *h1Transport) leanable(req *http.Request) bool {
	u := req.URL
	if u == nil || u.Scheme != "http" || u.Host == "" || u.Opaque != "" ||
		(req.Method != http.MethodPost && req.Method != http.MethodGet) ||
		(req.Host != "" && req.Host != u.Host) || req.Close || len(req.TransferEncoding) > 0 || req.Trailer != nil ||
		req.ContentLength < 0 || (req.ContentLength == 0 && req.Body != nil && req.Body != http.NoBody) ||
		(req.ContentLength > 0 && req.Body == nil) {
		return false
	}
	if !h1ASCIIHost(u.Host) {
		return false // IDNA, zones: net/http's rewriting
	}
	for k, vs := range req.Header {
		switch textproto.CanonicalMIMEHeaderKey(k) {
		case "Host", "Connection", "Proxy-Connection", "Keep-Alive", "Upgrade", "Expect", "Te", "Trailer",
			"Transfer-Encoding", "Content-Length", "Accept-Encoding", "Range":
			return false
		}
		if !h1Token(k) {
			return false
		}
		for _, v := range vs {
			if !h1Value(v) {
				return false
			}
		}
	}
	if t.fallback.Proxy != nil {
		if p, err := t.fallback.Proxy(req); err != nil || p != nil {
			return false
		}
	}
	return true
}

func h1ASCIIHost(h string) bool {
	for i := 0; i < len(h); i++ {
		c := h[i]
		if c <= ' ' || c >= 0x7f || c == '%' || c == '/' || c == '@' {
			return false
		}
	}
	return true
}

// h1Token: a header name of RFC 7230 token characters.
func h1Token(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// h1Value: a header value without control characters but tab.
func h1Value(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

// h1Request is req as net/http's Transport writes it on an HTTP/1.1
// connection (Request.write with the transport's Accept-Encoding).
func h1Request(req *http.Request) ([]byte, error) {
	ruri := req.URL.RequestURI()
	n := int(req.ContentLength)
	b := make([]byte, 0, 256+len(ruri)+n)
	b = append(b, req.Method...)
	b = append(b, ' ')
	b = append(b, ruri...)
	b = append(b, " HTTP/1.1\r\nHost: "...)
	b = append(b, req.URL.Host...)
	ua := "Go-http-client/1.1"
	if _, ok := req.Header["User-Agent"]; ok {
		ua = textproto.TrimString(req.Header.Get("User-Agent"))
	}
	if ua != "" {
		b = append(b, "\r\nUser-Agent: "...)
		b = append(b, ua...)
	}
	b = append(b, "\r\n"...)
	if n > 0 || req.Method != http.MethodGet {
		b = append(b, "Content-Length: "...)
		b = strconv.AppendInt(b, int64(n), 10)
		b = append(b, "\r\n"...)
	}
	b = h1Headers(b, req.Header)
	b = append(b, "Accept-Encoding: gzip\r\n\r\n"...)
	if n > 0 {
		head := len(b)
		b = b[:head+n]
		if _, err := io.ReadFull(req.Body, b[head:]); err != nil {
			return nil, fmt.Errorf("http: ContentLength=%d with Body length shorter: %w", n, err)
		}
	}
	return b, nil
}

// h1Headers appends h but the headers Request.write writes itself,
// sorted by name as Header.Write sorts them, values trimmed.
func h1Headers(b []byte, h http.Header) []byte {
	var keys [16]string
	ks := keys[:0]
	for k := range h {
		if k != "User-Agent" {
			ks = append(ks, k)
		}
	}
	// Insertion sort: a handful of headers.
	for i := 1; i < len(ks); i++ {
		for j := i; j > 0 && ks[j] < ks[j-1]; j-- {
			ks[j], ks[j-1] = ks[j-1], ks[j]
		}
	}
	for _, k := range ks {
		for _, v := range h[k] {
			b = append(b, k...)
			b = append(b, ": "...)
			b = append(b, textproto.TrimString(v)...)
			b = append(b, "\r\n"...)
		}
	}
	return b
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
		if (t.idleFor > 0 && now.Sub(c.since) > t.idleFor) || !h1Alive(c.c) {
			c.c.Close()
			continue
		}
		return c, true, nil
	}
	nc, err := t.dialer.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, false, err
	}
	c := &h1Conn{c: nc, addr: addr}
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
			x.c.Close()
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
			c.c.Close()
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
	// The context bounds everything on c until the body is read: its
	// deadline as the connection's, its cancellation by a deadline in the
	// past.
	if d, ok := ctx.Deadline(); ok {
		c.c.SetDeadline(d)
	}
	stop := func() bool { return true }
	if ctx.Done() != nil {
		stop = context.AfterFunc(ctx, func() { c.c.SetDeadline(time.Unix(1, 0)) })
	}
	fail := func(err error) (*http.Response, bool, error) {
		stop()
		c.c.Close()
		return nil, false, h1CtxErr(ctx, err)
	}
	n, err := c.c.Write(msg)
	if err != nil {
		if reused && n == 0 && ctx.Err() == nil {
			stop()
			c.c.Close()
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
	body := &h1Body{t: t, c: c, ctx: ctx, rc: resp.Body, close: resp.Close, stop: stop}
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

// h1Body is a reply's body: the connection goes back to the pool when the
// body was read to its end with nothing after it, and is closed
// otherwise.
type h1Body struct {
	t     *h1Transport
	c     *h1Conn
	ctx   context.Context
	rc    io.ReadCloser
	close bool        // the connection is not to be reused
	stop  func() bool // ends the context's hold on the connection
	done  bool
}

func (b *h1Body) Read(p []byte) (int, error) {
	if b.done {
		return 0, errors.New("http: read on closed response body")
	}
	n, err := b.rc.Read(p)
	if err == io.EOF {
		b.finish(!b.close && b.c.br.Buffered() == 0)
	} else if err != nil {
		b.finish(false)
		err = h1CtxErr(b.ctx, err)
	}
	return n, err
}

// h1CtxErr is ctx's error when ctx has ended or its deadline, set on the
// connection, has passed (the connection's timer can fire before the
// context's: the caller must see the context ended), else err.
func h1CtxErr(ctx context.Context, err error) error {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
			<-ctx.Done() // at most the timer's delay away
		}
	}
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	return err
}

// finish releases the connection, to the pool when reuse says so and the
// context did not end while it was in use.
func (b *h1Body) finish(reuse bool) {
	if b.done {
		return
	}
	b.done = true
	if !b.stop() {
		reuse = false // the context ended: the deadline is in the past
	}
	if reuse {
		if err := b.c.c.SetDeadline(time.Time{}); err == nil {
			b.t.put(b.c)
			return
		}
	}
	b.c.c.Close()
}

// Close closes the connection unless the body was read to its end.
func (b *h1Body) Close() error {
	b.finish(false)
	return nil
}

// h1Gzip decodes a gzip reply net/http's way: the decoder is made at the
// first read, so a body that is never read is never decoded.
type h1Gzip struct {
	body *h1Body
	zr   *gzip.Reader
	err  error
}

func (g *h1Gzip) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	if g.zr == nil {
		g.zr, g.err = gzip.NewReader(g.body)
		if g.err != nil {
			return 0, g.err
		}
	}
	n, err := g.zr.Read(p)
	if err == io.EOF {
		// net/http's gzip reader ends at the stream's end; the body's
		// own end releases the connection.
		var one [1]byte
		if m, rerr := g.body.Read(one[:]); m != 0 || rerr != io.EOF {
			g.body.finish(false)
		}
	}
	return n, err
}

func (g *h1Gzip) Close() error { return g.body.Close() }
