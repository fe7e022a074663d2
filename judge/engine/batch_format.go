package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/prism-eval/prism/judge"
)

// Batch file formats (docs/engine.md, "prism batch").
const (
	FormatOpenAI    = "openai"    // OpenAI Batch API input JSONL
	FormatVLLM      = "vllm"      // vLLM run-batch: the OpenAI shape, no size limits
	FormatAnthropic = "anthropic" // Anthropic Message Batches requests, one per line
	FormatRay       = "ray"       // rows for Ray Data LLM + vLLM (contrib/ray)
)

// Formats are the batch formats, in the order the usage lists them.
var Formats = []string{FormatOpenAI, FormatAnthropic, FormatVLLM, FormatRay}

// FormatLimits are a format's default caps per file: lines and bytes (0:
// none). OpenAI: "The file can contain up to 50,000 requests, and can be
// up to 200 MB in size" (API reference, Create batch). Anthropic: a
// Message Batch holds "up to 100,000 Message requests or 256 MB"
// (Batch processing guide; the API reference's maxItems 100000). Sizes
// are taken as decimal megabytes, the smaller reading.
func FormatLimits(format string) (lines int, bytes int64) {
	switch format {
	case FormatOpenAI:
		return 50_000, 200_000_000
	case FormatAnthropic:
		return 100_000, 256_000_000
	}
	return 0, 0
}

// AnthropicMaxTokens is the max_tokens of an Anthropic request whose
// judge sets none: the Messages API requires one, and a score reply is a
// few tokens (a rubric's reasoning a few hundred).
const AnthropicMaxTokens = 1024

// ExportOptions choose what ExportBatchFiles writes: the format, one
// shard of the plan's calls, and the caps of one file.
type ExportOptions struct {
	Format string // FormatOpenAI when ""
	// Shard (0…Shards−1) of Shards: a call belongs to the shard its
	// custom_id's key and run hash to, so shards stay disjoint and cover
	// the plan however often the study is planned. Shards ≤ 1: all.
	Shard, Shards int
	// MaxLines and MaxBytes cap one file: 0 takes the format's default
	// (FormatLimits), a negative value none.
	MaxLines int
	MaxBytes int64
	// Held, when set, names calls (by custom_id) not to write: those a
	// batch already submitted carries (prism batch submit), which would
	// be paid for twice.
	Held func(customID string) bool
}

// ExportResult is what ExportBatchFiles wrote: lines in all, and the
// lines of each part in order.
type ExportResult struct {
	Lines int
	Parts []int
	// IDs are the custom_ids (prism's, not Anthropic's short ones) of
	// each part's lines; Held counts the calls left out (ExportOptions.Held).
	IDs  [][]string
	Held int
}

// ParseShard reads "I/N" (1 ≤ I ≤ N) into a 0-based shard and a count.
func ParseShard(s string) (shard, shards int, err error) {
	i, n, ok := strings.Cut(s, "/")
	a, okA := decimal(i)
	b, okB := decimal(n)
	if !ok || !okA || !okB || b < 1 || a < 1 || a > b {
		return 0, 0, fmt.Errorf("--shard %q: want I/N with 1 ≤ I ≤ N (e.g. 1/4)", s)
	}
	return a - 1, b, nil
}

// inShard reports whether the call of key and run is in the options'
// shard.
func (o ExportOptions) inShard(key, run string) bool {
	if o.Shards <= 1 {
		return true
	}
	h := fnv.New64a()
	h.Write([]byte(key))
	h.Write([]byte{':'})
	h.Write([]byte(run))
	return h.Sum64()%uint64(o.Shards) == uint64(o.Shard)
}

// resolve checks the options against the send configuration and fills in
// the format's default caps; the result writes the lines.
func (o *ExportOptions) resolve(cfg judge.Config) (*lineFormat, error) {
	if o.Format == "" {
		o.Format = FormatOpenAI
	}
	lines, bytes := FormatLimits(o.Format)
	switch o.Format {
	case FormatOpenAI, FormatVLLM, FormatRay:
	case FormatAnthropic:
		if cfg.Mode == judge.ModeExpected {
			return nil, errors.New("engine: the anthropic format cannot carry expected mode: Anthropic's Messages API returns no logprobs; use --mode integer")
		}
	default:
		return nil, fmt.Errorf("engine: batch format %q is not one of %s", o.Format, strings.Join(Formats, ", "))
	}
	if o.Shards > 1 && (o.Shard < 0 || o.Shard >= o.Shards) {
		return nil, fmt.Errorf("engine: shard %d of %d", o.Shard+1, o.Shards)
	}
	if o.MaxLines == 0 {
		o.MaxLines = lines
	}
	if o.MaxBytes == 0 {
		o.MaxBytes = bytes
	}
	return &lineFormat{format: o.Format, shortIDs: map[string]string{}}, nil
}

// lineFormat turns a call's custom_id and chat-completions body into a
// line of its format, and keeps the short ids an Anthropic file uses.
type lineFormat struct {
	format   string
	shortIDs map[string]string // short → custom_id
}

func (f *lineFormat) line(id string, body []byte) ([]byte, error) {
	var v any
	switch f.format {
	case FormatOpenAI, FormatVLLM:
		return batchInputLine(id, body)
	case FormatAnthropic:
		params, err := AnthropicParams(body)
		if err != nil {
			return nil, err
		}
		short := AnthropicID(id)
		f.shortIDs[short] = id
		v = AnthropicInput{CustomID: short, Params: params}
	case FormatRay:
		row, err := RayRowOf(id, body)
		if err != nil {
			return nil, err
		}
		v = row
	}
	return marshalLine(v)
}

// batchInputLine is marshalLine of BatchInput{id, "POST", BatchURL,
// body} for a compact body (ChatBody's): the body is copied, not
// compacted again as encoding/json does a json.RawMessage (a third of
// exporting SummEval's 60,800 calls).
func batchInputLine(id string, body []byte) ([]byte, error) {
	b := make([]byte, 0, len(body)+len(id)+len(BatchURL)+64)
	b = append(b, `{"custom_id":`...)
	b, err := appendString(b, id)
	if err != nil {
		return nil, err
	}
	b = append(b, `,"method":"POST","url":`...)
	if b, err = appendString(b, BatchURL); err != nil {
		return nil, err
	}
	b = append(append(append(b, `,"body":`...), body...), "}\n"...)
	return b, nil
}

// appendString appends s as marshalLine writes a string.
func appendString(b []byte, s string) ([]byte, error) {
	q, err := marshalLine(s)
	if err != nil {
		return nil, err
	}
	return append(b, q[:len(q)-1]...), nil // without the encoder's newline
}

// marshalLine is v as one JSON line, HTML characters unescaped.
func marshalLine(v any) ([]byte, error) {
	var sb strings.Builder
	enc := json.NewEncoder(&sb)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return []byte(sb.String()), nil
}

// AnthropicID is the custom_id of an Anthropic batch line for prism's id:
// "p" and 40 hex digits of its SHA-256, which matches Anthropic's
// ^[a-zA-Z0-9_-]{1,64}$ and is the same on every export.
func AnthropicID(id string) string {
	sum := sha256.Sum256([]byte(id))
	return "p" + hex.EncodeToString(sum[:20])
}

// AnthropicInput is one line of an Anthropic Message Batches file: the
// requests array of POST /v1/messages/batches, one element per line.
type AnthropicInput struct {
	CustomID string          `json:"custom_id"`
	Params   json.RawMessage `json:"params"`
}

// chatRequestBody is what the other formats read of a chat-completions
// body (ChatBody, openai.RequestBody).
type chatRequestBody struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	MaxTokens           *int     `json:"max_tokens"`
	MaxCompletionTokens *int     `json:"max_completion_tokens"`
	Temperature         *float64 `json:"temperature"`
	TopP                *float64 `json:"top_p"`
	Seed                *int     `json:"seed"`
	Logprobs            bool     `json:"logprobs"`
	TopLogprobs         *int     `json:"top_logprobs"`
	ResponseFormat      *struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Schema json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	} `json:"response_format"`
}

func readChatBody(body []byte) (chatRequestBody, error) {
	var cb chatRequestBody
	if err := json.Unmarshal(body, &cb); err != nil {
		return cb, fmt.Errorf("not a chat-completions body: %w", err)
	}
	return cb, nil
}

func (cb chatRequestBody) maxTokens() int {
	switch {
	case cb.MaxCompletionTokens != nil:
		return *cb.MaxCompletionTokens
	case cb.MaxTokens != nil:
		return *cb.MaxTokens
	}
	return 0
}

// AnthropicParams is the Messages API body for a chat-completions body:
// model, max_tokens (AnthropicMaxTokens when unset), the system messages
// joined as system, the rest as messages, temperature and top_p. The
// Messages API has no seed, logprobs or response_format: a seed is
// dropped (Anthropic's sampling is not seeded), logprobs are refused, and
// the JSON the prompt asks for is read from the text as in json_object
// mode. top_p 1 (no nucleus cut) is left out, as recent Claude models
// refuse temperature and top_p together.
func AnthropicParams(body []byte) (json.RawMessage, error) {
	cb, err := readChatBody(body)
	if err != nil {
		return nil, err
	}
	if cb.Logprobs {
		return nil, errors.New("asks for logprobs, which Anthropic's Messages API does not return")
	}
	type msg struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	p := struct {
		Model       string   `json:"model"`
		MaxTokens   int      `json:"max_tokens"`
		System      string   `json:"system,omitempty"`
		Messages    []msg    `json:"messages"`
		Temperature *float64 `json:"temperature,omitempty"`
		TopP        *float64 `json:"top_p,omitempty"`
	}{Model: cb.Model, MaxTokens: cb.maxTokens(), Temperature: cb.Temperature, TopP: cb.TopP}
	if p.MaxTokens <= 0 {
		p.MaxTokens = AnthropicMaxTokens
	}
	if p.TopP != nil && *p.TopP >= 1 {
		p.TopP = nil
	}
	var system []string
	for _, m := range cb.Messages {
		switch m.Role {
		case "system", "developer":
			system = append(system, m.Content)
		case "user", "assistant":
			p.Messages = append(p.Messages, msg(m))
		default:
			return nil, fmt.Errorf("message role %q has no Messages API counterpart", m.Role)
		}
	}
	if len(p.Messages) == 0 || p.Messages[0].Role != "user" {
		return nil, errors.New("the Messages API needs a user message first")
	}
	p.System = strings.Join(system, "\n\n")
	return json.Marshal(p)
}

// RayRow is one row of a Ray file: the call's id, the model, the chat
// messages and vLLM's SamplingParams (logprobs is vLLM's count of top
// logprobs per token, set in expected mode); JSONSchema is the schema a
// structured reply must follow, for the recipe's guided decoding.
type RayRow struct {
	ID             string          `json:"id"`
	Model          string          `json:"model"`
	Messages       json.RawMessage `json:"messages"`
	SamplingParams map[string]any  `json:"sampling_params"`
	JSONSchema     json.RawMessage `json:"json_schema,omitempty"`
}

// RayRowOf is the Ray row of a call with a chat-completions body.
func RayRowOf(id string, body []byte) (RayRow, error) {
	cb, err := readChatBody(body)
	if err != nil {
		return RayRow{}, err
	}
	msgs, err := json.Marshal(cb.Messages)
	if err != nil {
		return RayRow{}, err
	}
	sp := map[string]any{}
	if n := cb.maxTokens(); n > 0 {
		sp["max_tokens"] = n
	}
	if cb.Temperature != nil {
		sp["temperature"] = *cb.Temperature
	}
	if cb.TopP != nil {
		sp["top_p"] = *cb.TopP
	}
	if cb.Seed != nil {
		sp["seed"] = *cb.Seed
	}
	if cb.Logprobs {
		k := 1
		if cb.TopLogprobs != nil {
			k = *cb.TopLogprobs
		}
		sp["logprobs"] = k
	}
	row := RayRow{ID: id, Model: cb.Model, Messages: msgs, SamplingParams: sp}
	if rf := cb.ResponseFormat; rf != nil && rf.JSONSchema != nil {
		row.JSONSchema = rf.JSONSchema.Schema
	}
	return row, nil
}
