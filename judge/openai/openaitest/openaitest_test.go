package openaitest

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestStatsCountsTurnarounds: a connection's first request has no
// turnaround, each later one on it has one, and /stats counts neither.
func TestStatsCountsTurnarounds(t *testing.T) {
	s := NewServer(0)
	defer s.Close()
	post := func(c *http.Client) {
		t.Helper()
		resp, err := c.Post(s.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"m"}`))
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"score`) {
			t.Fatalf("%d %q %v", resp.StatusCode, b, err)
		}
	}
	kept := &http.Client{Transport: &http.Transport{}}
	for range 3 {
		post(kept) // one connection: two turnarounds
	}
	post(&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}) // a connection of its own: none

	resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Get(s.URL + "/stats")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st Stats
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	if st.Requests != 4 || st.Conns != 3 || st.Turnarounds != 2 || st.Turnaround <= 0 {
		t.Fatalf("stats %+v, want 4 requests, 3 connections, 2 turnarounds of positive total", st)
	}
}
