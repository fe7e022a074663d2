package judge

import (
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Backend names.
const (
	BackendOffline = "offline" // the deterministic simulator (default)
	BackendOpenAI  = "openai"  // any OpenAI-compatible chat-completions server
	// BackendAnthropic is Anthropic's Messages API (judge/anthropic): no
	// logprobs, so integer mode only.
	BackendAnthropic = "anthropic"
)

// Response-format policies for the OpenAI-compatible backend.
const (
	FormatAuto       = "auto"        // try json_schema; on a 400 naming response_format, drop it for this client
	FormatJSONSchema = "json_schema" // always send json_schema
	FormatJSONObject = "json_object" // send {"type":"json_object"}
	FormatNone       = "none"        // send no response_format; the strict parser still wants JSON or a bare number
)

// Config selects and tunes a backend. It is what a run stores beside its
// scores, so it never carries the API key in serialised form: APIKey is
// excluded from JSON and prints as "[redacted]".
type Config struct {
	Backend string `json:"backend" toml:"backend"`
	Model   string `json:"model,omitempty" toml:"model"`
	BaseURL string `json:"base_url,omitempty" toml:"base_url"`
	Mode    Mode   `json:"mode" toml:"mode"`

	// Repeats is the number of samples per request (each a separate call),
	// averaged into the Result.
	Repeats int `json:"repeats" toml:"repeats"`
	// Temperature and TopP are sent only when set (nil leaves the server's
	// default); an explicit 0 is sent as 0.
	Temperature *float64 `json:"temperature,omitempty" toml:"temperature"`
	TopP        *float64 `json:"top_p,omitempty" toml:"top_p"`
	MaxTokens   int      `json:"max_tokens,omitempty" toml:"max_tokens"`
	// Seed, when set, is sent as seed+r for repeat r, so repeats are
	// distinct samples and reruns ask for the same ones. The offline judge
	// mixes it into its noise.
	Seed *int `json:"seed,omitempty" toml:"seed"`
	// TopLogprobs is the number of alternatives asked per token in
	// ModeExpected (1–20; default 20).
	TopLogprobs int `json:"top_logprobs,omitempty" toml:"top_logprobs"`
	// ResponseFormat is one of the Format* policies (default auto).
	ResponseFormat string `json:"response_format,omitempty" toml:"response_format"`

	// Timeout bounds each HTTP attempt; Retries is the number of retries
	// after the first attempt on 429, 5xx, timeouts and broken connections;
	// MaxRetryWait caps one wait between attempts: a server hint beyond it
	// (Retry-After: 100000) is clamped to it, never honoured in full.
	Timeout      Duration `json:"timeout" toml:"timeout"`
	Retries      int      `json:"retries" toml:"retries"`
	MaxRetryWait Duration `json:"max_retry_wait" toml:"max_retry_wait"`
	// MaxReplyBytes bounds the body of one HTTP reply; a longer one fails
	// that request (KindTooLarge) after reading one byte past the limit.
	MaxReplyBytes int64 `json:"max_reply_bytes" toml:"max_reply_bytes"`

	// APIKeyEnv names the environment variable holding the key when it is
	// not OPENAI_API_KEY (e.g. OPENROUTER_API_KEY). The name is stored; the
	// key is not.
	APIKeyEnv string `json:"api_key_env,omitempty" toml:"api_key_env"`
	// APIKey is the secret itself; never serialised.
	APIKey Secret `json:"-" toml:"api_key"`
}

// Transport defaults.
const (
	DefaultMaxRetryWait  = 60 * time.Second // the longest wait between two attempts
	DefaultMaxReplyBytes = 1 << 20          // 1 MiB: a chat completion with logprobs is a few KiB
)

// Defaults returns the configuration prism uses when nothing is given: the
// offline simulator in integer mode, one repeat.
func Defaults() Config {
	return Config{
		Backend:        BackendOffline,
		Mode:           ModeInteger,
		Repeats:        1,
		TopLogprobs:    20,
		ResponseFormat: FormatAuto,
		Timeout:        Duration(60 * time.Second),
		Retries:        6,
		MaxRetryWait:   Duration(DefaultMaxRetryWait),
		MaxReplyBytes:  DefaultMaxReplyBytes,
	}
}

// Validate reports the first invalid field, naming it as in the config file.
func (c Config) Validate() error {
	switch c.Backend {
	case BackendOffline, BackendOpenAI, BackendAnthropic:
	default:
		return fmt.Errorf("backend: %q is not one of %q, %q, %q", c.Backend, BackendOffline, BackendOpenAI, BackendAnthropic)
	}
	if (c.Backend == BackendOpenAI || c.Backend == BackendAnthropic) && c.Model == "" {
		return fmt.Errorf("model: required for backend %q", c.Backend)
	}
	switch c.Mode {
	case ModeInteger, ModeExpected:
	default:
		return fmt.Errorf("mode: %q is not one of %q, %q", c.Mode, ModeInteger, ModeExpected)
	}
	if c.Repeats < 1 {
		return fmt.Errorf("repeats: %d, want at least 1", c.Repeats)
	}
	if err := checkBaseURL(c.BaseURL); err != nil {
		return err
	}
	// Written as !(in range) so that NaN, which compares false with
	// everything, is out of range.
	if t := c.Temperature; t != nil && !(*t >= 0 && *t <= 2) {
		return fmt.Errorf("temperature: %g outside [0, 2]", *t)
	}
	if p := c.TopP; p != nil && !(*p > 0 && *p <= 1) {
		return fmt.Errorf("top_p: %g outside (0, 1]", *p)
	}
	if c.MaxTokens < 0 {
		return fmt.Errorf("max_tokens: %d is negative", c.MaxTokens)
	}
	if c.Mode == ModeExpected && (c.TopLogprobs < 1 || c.TopLogprobs > 20) {
		return fmt.Errorf("top_logprobs: %d outside 1–20", c.TopLogprobs)
	}
	switch c.ResponseFormat {
	case FormatAuto, FormatJSONSchema, FormatJSONObject, FormatNone:
	default:
		return fmt.Errorf("response_format: %q is not one of auto, json_schema, json_object, none", c.ResponseFormat)
	}
	if c.Timeout <= 0 {
		return fmt.Errorf("timeout: %s, want a positive duration", time.Duration(c.Timeout))
	}
	if c.Retries < 0 {
		return fmt.Errorf("retries: %d is negative", c.Retries)
	}
	if c.MaxRetryWait <= 0 {
		return fmt.Errorf("max_retry_wait: %s, want a positive duration", time.Duration(c.MaxRetryWait))
	}
	if c.MaxReplyBytes <= 0 {
		return fmt.Errorf("max_reply_bytes: %d, want a positive number of bytes", c.MaxReplyBytes)
	}
	return nil
}

// checkBaseURL accepts "" (the default server) or an absolute http(s) URL
// with a host.
func checkBaseURL(s string) error {
	if s == "" {
		return nil
	}
	const want = "want an http or https URL like https://api.openai.com/v1"
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("base_url: %q is not a URL; %s", SanitizeServerText(s), want)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("base_url: %q has no http or https scheme; %s", u.Redacted(), want)
	}
	if u.Host == "" || strings.HasPrefix(u.Host, ":") {
		return fmt.Errorf("base_url: %q has no host; %s", u.Redacted(), want)
	}
	return nil
}

// Secret is an API key. It formats as "[redacted]" with every fmt verb and
// refuses text marshalling, so it cannot leak through logs or exports.
type Secret string

func (Secret) String() string   { return "[redacted]" }
func (Secret) GoString() string { return `"[redacted]"` }

// MarshalText refuses: a key is never written anywhere.
func (Secret) MarshalText() ([]byte, error) {
	return nil, fmt.Errorf("judge: an API key is never serialised")
}

// UnmarshalText reads a key from a config file.
func (s *Secret) UnmarshalText(b []byte) error { *s = Secret(b); return nil }

// Duration is a time.Duration written as "30s" in JSON and TOML.
type Duration time.Duration

func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("%q is not a duration like 30s or 2m", b)
	}
	*d = Duration(v)
	return nil
}
