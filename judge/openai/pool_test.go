package openai

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/prism-eval/prism/judge"
)

// TestConnectionsReused sends rounds of c requests that are all in flight
// at once (the server answers none of a round until all c have arrived)
// with the default transport: its connections are kept alive and reused,
// rather than all but 2 of them closed after every round (Go's default
// idle pool), which opened a connection for nearly every request.
func TestConnectionsReused(t *testing.T) {
	const c, rounds = 8, 20
	var conns atomic.Int64
	var mu sync.Mutex
	arrived, gate := 0, make(chan struct{})
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		g := gate
		if arrived++; arrived == c {
			close(gate)
			arrived, gate = 0, make(chan struct{})
		}
		mu.Unlock()
		<-g
		w.Header().Set("Content-Type", "application/json")
		w.Write(completionJSON(`{"score": 7}`, nil, usage{100, 0, 5}, "", ""))
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	cfg := judge.Defaults()
	cfg.Backend, cfg.Model, cfg.BaseURL = judge.BackendOpenAI, "test-model", srv.URL
	cfg.ResponseFormat = judge.FormatNone
	cl, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for range rounds {
		var wg sync.WaitGroup
		for range c {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if res, err := cl.Score(context.Background(), request()); err != nil || res.Score != 7 {
					t.Errorf("%+v %v", res, err)
				}
			}()
		}
		wg.Wait()
	}
	// c connections serve every round; a few more may be dialed while an
	// answered one is on its way back to the pool. Go's default pool kept
	// 2 and opened about c-2 new ones per round (c + (rounds-1)(c-2) = 122).
	t.Logf("conns %d", conns.Load())
	if n := conns.Load(); n > 4*c {
		t.Errorf("%d connections for %d rounds of %d requests; want at most %d", n, rounds, c, 4*c)
	}
	if sharedTransport.MaxIdleConnsPerHost < 128 {
		t.Error("the idle pool is smaller than the concurrency prism runs at")
	}
}
