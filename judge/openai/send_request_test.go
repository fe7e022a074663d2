package openai

import (
	"context"
	"net/http"
	"reflect"
	"testing"

	goopenai "github.com/sashabaranov/go-openai"
)

type ctxKey struct{}

// TestSenderRequestIsNewRequest: each call's request is the one
// http.NewRequestWithContext makes (with the shared header set), field
// for field, for base URLs with ports, empty ports, user info, queries,
// IPv6 hosts and escapes; its URL is its own; a base URL that does not
// make a request fails each call with NewRequestWithContext's error.
func TestSenderRequestIsNewRequest(t *testing.T) {
	for _, base := range []string{
		"http://127.0.0.1:8080/v1",
		"https://api.openai.com/v1",
		"http://localhost:/v1/",
		"http://user:pa%20ss@host:99/v1",
		"http://[::1]:8000/v1?api-version=2",
		"http://host/a%2Fb/v1",
		"http://ho st/v1",
		"://no-scheme",
		"http://host/v1\x7f",
	} {
		oc := goopenai.DefaultConfig("sk-test")
		oc.BaseURL = base
		s := newSender(oc, "m", http.DefaultClient)
		ctx := context.WithValue(context.Background(), ctxKey{}, base)
		want, werr := http.NewRequestWithContext(ctx, http.MethodPost, s.url, nil)
		got, err := s.request(ctx)
		if (err == nil) != (werr == nil) || (err != nil && err.Error() != werr.Error()) {
			t.Errorf("%q: error %v, want %v", base, err, werr)
			continue
		}
		if err != nil {
			if s.tmpl != nil {
				t.Errorf("%q: a template for a URL that makes no request", base)
			}
			continue
		}
		if s.tmpl == nil {
			t.Errorf("%q: no template", base)
		}
		if got.Header == nil && s.header != nil || !reflect.DeepEqual(got.Header, s.header) {
			t.Errorf("%q: header %v, want the shared one", base, got.Header)
		}
		want.Header = got.Header
		if !reflect.DeepEqual(got, want) || got.Context() != ctx {
			t.Errorf("%q:\n got %+v\nwant %+v", base, got, want)
		}
		// A layer below writing to one call's URL leaves the next call's alone.
		got.URL.Path, got.URL.Host = "/changed", "elsewhere"
		again, _ := s.request(ctx)
		if again.URL == got.URL || !reflect.DeepEqual(again.URL, want.URL) {
			t.Errorf("%q: URL shared between calls: %v", base, again.URL)
		}
	}
}
