package store

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const fakeKey = "sk-proj-TESTKEY0123456789abcdefXYZ"

func TestPutJudgeStripsSecrets(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	j, err := s.PutJudge(ctx, Judge{
		Name: "gpt", Backend: "openai", Model: "gpt-4o-mini",
		BaseURL: "https://user:" + fakeKey + "@api.example.com/v1?api_key=" + fakeKey + "&region=eu",
		Params: map[string]any{
			"temperature": 0.0, "max_tokens": 256, "api_key": fakeKey,
			"headers": map[string]any{"Authorization": "Bearer " + fakeKey, "X-Trace": "on"},
			"note":    "uses " + fakeKey, // a key under an innocent name
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	wantStripped := []string{"api_key", "base_url.query.api_key", "base_url.userinfo", "headers.Authorization", "note"}
	if strings.Join(j.Stripped, ",") != strings.Join(wantStripped, ",") {
		t.Errorf("Stripped = %v, want %v", j.Stripped, wantStripped)
	}
	got, err := s.Judge(ctx, "gpt")
	if err != nil {
		t.Fatal(err)
	}
	if got.BaseURL != "https://api.example.com/v1?region=eu" {
		t.Errorf("BaseURL = %q", got.BaseURL)
	}
	if got.Params["max_tokens"] != 256.0 || got.Params["temperature"] != 0.0 ||
		got.Params["headers"].(map[string]any)["X-Trace"] != "on" {
		t.Errorf("ordinary params lost: %v", got.Params)
	}
	if _, ok := got.Params["api_key"]; ok {
		t.Error("api_key stored")
	}
	// Same name and config (keys are not part of it) is fine; a change is not.
	if _, err := s.PutJudge(ctx, Judge{Name: "gpt", Backend: "openai", Model: "gpt-4o-mini", BaseURL: got.BaseURL,
		Params: map[string]any{"temperature": 0, "max_tokens": 256, "headers": map[string]any{"X-Trace": "on"}}}); err != nil {
		t.Errorf("re-putting the same judge: %v", err)
	}
	if _, err := s.PutJudge(ctx, Judge{Name: "gpt", Backend: "openai", Model: "gpt-4o"}); !errors.Is(err, ErrExists) {
		t.Errorf("changing a stored judge: err = %v, want ErrExists", err)
	}
}

// TestSecretNeverReachesDisk writes a judge with a key in every place a
// caller might put one, plus responses whose error and raw text carry it,
// then searches the raw bytes of the database and its WAL.
func TestSecretNeverReachesDisk(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "secret.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	const plainKey = "plain-opaque-credential-42" // no recognisable shape: only AddSecret can catch it
	s.AddSecret(plainKey)
	if err := s.PutDataset(ctx, tinyDataset("tiny"), false); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutJudge(ctx, Judge{Name: "j", Backend: "openai", Model: "gpt-x",
		BaseURL: "https://api.example.com/v1?key=" + plainKey,
		Params:  map[string]any{"api_key": fakeKey, "extra": plainKey, "temperature": 0}}); err != nil {
		t.Fatal(err)
	}
	r := failure("c1", "x", "baseline", "0", "http-401")
	r.Err = "401 Unauthorized: Incorrect API key provided: " + fakeKey + " (" + plainKey + ")"
	a := answer("c1", "x", "baseline", "1", 3)
	a.Raw = "echo " + plainKey
	if err := s.PutResponses(ctx, []Response{r, a}); err != nil {
		t.Fatal(err)
	}
	fails, err := s.Failures(ctx, "tiny", "j")
	if err != nil || fails["http-401"] != 1 {
		t.Fatalf("the failure itself must be kept: %v %v", fails, err)
	}
	check := func(stage string) {
		for _, suffix := range []string{"", "-wal"} {
			b, err := os.ReadFile(path + suffix)
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(b) == 0 && suffix == "" {
				t.Fatalf("%s: database file is empty; the test would prove nothing", stage)
			}
			for _, k := range []string{fakeKey, plainKey, "TESTKEY0123456789"} {
				if bytes.Contains(b, []byte(k)) {
					t.Errorf("%s: %s%s contains the secret %q", stage, filepath.Base(path), suffix, k)
				}
			}
		}
	}
	check("before close (WAL)")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	check("after checkpoint")
}
