package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	goopenai "github.com/sashabaranov/go-openai"
)

// TestRepliesOutliveTheirBuffers: what a call returns (the decoded reply
// by either path, a failure's body) stays intact while later replies are
// read into the reused buffers, calls in parallel.
func TestRepliesOutliveTheirBuffers(t *testing.T) {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct{ Messages []struct{ Content string } }
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			t.Error(err)
		}
		n := body.Messages[0].Content
		w.Header().Set("X-N", n)
		switch n[0] {
		case 'f': // the fast path
			fmt.Fprintf(w, `{"id":"%s","choices":[{"message":{"content":"%s \u00e9"}}]}`, n, strings.Repeat(n, 50))
		case 'j': // left to json.Unmarshal: a key only case-insensitively a field's
			fmt.Fprintf(w, `{"ID":"%s","choices":[{"message":{"content":"%s"}}]}`, n, strings.Repeat(n, 50))
		default: // a failure, its body kept in the error
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, "bad %s", strings.Repeat(n, 50))
		}
	}))
	defer s.Close()
	c := newClient(t, s.URL+"/v1", &recorder{}, nil)
	type out struct {
		resp goopenai.ChatCompletionResponse
		err  error
	}
	const workers, each = 8, 30
	outs := make([][]out, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				n := fmt.Sprintf("%c%d-%d", "fjb"[(w+i)%3], w, i)
				cr := goopenai.ChatCompletionRequest{Model: "m", Messages: []goopenai.ChatCompletionMessage{{Role: "user", Content: n}}}
				r, err := c.send.create(context.Background(), cr)
				outs[w] = append(outs[w], out{r, err})
			}
		}()
	}
	wg.Wait()
	for w := range workers {
		for i, o := range outs[w] {
			n := fmt.Sprintf("%c%d-%d", "fjb"[(w+i)%3], w, i)
			if o.resp.Header().Get("X-N") != n && n[0] != 'b' {
				t.Errorf("%s: header %q", n, o.resp.Header().Get("X-N"))
			}
			switch n[0] {
			case 'f', 'j':
				want := strings.Repeat(n, 50)
				if n[0] == 'f' {
					want += " é"
				}
				if o.err != nil || o.resp.ID != n || len(o.resp.Choices) != 1 || o.resp.Choices[0].Message.Content != want {
					t.Errorf("%s: %v %+v", n, o.err, o.resp)
				}
			default:
				var re *goopenai.RequestError
				if !errors.As(o.err, &re) || string(re.Body) != "bad "+strings.Repeat(n, 50) {
					t.Errorf("%s: %v", n, o.err)
				}
			}
		}
	}
}

// TestSharedHeaderUnchanged: the header every call shares is the same
// after calls through each path a request takes (h1Transport, net/http's
// transport over TLS, retries, a redirect, failures).
func TestSharedHeaderUnchanged(t *testing.T) {
	var n atomic.Int64
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch n.Add(1) % 5 {
		case 1:
			w.WriteHeader(http.StatusTooManyRequests) // retried
		case 2:
			http.Redirect(w, r, "/v1/chat/completions", http.StatusTemporaryRedirect)
		case 3:
			w.WriteHeader(http.StatusBadRequest)
		default:
			w.Write(completionJSON(`{"score": 7}`, nil, usage{1, 0, 1}, "", ""))
		}
	})
	plain := httptest.NewServer(h)
	defer plain.Close()
	tlsSrv := httptest.NewTLSServer(h)
	defer tlsSrv.Close()
	for _, c := range []*Client{
		newClient(t, plain.URL+"/v1", &recorder{}, nil),
		newClient(t, tlsSrv.URL+"/v1", &recorder{}, nil),
	} {
		if strings.HasPrefix(c.cfg.BaseURL, "https") {
			WithBaseTransport(tlsSrv.Client().Transport)(c)
		}
		before := c.send.header.Clone()
		for range 10 {
			c.Score(context.Background(), request())
		}
		if !reflect.DeepEqual(c.send.header, before) {
			t.Errorf("%s: header %v, was %v", c.cfg.BaseURL, c.send.header, before)
		}
	}
	if n.Load() < 20 { // every case of the handler, on both servers
		t.Errorf("%d requests", n.Load())
	}
}
