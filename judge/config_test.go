package judge

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math"
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
		{"backend = \"openai\"\nmodel = \"m\"\nmdoe = \"integer\"\n", ":3:1: mdoe: unknown field"},
		{"backend = \"offline\"\nmode = \"logits\"\n", ":2:1: mode: \"logits\" is not one of"},
		{"backend = \"openai\"\n", ".toml: model: required"},
		{"repeats = 0\n", ":1:1: repeats: 0, want at least 1"},
		{"backend = \"offline\"\ntimeout = \"soon\"\n", ":2:"},
		{"backend = \n", ":1:"},
		{"top_p = 1.5\n", ":1:1: top_p: 1.5 outside"},
		{"temperature = nan\n", ":1:1: temperature: NaN outside"},
		{"top_p = inf\n", ":1:1: top_p: +Inf outside"},
		{"repeats = 1\nbase_url = \"notaurl\"\n", ":2:1: base_url: \"notaurl\""},
		{"max_reply_bytes = 0\n", ":1:1: max_reply_bytes: 0"},
		{"max_retry_wait = \"0s\"\n", ":1:1: max_retry_wait: 0s"},
	}
	for _, c := range cases {
		p := writeFile(t, c.body)
		_, err := LoadConfig(p)
		if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want it to name %s and contain %q", c.body, err, p, c.want)
		}
	}
	missing := filepath.Join(t.TempDir(), "missing.toml")
	if _, err := LoadConfig(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: err = %v, want one wrapping fs.ErrNotExist", err)
	}
	fset := flag.NewFlagSet("t", flag.ContinueOnError)
	f := AddFlags(fset)
	if err := fset.Parse([]string{"--judge-config", missing}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Config(func(string) string { return "" }); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("--judge-config of a missing file: err = %v, want one wrapping fs.ErrNotExist", err)
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
		KindNotFound: {false, true}, KindTLS: {false, true}, KindDNS: {false, true}, KindTooLarge: {false, false},
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

func TestValidateFloats(t *testing.T) {
	for _, field := range []string{"temperature", "top_p"} {
		for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
			c := Defaults()
			x := v
			if field == "temperature" {
				c.Temperature = &x
			} else {
				c.TopP = &x
			}
			if err := c.Validate(); err == nil || !strings.HasPrefix(err.Error(), field+":") {
				t.Errorf("%s = %v: %v, want an error naming %s", field, v, err, field)
			}
		}
	}
}

func TestValidateBaseURL(t *testing.T) {
	for _, u := range []string{"", "http://localhost:11434/v1", "https://api.openai.com/v1", "HTTPS://openrouter.ai/api/v1", "http://127.0.0.1:8000", "http://[::1]:8000/v1"} {
		c := Defaults()
		c.BaseURL = u
		if err := c.Validate(); err != nil {
			t.Errorf("%q rejected: %v", u, err)
		}
	}
	for _, u := range []string{"notaurl", "localhost:8000/v1", "ftp://example.com/v1", "http://", "https:///v1", "http://:8000/v1", "http://[::1/v1", "://x", "api.openai.com/v1", "file:///etc/passwd"} {
		c := Defaults()
		c.BaseURL = u
		if err := c.Validate(); err == nil || !strings.HasPrefix(err.Error(), "base_url:") {
			t.Errorf("%q: %v, want a base_url error", u, err)
		}
	}
}

func TestFlagsTransportKnobs(t *testing.T) {
	parse := func(args ...string) (Config, error) {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		f := AddFlags(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		return f.Config(func(string) string { return "" })
	}
	c, err := parse()
	if err != nil || c.MaxReplyBytes != 1<<20 || time.Duration(c.MaxRetryWait) != 60*time.Second {
		t.Errorf("defaults: max_reply_bytes %d max_retry_wait %v (%v)", c.MaxReplyBytes, time.Duration(c.MaxRetryWait), err)
	}
	c, err = parse("--max-reply-bytes", "4096", "--max-retry-wait", "5s")
	if err != nil || c.MaxReplyBytes != 4096 || time.Duration(c.MaxRetryWait) != 5*time.Second {
		t.Errorf("set: max_reply_bytes %d max_retry_wait %v (%v)", c.MaxReplyBytes, time.Duration(c.MaxRetryWait), err)
	}
	for _, tc := range []struct {
		args  []string
		field string
	}{
		{[]string{"--base-url", "notaurl"}, "base_url"},
		{[]string{"--backend", "openai", "--model", "m", "--base-url", "localhost:8000"}, "base_url"},
		{[]string{"--temperature", "NaN"}, "temperature"},
		{[]string{"--top-p", "-Inf"}, "top_p"},
		{[]string{"--max-reply-bytes", "0"}, "max_reply_bytes"},
		{[]string{"--max-retry-wait", "0s"}, "max_retry_wait"},
	} {
		if _, err := parse(tc.args...); err == nil || !strings.Contains(err.Error(), tc.field+":") {
			t.Errorf("%v: %v, want an error naming %s", tc.args, err, tc.field)
		}
	}
}

func TestSanitizeServerText(t *testing.T) {
	cases := []struct{ in, want string }{
		{"plain text, kept", "plain text, kept"},
		{"line one\n\tline two", "line one\n\tline two"},
		{"bad key\x1b[2J\x1b[H\x07 end", "bad key end"},
		{"\u009b2Jcleared", "cleared"},
		{"red \x1b[1;31mALERT\x1b[0m done", "red ALERT done"},
		{"title\x1b]0;pwned\x07 after", "title after"},
		{"osc\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "osclink"},
		{"cr\rover\x00nul\x7fdel\u0085nel", "crovernuldelnel"},
		{"raw c1 byte \x9b2J", "raw c1 byte \uFFFD2J"},
		{"keep ünïcode — ✓", "keep ünïcode — ✓"},
		{"esc at end \x1b", "esc at end "},
		{"charset \x1b(B ok", "charset  ok"},
	}
	for _, c := range cases {
		if got := SanitizeServerText(c.in); got != c.want {
			t.Errorf("SanitizeServerText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	e := &Error{Kind: KindAuth, Status: 401, Msg: "Incorrect key\x1b[2J\x1b[H\x07\u009b2J"}
	if got := e.Error(); got != "judge: auth (HTTP 401): Incorrect key" {
		t.Errorf("Error() = %q", got)
	}
}
