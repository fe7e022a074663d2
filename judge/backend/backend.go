// Package backend builds a judge.Judge from a judge.Config: the offline
// simulator, the OpenAI-compatible client or Anthropic's Messages API. It exists so that callers
// need not import every backend themselves.
package backend

import (
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/judge/anthropic"
	"github.com/prism-eval/prism/judge/offline"
	"github.com/prism-eval/prism/judge/openai"
)

// New returns the judge cfg selects. opts set the retry layer of the
// server backends (tests and the acquisition engine use them to observe
// retries and pace calls).
func New(cfg judge.Config, opts ...openai.Option) (judge.Judge, error) {
	switch cfg.Backend {
	case judge.BackendOffline, "":
		return offline.New(cfg)
	case judge.BackendOpenAI:
		return openai.New(cfg, opts...)
	case judge.BackendAnthropic:
		return anthropic.New(cfg, opts...)
	}
	return nil, &judge.Error{Kind: judge.KindConfig, Msg: "unknown backend " + cfg.Backend}
}
