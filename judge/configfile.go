package judge

import (
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/prism-eval/prism/model"
)

// LoadConfig reads a TOML judge config over Defaults(). Errors name the
// file, the line and the field. Unknown keys are errors (a typo must not
// silently fall back to a default).
func LoadConfig(path string) (Config, error) {
	c := Defaults()
	data, err := model.ReadFileLimited(path, 1<<20, "a judge config (TOML)")
	if err != nil {
		return c, fmt.Errorf("judge config: %w", err)
	}
	if err := model.CheckTOMLDepth(data, path); err != nil {
		return c, err
	}
	md, err := toml.Decode(string(data), &c)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return c, fmt.Errorf("%s:%d:%d: %s", path, pe.Position.Line, max(1, pe.Position.Col), pe.Message)
		}
		return c, fmt.Errorf("%s: %w", path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		k := und[0].String()
		return c, fmt.Errorf("%s: %s: unknown field", at(path, string(data), k), k)
	}
	if err := c.Validate(); err != nil {
		field, _, _ := strings.Cut(err.Error(), ":")
		return c, fmt.Errorf("%s: %w", at(path, string(data), field), err)
	}
	return c, nil
}

// at is "path:line:col" where key is assigned, or "path" when the key is
// absent (a required field left out).
func at(path, data, key string) string {
	if l, c := keyLine(data, key); l > 0 {
		return fmt.Sprintf("%s:%d:%d", path, l, c)
	}
	return path
}

// keyLine returns the 1-based line and column where key is assigned, or 0, 0.
func keyLine(data, key string) (line, col int) {
	for i, l := range strings.Split(data, "\n") {
		t := strings.TrimLeft(l, " \t")
		if rest, ok := strings.CutPrefix(t, key); ok {
			if r := strings.TrimSpace(rest); strings.HasPrefix(r, "=") {
				return i + 1, len(l) - len(t) + 1
			}
		}
	}
	return 0, 0
}

// ApplyEnv fills what the environment provides and c leaves empty: the key
// from c.APIKeyEnv or OPENAI_API_KEY (ANTHROPIC_API_KEY for the anthropic
// backend), the base URL from OPENAI_BASE_URL (ANTHROPIC_BASE_URL).
// getenv is os.Getenv outside tests.
func (c *Config) ApplyEnv(getenv func(string) string) {
	if c.APIKey == "" {
		name := c.APIKeyEnv
		if name == "" {
			name = "OPENAI_API_KEY"
			if c.Backend == BackendAnthropic {
				name = "ANTHROPIC_API_KEY"
			}
		}
		c.APIKey = Secret(getenv(name))
	}
	if c.BaseURL == "" {
		env := "OPENAI_BASE_URL"
		if c.Backend == BackendAnthropic {
			env = "ANTHROPIC_BASE_URL"
		}
		c.BaseURL = getenv(env)
	}
}

// Flags are the command-line flags that select a judge. Precedence:
// explicit flags, then the --judge-config file, then the environment, then
// Defaults().
type Flags struct {
	fs         *flag.FlagSet
	file       string
	c          Config
	temp, topP float64
	seed       int
	timeout    time.Duration
	maxWait    time.Duration
	mode       string
}

// AddFlags registers the judge flags on fs.
func AddFlags(fs *flag.FlagSet) *Flags {
	f := &Flags{fs: fs, c: Defaults()}
	d := f.c
	fs.StringVar(&f.file, "judge-config", "", "TOML file with the judge `config`")
	fs.StringVar(&f.c.Backend, "backend", d.Backend, "judge backend: offline (simulator), openai or anthropic")
	fs.StringVar(&f.c.Model, "model", "", "model name for the openai or anthropic backend")
	fs.StringVar(&f.c.BaseURL, "base-url", "", "OpenAI-compatible base URL (default $OPENAI_BASE_URL or api.openai.com/v1)")
	fs.StringVar(&f.mode, "mode", string(d.Mode), "score mode: integer or expected")
	fs.IntVar(&f.c.Repeats, "repeats", d.Repeats, "samples per request, averaged")
	fs.Float64Var(&f.temp, "temperature", 0, "sampling temperature (server default when unset)")
	fs.Float64Var(&f.topP, "top-p", 0, "nucleus sampling top_p (server default when unset)")
	fs.IntVar(&f.c.MaxTokens, "max-tokens", 0, "max tokens of the reply (server default when 0)")
	fs.IntVar(&f.seed, "seed", 0, "sampling seed (repeat r sends seed+r)")
	fs.DurationVar(&f.timeout, "timeout", time.Duration(d.Timeout), "timeout of one HTTP attempt")
	fs.IntVar(&f.c.Retries, "retries", d.Retries, "retries on 429, 5xx, timeouts and broken connections")
	fs.DurationVar(&f.maxWait, "max-retry-wait", time.Duration(d.MaxRetryWait), "longest wait between two attempts; a longer server Retry-After is cut to it")
	fs.Int64Var(&f.c.MaxReplyBytes, "max-reply-bytes", d.MaxReplyBytes, "largest reply body read; a longer reply fails that request (too_large)")
	fs.StringVar(&f.c.ResponseFormat, "response-format", d.ResponseFormat, "auto, json_schema, json_object or none")
	fs.StringVar(&f.c.APIKeyEnv, "api-key-env", "", "environment variable holding the API key (default OPENAI_API_KEY)")
	return f
}

// Config resolves the flags (after fs.Parse) into a validated Config.
func (f *Flags) Config(getenv func(string) string) (Config, error) {
	c := Defaults()
	if f.file != "" {
		var err error
		if c, err = LoadConfig(f.file); err != nil {
			return c, err
		}
	}
	c = f.Overlay(c)
	c.ApplyEnv(getenv)
	if err := c.Validate(); err != nil {
		return c, fmt.Errorf("judge flags: %w", err)
	}
	return c, nil
}

// Overlay returns base with the judge flags given on the command line
// applied over it: the one place a flag maps onto its Config field, for
// Config (over Defaults or the --judge-config file) and for callers that
// start from another configuration (prism score: the calibrator's judge).
func (f *Flags) Overlay(base Config) Config {
	c := base
	f.fs.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "backend":
			c.Backend = f.c.Backend
		case "model":
			c.Model = f.c.Model
		case "base-url":
			c.BaseURL = f.c.BaseURL
		case "mode":
			c.Mode = Mode(f.mode)
		case "repeats":
			c.Repeats = f.c.Repeats
		case "temperature":
			t := f.temp
			c.Temperature = &t
		case "top-p":
			p := f.topP
			c.TopP = &p
		case "max-tokens":
			c.MaxTokens = f.c.MaxTokens
		case "seed":
			s := f.seed
			c.Seed = &s
		case "timeout":
			c.Timeout = Duration(f.timeout)
		case "retries":
			c.Retries = f.c.Retries
		case "max-retry-wait":
			c.MaxRetryWait = Duration(f.maxWait)
		case "max-reply-bytes":
			c.MaxReplyBytes = f.c.MaxReplyBytes
		case "response-format":
			c.ResponseFormat = f.c.ResponseFormat
		case "api-key-env":
			c.APIKeyEnv = f.c.APIKeyEnv
		}
	})
	return c
}
