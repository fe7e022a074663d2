package engine

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"regexp"

	"github.com/BurntSushi/toml"

	"github.com/prism-eval/prism/model"
)

// Price is what one model costs, in US dollars per million tokens.
type Price struct {
	Input       float64 `toml:"input"`        // uncached prompt tokens
	CachedInput float64 `toml:"cached_input"` // prompt tokens served from the provider's cache
	Output      float64 `toml:"output"`       // completion tokens
}

// Prices maps a model name to its price. A model that is absent is
// unpriced: its cost is reported as unknown, never as zero.
type Prices map[string]Price

// DefaultPrices are list prices (USD per 1M tokens) of a few common models
// as published on OpenAI's pricing page in 2024–2025; pass --prices to use
// current or negotiated ones. The offline simulator costs nothing.
func DefaultPrices() Prices {
	return Prices{
		"offline":     {},
		"gpt-4o-mini": {Input: 0.15, CachedInput: 0.075, Output: 0.60},
		"gpt-4o":      {Input: 2.50, CachedInput: 1.25, Output: 10.00},
	}
}

// Cost is the price of the given token counts:
//
//	(prompt − cached)·Input + cached·CachedInput + completion·Output, per 1e6
//
// ok is false when model has no price.
func (p Prices) Cost(model string, prompt, cached, completion int64) (cost float64, ok bool) {
	pr, ok := p[model]
	if !ok {
		return 0, false
	}
	return (float64(prompt-cached)*pr.Input + float64(cached)*pr.CachedInput + float64(completion)*pr.Output) / 1e6, true
}

// ParsePrices reads a price table in TOML, one table per model:
//
//	["gpt-4o-mini"]
//	input = 0.15
//	cached_input = 0.075
//	output = 0.60
//
// Prices are USD per million tokens, finite and not negative (TOML's inf
// and nan are refused: a cost of +Inf is no estimate); unknown keys
// are errors naming file, line and field. The result is merged over
// DefaultPrices.
func ParsePrices(data []byte, file string) (Prices, error) {
	if err := model.CheckTOMLDepth(data, file); err != nil {
		return nil, err
	}
	var raw map[string]Price
	md, err := toml.Decode(string(data), &raw)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s:%d:%d: %s", file, pe.Position.Line, max(1, pe.Position.Col), pe.Message)
		}
		// Type mismatches read "toml: line N (last key "K"): …".
		if m := reTOMLLine.FindStringSubmatch(err.Error()); m != nil {
			return nil, fmt.Errorf("%s:%s:1: %s: %s", file, m[1], m[2], m[3]) // the decoder gives no column
		}
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		k := und[0]
		return nil, fmt.Errorf("%s: %s: unknown key (want input, cached_input, output)", keyAt(file, data, k[0], k[len(k)-1]), k.String())
	}
	out := DefaultPrices()
	for name, p := range raw {
		for _, f := range []struct {
			name string
			v    float64
		}{{"input", p.Input}, {"cached_input", p.CachedInput}, {"output", p.Output}} {
			if !(f.v >= 0 && f.v <= math.MaxFloat64) { // NaN fails both
				return nil, fmt.Errorf("%s: %s.%s: %g is not a price (USD per 1M tokens, finite and ≥ 0)", keyAt(file, data, name, f.name), name, f.name, f.v)
			}
		}
		out[name] = p
	}
	return out, nil
}

var reTOMLLine = regexp.MustCompile(`line (\d+) \(last key "([^"]*)"\): (.*)`)

// keyLine is the 1-based line where key first appears in data (0 when not
// found); TOML decoding does not report lines of valid keys.
func keyLine(data []byte, table, key string) (line, col int) {
	from := 0
	if table != key { // a key inside [table]: look after the table's name
		if i := bytes.Index(data, []byte(table)); i >= 0 {
			from = i + len(table)
		}
	}
	line, start := 1, 0
	for i := 0; i+len(key) <= len(data); i++ {
		if i >= from && string(data[i:i+len(key)]) == key {
			return line, i - start + 1
		}
		if data[i] == '\n' {
			line, start = line+1, i+1
		}
	}
	return 0, 0
}

// keyAt is "file:line:col" of key in the table named table (the table's
// own name when key == table), or "file" when it is not in the text.
func keyAt(file string, data []byte, table, key string) string {
	if l, c := keyLine(data, table, key); l > 0 {
		return fmt.Sprintf("%s:%d:%d", file, l, c)
	}
	return file
}
