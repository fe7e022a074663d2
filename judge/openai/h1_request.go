package openai

import (
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"slices"
	"strconv"
	"strings"
)

// The requests h1Transport sends itself, and their bytes.

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
// connection (Request.write with the transport's Accept-Encoding),
// appended to buf[:0].
func h1Request(buf []byte, req *http.Request) ([]byte, error) {
	ruri := req.URL.RequestURI()
	n := int(req.ContentLength)
	b := buf[:0]
	if need := 256 + len(ruri) + n; cap(b) < need {
		b = make([]byte, 0, need)
	}
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
		b = slices.Grow(b, n)[:head+n] // headers longer than foreseen
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
