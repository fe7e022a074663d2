package judge

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
)

const secret = "sk-config-test-0123456789-SECRET"

func writeFile(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "judge.toml")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadConfig(t *testing.T) {
	p := writeFile(t, `
backend = "openai"
model = "gpt-4o-mini"
base_url = "https://openrouter.ai/api/v1"
mode = "expected"
repeats = 3
temperature = 0.0
seed = 7
timeout = "45s"
max_retry_wait = "2m"
api_key = "`+secret+`"
`)
	c, err := LoadConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	if c.Backend != BackendOpenAI || c.Model != "gpt-4o-mini" || c.Mode != ModeExpected || c.Repeats != 3 ||
		c.Temperature == nil || *c.Temperature != 0 || *c.Seed != 7 || time.Duration(c.Timeout) != 45*time.Second ||
		time.Duration(c.MaxRetryWait) != 2*time.Minute || string(c.APIKey) != secret || c.Retries != Defaults().Retries {
		t.Errorf("loaded %+v", c)
	}
}

func TestLoadConfigErrors(t *testing.T) {
	cases := []struct{ body, want string }{
		{"backend = \"openai\"\nmodel = \"m\"\nmdoe = \"integer\"\n", ":3: mdoe: unknown field"},
		{"backend = \"offline\"\nmode = \"logits\"\n", ":2: mode: \"logits\" is not one of"},
		{"backend = \"openai\"\n", ".toml: model: required"},
		{"repeats = 0\n", ":1: repeats: 0, want at least 1"},
		{"backend = \"offline\"\ntimeout = \"soon\"\n", ":2:"},
		{"backend = \n", ":1:"},
		{"top_p = 1.5\n", ":1: top_p: 1.5 outside"},
	}
	for _, c := range cases {
		p := writeFile(t, c.body)
		_, err := LoadConfig(p)
		if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want it to name %s and contain %q", c.body, err, p, c.want)
		}
	}
	if _, err := LoadConfig(filepath.Join(t.TempDir(), "missing.toml")); err == nil {
		t.Error("a missing file loaded")
	}
}

func TestKeyNeverSerialised(t *testing.T) {
	c := Defaults()
	c.Backend, c.Model, c.APIKey = BackendOpenAI, "m", secret
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{string(b), fmt.Sprint(c), fmt.Sprintf("%+v", c), fmt.Sprintf("%#v", c), fmt.Sprintf("%s", c.APIKey), fmt.Sprintf("%q", c.APIKey)} {
		if strings.Contains(s, secret) {
			t.Errorf("key in %q", s)
		}
	}
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(c); err == nil || strings.Contains(buf.String(), secret) {
		t.Errorf("TOML encoding: %v, %q", err, buf.String())
	}
	// A stored config round-trips without the key.
	var back Config
	if err := json.Unmarshal(b, &back); err != nil || back.APIKey != "" || back.Model != "m" {
		t.Errorf("round trip: %+v, %v", back, err)
	}
}

func TestFlagsPrecedence(t *testing.T) {
	p := writeFile(t, "backend = \"openai\"\nmodel = \"from-file\"\nrepeats = 4\n")
	env := map[string]string{"OPENAI_API_KEY": secret, "OPENAI_BASE_URL": "http://env:8000/v1", "OR_KEY": "other"}
	getenv := func(k string) string { return env[k] }

	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	f := AddFlags(fs)
	if err := fs.Parse([]string{"--judge-config", p, "--model", "from-flag", "--temperature", "0"}); err != nil {
		t.Fatal(err)
	}
	c, err := f.Config(getenv)
	if err != nil {
		t.Fatal(err)
	}
	if c.Model != "from-flag" || c.Repeats != 4 || c.Backend != BackendOpenAI || c.BaseURL != "http://env:8000/v1" ||
		string(c.APIKey) != secret || c.Temperature == nil || *c.Temperature != 0 || c.TopP != nil || c.Seed != nil {
		t.Errorf("resolved %+v", c)
	}

	fs = flag.NewFlagSet("t", flag.ContinueOnError)
	f = AddFlags(fs)
	fs.Parse([]string{"--api-key-env", "OR_KEY", "--base-url", "http://flag/v1"})
	c, err = f.Config(getenv)
	if err != nil || string(c.APIKey) != "other" || c.BaseURL != "http://flag/v1" || c.Backend != BackendOffline {
		t.Errorf("resolved %+v, %v", c, err)
	}

	fs = flag.NewFlagSet("t", flag.ContinueOnError)
	f = AddFlags(fs)
	fs.Parse([]string{"--mode", "bogus"})
	if _, err := f.Config(getenv); err == nil || !strings.Contains(err.Error(), "mode") {
		t.Errorf("bad mode flag: %v", err)
	}
}

func TestErrorKinds(t *testing.T) {
	for k, want := range map[ErrorKind][2]bool{
		KindRateLimit: {true, false}, KindServer: {true, false}, KindTimeout: {true, false}, KindNetwork: {true, false},
		KindAuth: {false, true}, KindConfig: {false, true}, KindCanceled: {false, true},
		KindBadRequest: {false, false}, KindUnparseable: {false, false}, KindOutOfRange: {false, false},
		KindRefusal: {false, false}, KindNoLogprobs: {false, false},
	} {
		if k.Retryable() != want[0] || k.StopsRun() != want[1] {
			t.Errorf("%s: retryable %v stops %v, want %v", k, k.Retryable(), k.StopsRun(), want)
		}
	}
	if KindOf(fmt.Errorf("wrapped: %w", &Error{Kind: KindAuth})) != KindAuth || KindOf(nil) != "" {
		t.Error("KindOf does not unwrap")
	}
}
