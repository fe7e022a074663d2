package judge

import (
	"fmt"
	"strings"

	"github.com/prism-eval/prism/banks"
)

// Usage is the token counts a server reports for one call.
type Usage struct {
	Prompt, CachedPrompt, Completion int
}

// Bounds of a plausible usage report. A prompt token stands for at least
// one byte of what was sent (byte-level tokenizers; others have fewer
// tokens still), and a chat template or a server's own system text adds
// a few hundred tokens at most: PromptSlack leaves room for those. No
// model writes MaxCompletionTokens tokens in one reply; reasoning models
// may count hidden tokens beyond max_tokens, so that is no bound.
const (
	PromptSlack         = 4096
	MaxCompletionTokens = 1 << 20
)

// EstimatePromptTokens estimates the prompt tokens of messages as
// Σ (⌈len(content)/4⌉ + 4) over messages, + 3: the rule of thumb of
// about four characters of English per token, plus the chat format's few
// tokens per message (the planner's estimate, judge/engine).
func EstimatePromptTokens(msgs []banks.Message) int {
	n := 3
	for _, m := range msgs {
		n += (len(m.Content)+3)/4 + 4
	}
	return n
}

// EstimateCompletionTokens estimates the tokens of a reply text by the
// same rule of thumb, ⌈len/4⌉, at least 1.
func EstimateCompletionTokens(reply string) int {
	return max(1, (len(reply)+3)/4)
}

// CheckUsage returns the usage u a server reported for a call whose
// request held promptBytes bytes (messages and schema), with every
// implausible count replaced by est's: a negative count, a prompt count
// above promptBytes + PromptSlack, a completion count above
// MaxCompletionTokens, cached prompt tokens negative or above the
// prompt's (then 0; plausible ones are kept up to the prompt count kept). note says what was replaced ("" when nothing was):
// a count the server got wrong must not make a cost negative or overflow
// a sum, and is never silently kept.
func CheckUsage(u Usage, promptBytes int, est Usage) (Usage, string) {
	var bad []string
	out := u
	if u.Prompt < 0 || u.Prompt > promptBytes+PromptSlack {
		bad = append(bad, fmt.Sprintf("prompt_tokens %d (a %d-byte prompt)", u.Prompt, promptBytes))
		out.Prompt = est.Prompt
	}
	if u.Completion < 0 || u.Completion > MaxCompletionTokens {
		bad = append(bad, fmt.Sprintf("completion_tokens %d", u.Completion))
		out.Completion = est.Completion
	}
	if u.CachedPrompt < 0 || u.CachedPrompt > max(u.Prompt, 0) {
		bad = append(bad, fmt.Sprintf("cached_tokens %d", u.CachedPrompt))
		out.CachedPrompt = 0
	} else {
		out.CachedPrompt = min(u.CachedPrompt, out.Prompt)
	}
	if len(bad) == 0 {
		return u, ""
	}
	return out, fmt.Sprintf("implausible usage from the server (%s); counted as the estimate: %d prompt (%d cached), %d completion tokens",
		strings.Join(bad, ", "), out.Prompt, out.CachedPrompt, out.Completion)
}
