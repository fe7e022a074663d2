package openai

import (
	"strconv"

	goopenai "github.com/sashabaranov/go-openai"
)

// The reply fast path: a chat-completion reply of the usual shape is
// decoded by a small scanner rather than by encoding/json's reflection
// (with go-openai's ChatCompletionMessage.UnmarshalJSON, which decodes
// each message twice over) and json.Valid before it: 9% of the engine's
// CPU per request at concurrency 128 (docs/performance.md).
//
// fastReply fills a goopenai.ChatCompletionResponse exactly as
// json.Unmarshal does, or reports that it did not handle the reply, and
// the caller decodes it with json.Unmarshal. It handles a reply only when
// it is sure of encoding/json's answer, and is strict JSON on its own (it
// never takes text that json.Unmarshal refuses: TestFastReplyMatchesJSON,
// FuzzFastReply):
//
//   - the reply is one JSON object, and every field go-openai's types
//     know is spelled exactly as its tag (a key that matches a field only
//     case-insensitively, or holds an escape or a non-ASCII byte, is not
//     handled), at most once per object;
//   - a key no field of its object matches is skipped, as encoding/json
//     skips it (after checking the value's syntax);
//   - strings: any escape but a lone UTF-16 surrogate, and valid UTF-8
//     (encoding/json writes U+FFFD for the others: not handled);
//   - integers: an integer literal in the field's range (no fraction or
//     exponent: encoding/json refuses those for an int); floats: any JSON
//     number strconv.ParseFloat reads (as encoding/json does);
//   - null where encoding/json leaves the zero value (strings, numbers,
//     pointers and slices); a null message or usage object is not handled;
//   - message fields: role, content, refusal, name, reasoning_content,
//     tool_call_id, a null function_call, tool_calls null or []; choices'
//     content_filter_results and a non-empty prompt_filter_results are not
//     handled; logprobs with their bytes as arrays of 0–255.
//
// Strings are substrings of one copy of the reply, so that the reply's
// buffer can be reused once it is decoded.

// fastReply decodes data into a ChatCompletionResponse as json.Unmarshal
// would, or returns false.
func fastReply(data []byte) (goopenai.ChatCompletionResponse, bool) {
	var r goopenai.ChatCompletionResponse
	d := replyDec{s: string(data)}
	d.ws()
	if !d.response(&r) {
		return goopenai.ChatCompletionResponse{}, false
	}
	d.ws()
	if d.i != len(d.s) {
		return goopenai.ChatCompletionResponse{}, false
	}
	return r, true
}

// The JSON names of each type's fields, all of them (a key that matches
// one only case-insensitively is left to encoding/json), in the order of
// the field numbers the decoders below switch on.
var (
	responseFields = []string{"id", "object", "created", "model", "choices", "usage",
		"system_fingerprint", "prompt_filter_results", "service_tier"}
	choiceFields = []string{"index", "message", "finish_reason", "logprobs", "content_filter_results"}
	// ChatCompletionMessage.UnmarshalJSON's first struct: MultiContent has
	// no tag.
	messageFields = []string{"role", "content", "refusal", "MultiContent", "name",
		"reasoning_content", "function_call", "tool_calls", "tool_call_id"}
	usageFields = []string{"prompt_tokens", "completion_tokens", "total_tokens",
		"prompt_tokens_details", "completion_tokens_details"}
	promptDetailFields     = []string{"audio_tokens", "cached_tokens"}
	completionDetailFields = []string{"audio_tokens", "reasoning_tokens",
		"accepted_prediction_tokens", "rejected_prediction_tokens"}
	logProbsFields = []string{"content"}
	logProbFields  = []string{"token", "logprob", "bytes", "top_logprobs"}
)

func (d *replyDec) response(r *goopenai.ChatCompletionResponse) bool {
	return d.object(responseFields, func(f int) bool {
		switch f {
		case 0:
			return d.str(&r.ID)
		case 1:
			return d.str(&r.Object)
		case 2:
			return d.int64(&r.Created)
		case 3:
			return d.str(&r.Model)
		case 4:
			return d.choices(&r.Choices)
		case 5:
			return d.usage(&r.Usage)
		case 6:
			return d.str(&r.SystemFingerprint)
		case 7:
			// null, or an empty list (a non-nil empty slice, as encoding/json).
			if d.null() {
				return true
			}
			_, ok := d.array(func(int) bool { return false })
			r.PromptFilterResults = []goopenai.PromptFilterResult{}
			return ok
		case 8:
			var s string
			ok := d.str(&s)
			r.ServiceTier = goopenai.ServiceTier(s)
			return ok
		}
		return false
	})
}

func (d *replyDec) choices(cs *[]goopenai.ChatCompletionChoice) bool {
	if d.null() {
		return true
	}
	l := []goopenai.ChatCompletionChoice{}
	_, ok := d.array(func(k int) bool {
		l = append(l, goopenai.ChatCompletionChoice{})
		return d.choice(&l[k])
	})
	*cs = l
	return ok
}

func (d *replyDec) choice(c *goopenai.ChatCompletionChoice) bool {
	return d.object(choiceFields, func(f int) bool {
		switch f {
		case 0:
			return d.int(&c.Index)
		case 1:
			return d.message(&c.Message)
		case 2:
			var s string
			ok := d.str(&s)
			c.FinishReason = goopenai.FinishReason(s)
			return ok
		case 3:
			if d.null() {
				return true
			}
			c.LogProbs = &goopenai.LogProbs{}
			return d.logProbs(c.LogProbs)
		}
		return false // content_filter_results
	})
}

func (d *replyDec) message(m *goopenai.ChatCompletionMessage) bool {
	return d.object(messageFields, func(f int) bool {
		switch f {
		case 0:
			return d.str(&m.Role)
		case 1:
			return d.str(&m.Content)
		case 2:
			return d.str(&m.Refusal)
		case 4:
			return d.str(&m.Name)
		case 5:
			return d.str(&m.ReasoningContent)
		case 6:
			return d.null() // function_call
		case 7:
			if d.null() {
				return true
			}
			n, ok := d.array(func(int) bool { return false })
			if ok && n == 0 {
				m.ToolCalls = []goopenai.ToolCall{}
			}
			return ok
		case 8:
			return d.str(&m.ToolCallID)
		}
		return false // MultiContent
	})
}

func (d *replyDec) usage(u *goopenai.Usage) bool {
	return d.object(usageFields, func(f int) bool {
		switch f {
		case 0:
			return d.int(&u.PromptTokens)
		case 1:
			return d.int(&u.CompletionTokens)
		case 2:
			return d.int(&u.TotalTokens)
		case 3:
			if d.null() {
				return true
			}
			p := &goopenai.PromptTokensDetails{}
			u.PromptTokensDetails = p
			return d.object(promptDetailFields, func(f int) bool {
				if f == 0 {
					return d.int(&p.AudioTokens)
				}
				return d.int(&p.CachedTokens)
			})
		case 4:
			if d.null() {
				return true
			}
			c := &goopenai.CompletionTokensDetails{}
			u.CompletionTokensDetails = c
			return d.object(completionDetailFields, func(f int) bool {
				switch f {
				case 0:
					return d.int(&c.AudioTokens)
				case 1:
					return d.int(&c.ReasoningTokens)
				case 2:
					return d.int(&c.AcceptedPredictionTokens)
				}
				return d.int(&c.RejectedPredictionTokens)
			})
		}
		return false
	})
}

func (d *replyDec) logProbs(l *goopenai.LogProbs) bool {
	return d.object(logProbsFields, func(int) bool {
		if d.null() {
			return true
		}
		c := []goopenai.LogProb{}
		_, ok := d.array(func(k int) bool {
			c = append(c, goopenai.LogProb{})
			p := &c[k]
			return d.object(logProbFields, func(f int) bool {
				switch f {
				case 0:
					return d.str(&p.Token)
				case 1:
					return d.float(&p.LogProb)
				case 2:
					return d.bytes(&p.Bytes)
				}
				return d.topLogProbs(&p.TopLogProbs)
			})
		})
		l.Content = c
		return ok
	})
}

func (d *replyDec) topLogProbs(ts *[]goopenai.TopLogProbs) bool {
	if d.null() {
		return true
	}
	l := []goopenai.TopLogProbs{}
	_, ok := d.array(func(k int) bool {
		l = append(l, goopenai.TopLogProbs{})
		t := &l[k]
		return d.object(logProbFields[:3], func(f int) bool {
			switch f {
			case 0:
				return d.str(&t.Token)
			case 1:
				return d.float(&t.LogProb)
			}
			return d.bytes(&t.Bytes)
		})
	})
	*ts = l
	return ok
}

// bytes reads a []byte given as an array of 0–255 (encoding/json decodes
// a string as base64: not handled).
func (d *replyDec) bytes(b *[]byte) bool {
	if d.null() {
		return true
	}
	out := []byte{}
	_, ok := d.array(func(int) bool {
		j := d.i
		for j < len(d.s) && d.s[j] >= '0' && d.s[j] <= '9' {
			j++
		}
		if j == d.i || j-d.i > 3 || (d.s[d.i] == '0' && j-d.i > 1) || (j < len(d.s) && numberCont(d.s[j])) {
			return false
		}
		v, _ := strconv.Atoi(d.s[d.i:j])
		if v > 255 {
			return false
		}
		out = append(out, byte(v))
		d.i = j
		return true
	})
	if ok {
		*b = out
	}
	return ok
}
