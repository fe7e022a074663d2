// Package backend builds a judge.Judge from a judge.Config: the offline
// simulator or the OpenAI-compatible client. It exists so that callers
// need not import every backend themselves.
package backend

import (
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/judge/offline"
	"github.com/prism-eval/prism/judge/openai"
)

// New returns the judge cfg selects. opts apply to the OpenAI-compatible
// client only (tests and the acquisition engine use them to observe
// retries).
func New(cfg judge.Config, opts ...openai.Option) (judge.Judge, error) {
	switch cfg.Backend {
	case judge.BackendOffline, "":
		return offline.New(cfg)
	case judge.BackendOpenAI:
		return openai.New(cfg, opts...)
	}
	return nil, &judge.Error{Kind: judge.KindConfig, Msg: "unknown backend " + cfg.Backend}
}
