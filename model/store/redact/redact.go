package redact

import (
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/prism-eval/prism/model"
)

// secretNames are parameter names (lower case, '_' and '-' removed) whose
// values are credentials. Names are matched whole or by suffix so that
// "max_tokens" is kept while "openai_api_key" is not.
var secretNames = []string{"apikey", "key", "token", "accesstoken", "authtoken", "bearertoken",
	"sessiontoken", "refreshtoken", "idtoken", "secret", "clientsecret", "password", "passwd",
	"authorization", "auth", "credential", "credentials", "cookie"}

var secretSuffixes = []string{"apikey", "secret", "password", "accesstoken", "authtoken", "credentials"}

func isSecretName(name string) bool {
	n := strings.ToLower(strings.NewReplacer("_", "", "-", "", " ", "", ".", "").Replace(name))
	for _, s := range secretNames {
		if n == s {
			return true
		}
	}
	for _, s := range secretSuffixes {
		if strings.HasSuffix(n, s) {
			return true
		}
	}
	return false
}

// secretValue matches the shapes of common API credentials: OpenAI-style
// sk-…, Anthropic sk-ant-…, Google AIza…, Hugging Face hf_…, Groq gsk_…,
// xAI xai-…, and any bearer token.
var secretValue = regexp.MustCompile(`(?i)(\b(sk|rk|pk)-[a-z0-9_\-]{16,}|\bAIza[0-9a-z_\-]{30,}|\bhf_[a-z0-9]{20,}|\bgsk_[a-z0-9]{20,}|\bxai-[a-z0-9]{20,}|\bbearer\s+[a-z0-9._~+/=\-]{8,})`)

// secretAssign matches key=value credentials inside free text such as a
// URL in an error message.
var secretAssign = regexp.MustCompile(`(?i)\b(api[_-]?key|access[_-]?token|token|key|secret|password)=[^&\s"']+`)

const redacted = "[redacted]"

// Exact replaces every exact occurrence of secrets in s.
func Exact(s string, secrets []string) string {
	for _, k := range secrets {
		if k != "" {
			s = strings.ReplaceAll(s, k, redacted)
		}
	}
	return s
}

// Text removes credential-shaped substrings from free text (error
// messages) and every exact secret registered with the store.
func Text(s string, secrets ...string) string {
	if s == "" {
		return s // an answer's error: every stored answer passes here
	}
	s = redactValues(Exact(s, secrets))
	return secretAssign.ReplaceAllString(s, "${1}="+redacted)
}

// Reply removes registered secrets and credential-shaped strings (not
// key=value pairs, which a reply may legitimately contain) from a judge's
// reply text.
func Reply(s string, secrets []string) string {
	return redactValues(Exact(s, secrets))
}

// redactValues replaces what secretValue matches in s. The expression
// runs only where mayHoldCredential finds one of its anchors: on a
// 500-byte reply without one it took 94 µs, the writer's largest cost
// per answer for a judge that explains its score (docs/performance.md).
func redactValues(s string) string {
	if !mayHoldCredential(s) {
		return s
	}
	return secretValue.ReplaceAllString(s, redacted)
}

// mayHoldCredential reports whether s holds one of the anchors every
// match of secretValue starts with — sk-, rk-, pk-, AIza, hf_, gsk_,
// xai-, bearer — in any case; false means secretValue cannot match
// (FuzzCredentialPrefilter). (?i) folds letters as Unicode does, and the
// only non-ASCII folds of those letters are ſ (s) and the Kelvin sign K
// (k): a string holding either is left to the expression.
func mayHoldCredential(s string) bool {
	if strings.Contains(s, "\u017f") || strings.Contains(s, "\u212a") {
		return true
	}
	// c|0x20 lowers an ASCII letter, and equals a lower-case letter only
	// when c is that letter in either case.
	at := func(i int, w string) bool {
		if i < 0 || i+len(w) > len(s) {
			return false
		}
		for j := range len(w) {
			if s[i+j]|0x20 != w[j] {
				return false
			}
		}
		return true
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '-':
			if at(i-2, "sk") || at(i-2, "rk") || at(i-2, "pk") || at(i-3, "xai") {
				return true
			}
		case '_':
			if at(i-2, "hf") || at(i-3, "gsk") {
				return true
			}
		case 'a', 'A':
			if at(i, "aiza") {
				return true
			}
		case 'b', 'B':
			if at(i, "bearer") {
				return true
			}
		}
	}
	return false
}

// Params returns a copy of params without credential fields (by name
// or by value shape, at any depth) and the dotted paths it removed, sorted.
func Params(params map[string]any, secrets []string) (map[string]any, []string) {
	var removed []string
	out := stripMap(params, "", secrets, &removed)
	sort.Strings(removed)
	return out, removed
}

func stripMap(m map[string]any, prefix string, secrets []string, removed *[]string) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		path := prefix + k
		if isSecretName(k) {
			*removed = append(*removed, path)
			continue
		}
		v, drop := stripValue(v, path, secrets, removed)
		if drop {
			*removed = append(*removed, path)
			continue
		}
		out[k] = v
	}
	return out
}

func stripValue(v any, path string, secrets []string, removed *[]string) (any, bool) {
	switch x := v.(type) {
	case string:
		if looksSecret(x, secrets) {
			return nil, true
		}
		return x, false
	case map[string]any:
		return stripMap(x, path+".", secrets, removed), false
	case []any:
		out := make([]any, 0, len(x))
		for i, e := range x {
			e, drop := stripValue(e, path+"["+strconv.Itoa(i)+"]", secrets, removed)
			if drop {
				*removed = append(*removed, path+"["+strconv.Itoa(i)+"]")
				continue
			}
			out = append(out, e)
		}
		return out, false
	}
	return v, false
}

func looksSecret(s string, secrets []string) bool {
	for _, k := range secrets {
		if k != "" && strings.Contains(s, k) {
			return true
		}
	}
	return secretValue.MatchString(s)
}

// URL removes a password in the userinfo and credential query
// parameters from a base URL. An unparsable URL is dropped whole when it
// looks like it holds a secret, else kept as given.
func URL(raw string, secrets []string) (string, []string) {
	if raw == "" {
		return "", nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		if looksSecret(raw, secrets) || secretAssign.MatchString(raw) {
			return "", []string{"base_url"}
		}
		return raw, nil
	}
	var removed []string
	if u.User != nil {
		u.User = nil
		removed = append(removed, "base_url.userinfo")
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k, vs := range q {
			secret := isSecretName(k)
			for _, v := range vs {
				secret = secret || looksSecret(v, secrets)
			}
			if secret {
				q.Del(k)
				removed = append(removed, "base_url.query."+k)
			}
		}
		u.RawQuery = q.Encode()
	}
	out := u.String()
	if looksSecret(out, secrets) { // e.g. a key in the path
		return "", append(removed, "base_url")
	}
	sort.Strings(removed)
	return out, removed
}

// Dataset returns d with every registered secret replaced in its ids,
// texts and extra fields: a key pasted into imported data is not stored
// any more than one in a reply. d itself is returned, uncopied, when no
// secret occurs in it (the usual case); otherwise a copy, leaving the
// caller's dataset as it was.
func Dataset(d *model.Dataset, secrets []string) *model.Dataset {
	if len(secrets) == 0 || !datasetHolds(d, secrets) {
		return d
	}
	out := *d
	out.Contexts = make([]model.Context, len(d.Contexts))
	for i, c := range d.Contexts {
		c.ID, c.Source, c.Extra = Exact(c.ID, secrets), Exact(c.Source, secrets), exactMap(c.Extra, secrets)
		cands := make([]model.Candidate, len(c.Candidates))
		for j, k := range c.Candidates {
			k.ID, k.Text, k.Extra = Exact(k.ID, secrets), Exact(k.Text, secrets), exactMap(k.Extra, secrets)
			cands[j] = k
		}
		c.Candidates = cands
		out.Contexts[i] = c
	}
	return &out
}

// datasetHolds reports whether a secret occurs in any string Dataset
// scrubs.
func datasetHolds(d *model.Dataset, secrets []string) bool {
	has := func(s string) bool {
		for _, k := range secrets {
			if k != "" && strings.Contains(s, k) {
				return true
			}
		}
		return false
	}
	mapHas := func(m map[string]string) bool {
		for k, v := range m {
			if has(k) || has(v) {
				return true
			}
		}
		return false
	}
	for _, c := range d.Contexts {
		if has(c.ID) || has(c.Source) || mapHas(c.Extra) {
			return true
		}
		for _, k := range c.Candidates {
			if has(k.ID) || has(k.Text) || mapHas(k.Extra) {
				return true
			}
		}
	}
	return false
}

func exactMap(m map[string]string, secrets []string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[Exact(k, secrets)] = Exact(v, secrets)
	}
	return out
}
