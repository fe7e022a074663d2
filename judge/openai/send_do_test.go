package openai

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// serverLog records what a test server received.
type serverLog struct {
	mu  sync.Mutex
	got []string
}

func (l *serverLog) add(r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.got = append(l.got, fmt.Sprintf("%s %s auth=%q ref=%q ct=%q body=%q", r.Method, r.URL, r.Header.Get("Authorization"),
		r.Header.Get("Referer"), r.Header.Get("Content-Type"), b))
}

func (l *serverLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	g := l.got
	l.got = nil
	return g
}

// TestSenderDoIsClientDo: sender.do returns what http.Client.Do returns
// (status, header, body, error text and type, the final request's URL)
// and the servers see the same requests (redirects followed or not, with
// or without the body, the key dropped on another host), for replies
// returned at once, failures, every redirect status with and without a
// Location, a bad Location, a redirect loop, another host, a refused
// connection and a URL with a user.
func TestSenderDoIsClientDo(t *testing.T) {
	log := &serverLog{}
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.add(r)
		fmt.Fprint(w, `{"other":true}`)
	}))
	defer other.Close()
	// The same server under another host name: the key is not sent there.
	otherURL := strings.Replace(other.URL, "127.0.0.1", "localhost", 1)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.add(r)
		q := r.URL.Query()
		switch {
		case r.URL.Path == "/ok":
			fmt.Fprint(w, `{"ok":true}`)
		case r.URL.Path == "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		case q.Get("status") != "":
			var code int
			fmt.Sscan(q.Get("status"), &code)
			if loc := q.Get("loc"); loc != "" {
				w.Header().Set("Location", strings.Replace(loc, "OTHER", otherURL, 1))
			}
			w.WriteHeader(code)
			fmt.Fprintf(w, `{"status":%d}`, code)
		default:
			fmt.Fprint(w, `{"id":"x","choices":[]}`)
		}
	}))
	defer s.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()

	bases := []string{s.URL + "/v1"}
	for _, code := range []int{200, 204, 400, 404, 418, 301, 302, 303, 307, 308, 300, 304} {
		for _, loc := range []string{"", "/ok", "OTHER/moved", "http://[::1"} {
			bases = append(bases, fmt.Sprintf("%s/v1?status=%d&loc=%s&", s.URL, code, loc))
		}
	}
	bases = append(bases, s.URL+"/loop?", closed.URL+"/v1",
		strings.Replace(s.URL, "http://", "http://user:pw@", 1)+"/v1")
	for _, base := range bases {
		c := newClient(t, base, &recorder{}, nil)
		// The query (?status=…&) ends up before "/chat/completions": the
		// server reads it from the query string.
		type out struct {
			res  string
			err  string
			seen []string
		}
		call := func(do func(*http.Request) (*http.Response, error)) out {
			req, err := c.send.request(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			body := []byte(`{"model":"m"}`)
			req.Body, req.ContentLength = newSendBody(body), int64(len(body))
			req.GetBody = func() (io.ReadCloser, error) { return newSendBody(body), nil }
			req.Header = c.send.header
			res, err := do(req)
			var o out
			if err != nil {
				o.err = fmt.Sprintf("%T %v", err, err)
			}
			if res != nil {
				b, _ := io.ReadAll(res.Body)
				res.Body.Close()
				res.Header.Del("Date")
				o.res = fmt.Sprintf("%d %v %q %v", res.StatusCode, res.Header, b, res.Request.URL)
			}
			o.seen = log.take()
			return o
		}
		want := call(c.send.http.Do)
		got := call(c.send.do)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s:\n got %v\nwant %v", base, got, want)
		}
		if len(want.seen) == 0 && !strings.HasPrefix(base, closed.URL) {
			t.Errorf("%s: the server saw nothing", base)
		}
	}
}
