package openai

import (
	"fmt"
	"strings"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
)

// Reply is the first choice of a chat completion: what a sample reads.
// A batch output line carries one (judge/engine's ImportBatch).
type Reply struct {
	Content      string
	Refusal      string // the message's refusal, when the model declined
	FinishReason string
	Logprobs     []judge.TokenLogprob
}

// ReadReply reads a reply to req as a Client for cfg reads a live one:
// a refusal or content filter is KindRefusal; otherwise the score (bank
// requests) or the ratings (rubric requests: a SAJA reply's items, a
// G-Eval rating or its logprob mean) in cfg's mode. The sample has no
// token counts, latency or attempts; the caller fills them.
func ReadReply(cfg judge.Config, req banks.Request, r Reply) judge.Sample {
	var s judge.Sample
	key := string(cfg.APIKey)
	readReply(cfg.Mode, func(t string) string { return redactKey(key, t) }, &s, req, r)
	return s
}

// readReply fills s from a reply: the text (redacted: a reply is stored,
// a key echoed into it must not be), the logprobs, and the score or the
// error.
func readReply(mode judge.Mode, redact func(string) string, s *judge.Sample, req banks.Request, r Reply) {
	s.Raw = redact(r.Content)
	s.Logprobs = r.Logprobs
	if r.Refusal != "" || goopenai.FinishReason(r.FinishReason) == goopenai.FinishReasonContentFilter {
		msg := r.Refusal
		if msg == "" {
			msg = "content filter"
		}
		s.Err = &judge.Error{Kind: judge.KindRefusal, Msg: clipMsg(redact(judge.SanitizeServerText(msg)))}
		return
	}
	read(mode, s, req, goopenai.FinishReason(r.FinishReason))
	if s.Err != nil {
		s.Err.Msg = redact(judge.SanitizeServerText(s.Err.Msg))
	}
}

// read parses the reply of a sample into its score or items.
func read(mode judge.Mode, s *judge.Sample, req banks.Request, finish goopenai.FinishReason) {
	truncated := func(e *judge.Error) *judge.Error {
		if finish == goopenai.FinishReasonLength && e.Kind == judge.KindUnparseable {
			e.Msg += " (reply cut by max_tokens)"
		}
		return e
	}
	if req.Rubric != nil {
		readRubric(mode, s, req, truncated)
		return
	}
	if mode == judge.ModeExpected {
		if len(s.Logprobs) == 0 {
			s.Err = &judge.Error{Kind: judge.KindNoLogprobs, Msg: "the server returned no logprobs; it was not scored another way"}
			return
		}
		if len(req.BatchIDs) > 0 {
			s.Items = expectedItems(s.Logprobs, judge.BatchKeys(req), req.BatchIDs, req.Scale)
			return
		}
		ex, err := judge.ReadExpected(s.Logprobs, req.Scale)
		if err != nil {
			s.Err = truncated(err.(*judge.Error))
			return
		}
		s.Score, s.HasScore, s.ProbMass, s.Approx = ex.Score, true, ex.Mass, ex.Approx
		return
	}
	if len(req.BatchIDs) > 0 {
		s.Items = judge.ParseBatch(s.Raw, judge.BatchKeys(req), req.BatchIDs, req.Scale)
		return
	}
	v, err := judge.ParseScore(s.Raw, req.Scale)
	if err != nil {
		s.Err = truncated(err.(*judge.Error))
		return
	}
	s.Score, s.HasScore = float64(v), true
}

// readRubric parses a rubric reply (docs/rubrics.md). SAJA: the JSON
// object's ratings, one item per criterion (missing cells carry their
// error; a reply with no object of ratings fails as a whole), integers in
// either mode. G-Eval: in expected mode the weighted mean over the valid
// ratings at the rating's token (ReadRatingLogprobs), else the sampled
// rating (ParseRating), leading or after the criterion's label.
func readRubric(mode judge.Mode, s *judge.Sample, req banks.Request, truncated func(*judge.Error) *judge.Error) {
	rc := req.Rubric
	if rc.Kind == banks.RubricSAJA {
		items, err := judge.ParseSAJA(s.Raw, rc.Criteria)
		s.Items = items
		if err != nil {
			s.Err = truncated(err.(*judge.Error))
		}
		return
	}
	cr := rc.Criteria[0]
	if mode == judge.ModeExpected {
		if len(s.Logprobs) == 0 {
			s.Err = &judge.Error{Kind: judge.KindNoLogprobs, Msg: "the server returned no logprobs; it was not scored another way"}
			return
		}
		ex, err := judge.ReadRatingLogprobs(s.Logprobs, cr.Label, cr.Scale)
		if err != nil {
			s.Err = truncated(err.(*judge.Error))
			return
		}
		s.Score, s.HasScore, s.ProbMass, s.Approx = ex.Score, true, ex.Mass, ex.Approx
		return
	}
	v, err := judge.ParseRating(s.Raw, cr.Label, cr.Scale)
	if err != nil {
		s.Err = truncated(err.(*judge.Error))
		return
	}
	s.Score, s.HasScore = v, true
}

func expectedItems(toks []judge.TokenLogprob, keys, ids []string, sc banks.Scale) []judge.Item {
	var b strings.Builder
	for _, t := range toks {
		b.WriteString(t.Token)
	}
	locs := judge.LocateBatch(b.String(), keys)
	items := make([]judge.Item, len(ids))
	for i, l := range locs {
		items[i].ID = ids[i]
		if !l.Found {
			items[i].Err = &judge.Error{Kind: judge.KindUnparseable, Msg: fmt.Sprintf("no score for candidate %q", ids[i])}
			continue
		}
		ex, err := judge.ExpectedAt(toks, l.Span.Start, sc)
		if err != nil {
			items[i].Err = err.(*judge.Error)
			continue
		}
		items[i].Score, items[i].ProbMass, items[i].HasScore = ex.Score, ex.Mass, true
	}
	return items
}

func convertLogprobs(lp *goopenai.LogProbs) []judge.TokenLogprob {
	out := make([]judge.TokenLogprob, len(lp.Content))
	for i, t := range lp.Content {
		out[i] = judge.TokenLogprob{Token: t.Token, Logprob: t.LogProb}
		if len(t.TopLogProbs) > 0 {
			out[i].Top = make([]judge.TopLogprob, len(t.TopLogProbs))
			for j, a := range t.TopLogProbs {
				out[i].Top[j] = judge.TopLogprob{Token: a.Token, Logprob: a.LogProb}
			}
		}
	}
	return out
}
