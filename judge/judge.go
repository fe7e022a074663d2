// Package judge owns the step that turns one rendered request
// (banks.Request) into one score: the Judge interface every backend
// implements, its Result and classified Error, the backend Config (stored
// without the API key), the strict score parser (only the requested JSON form or a bare number), the logprob reader that
// turns top_logprobs into an expected score, and batched pointwise scoring
// over cyclic presentation orders (paper §B.6).
//
// Backends live in sub-packages: judge/openai (any OpenAI-compatible
// server, with its own retry layer) and judge/offline (a deterministic
// simulator, the embedded default). judge/backend builds either from a
// Config.
package judge

import (
	"context"
	"time"

	"github.com/prism-eval/prism/banks"
)

// Judge scores one rendered request. Implementations are safe for
// concurrent use.
//
// Score returns the Result and, when the request got no score, a non-nil
// error that is always a *Error (use KindOf). The Result is filled as far
// as the call got (raw reply, token counts, latency) even on error, so that
// a caller can record what happened.
type Judge interface {
	Name() string // e.g. "offline (simulator)", "openai:gpt-4o-mini"
	Score(ctx context.Context, req banks.Request) (Result, error)
}

// Mode is how a score is elicited.
type Mode string

const (
	// ModeInteger asks for {"score": n} and parses the integer.
	ModeInteger Mode = "integer"
	// ModeExpected reads top_logprobs at the score token and returns the
	// probability-weighted mean over the valid score values.
	ModeExpected Mode = "expected"
)

// Result is the outcome of one Score call: the mean over its repeats.
type Result struct {
	// Score is the mean of the scored samples; valid only when HasScore.
	Score    float64
	HasScore bool
	// Samples holds every repeat, scored or not, in repeat order.
	Samples []Sample
	// Items holds, for a batched request (Request.BatchIDs non-empty), one
	// entry per candidate in presentation order, averaged over samples.
	// Score and HasScore are then unused.
	Items []Item
	// Err says why there is no score (nil when HasScore or when every item
	// of a batch scored).
	Err *Error

	// Token counts and latency summed over the samples.
	PromptTokens       int
	CachedPromptTokens int
	CompletionTokens   int
	Latency            time.Duration
}

// Sample is one repeat of a request: one call to the backend.
type Sample struct {
	Score    float64
	HasScore bool
	// ProbMass is, in ModeExpected, the probability mass that fell on valid
	// score tokens before renormalising (1 for the offline judge's exact
	// distribution; 0 in ModeInteger).
	ProbMass float64
	// Approx marks an expected score whose number spans several tokens,
	// where the continuations of off-path first tokens are not observed
	// (see ExpectedScore).
	Approx   bool
	Raw      string         // the reply text
	Logprobs []TokenLogprob // per reply token, when asked for
	Items    []Item         // batched requests: per candidate, presentation order

	PromptTokens       int
	CachedPromptTokens int
	CompletionTokens   int
	// UsageNote says which token counts the server reported were
	// implausible and replaced by estimates (CheckUsage); "" when the
	// server's counts are the ones above.
	UsageNote string
	Latency   time.Duration
	Attempts  int // HTTP attempts including retries (1 for offline)
	Err       *Error
}

// Item is one candidate's score inside a batched request.
type Item struct {
	ID       string
	Score    float64
	HasScore bool
	ProbMass float64
	Err      *Error
}

// TokenLogprob is one generated token with its alternatives.
type TokenLogprob struct {
	Token   string       `json:"token"`
	Logprob float64      `json:"logprob"`
	Top     []TopLogprob `json:"top,omitempty"`
}

// TopLogprob is one alternative at a token position.
type TopLogprob struct {
	Token   string  `json:"token"`
	Logprob float64 `json:"logprob"`
}

// meanSamples fills r.Score, r.HasScore, r.Err and the totals from
// r.Samples: the score is the mean of the scored samples; with none scored,
// Err is the last sample's error.
func (r *Result) meanSamples() {
	var sum float64
	n := 0
	r.PromptTokens, r.CachedPromptTokens, r.CompletionTokens, r.Latency = 0, 0, 0, 0
	for _, s := range r.Samples {
		r.PromptTokens += s.PromptTokens
		r.CachedPromptTokens += s.CachedPromptTokens
		r.CompletionTokens += s.CompletionTokens
		r.Latency += s.Latency
		if s.HasScore {
			sum += s.Score
			n++
		} else if s.Err != nil {
			r.Err = s.Err
		}
	}
	if n > 0 {
		r.Score, r.HasScore, r.Err = sum/float64(n), true, nil
	}
}

// Finish computes a Result's summary from its Samples and returns the
// error a Judge's Score should return: nil when the request scored (for a
// batch: when every item scored in at least one sample), else r.Err.
// Backends call it after filling Samples.
func (r *Result) Finish(batchIDs []string) error {
	r.Err = nil
	r.meanSamples()
	if len(batchIDs) == 0 {
		if r.HasScore {
			return nil
		}
		if r.Err == nil {
			r.Err = &Error{Kind: KindUnparseable, Msg: "no sample returned a score"}
		}
		return r.Err
	}
	r.HasScore, r.Score = false, 0
	r.Items = make([]Item, len(batchIDs))
	var firstErr *Error
	for i, id := range batchIDs {
		it := Item{ID: id}
		var sum, mass float64
		n := 0
		for _, s := range r.Samples {
			if i >= len(s.Items) {
				continue
			}
			si := s.Items[i]
			if si.HasScore {
				sum += si.Score
				mass += si.ProbMass
				n++
			} else if si.Err != nil {
				it.Err = si.Err
			}
		}
		if n > 0 {
			it.Score, it.ProbMass, it.HasScore, it.Err = sum/float64(n), mass/float64(n), true, nil
		} else {
			if it.Err == nil {
				it.Err = r.Err
			}
			if it.Err == nil {
				it.Err = &Error{Kind: KindUnparseable, Msg: "no score for candidate " + id}
			}
			if firstErr == nil {
				firstErr = it.Err
			}
		}
		r.Items[i] = it
	}
	if firstErr != nil {
		r.Err = firstErr
		return firstErr
	}
	r.Err = nil
	return nil
}
