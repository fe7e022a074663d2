package clikit

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/prism-eval/prism/model/store/redact"
)

// ShellJoin renders args as one POSIX shell command line that, pasted into
// sh, bash or zsh, gives back exactly args — with credentials in URLs (see
// redactArg) left out, since the line is printed for the user to copy. A
// credential left out becomes a shell parameter the user sets before
// running the line, "${PRISM_API_KEY:?…}" for a ?api_key= value, so the
// line still runs (and says what to set when it is not set) rather than
// sending "[redacted]" to the server.
func ShellJoin(args []string) string {
	out := make([]string, len(args))
	urlNext := false
	names := map[string]bool{}
	for i, a := range args {
		out[i] = shellWord(redactArg(a, urlNext), names)
		urlNext = isURLFlag(a)
	}
	return strings.Join(out, " ")
}

// slotMark brackets, in a redacted argument, the name of the secret left
// out there (a NUL cannot be in an argument).
const slotMark = "\x00"

// slot marks a secret left out: id names its parameter, what (letters,
// digits, spaces and _:') says what it is.
func slot(id, what string) string { return slotMark + envName(id) + "|" + what + slotMark }

// shellWord quotes a redacted argument as one shell word: its text
// single-quoted, each secret's slot a required parameter expansion named
// PRISM_NAME (PRISM_NAME_2, … when names already holds it).
func shellWord(a string, names map[string]bool) string {
	if !strings.Contains(a, slotMark) {
		return shellQuote(a)
	}
	var b strings.Builder
	for i, part := range strings.Split(a, slotMark) {
		if i%2 == 0 {
			if part != "" {
				b.WriteString(shellQuote(part))
			}
			continue
		}
		id, what, _ := strings.Cut(part, "|")
		name := "PRISM_" + envName(id)
		for n := 2; names[name]; n++ {
			name = fmt.Sprintf("PRISM_%s_%d", envName(id), n)
		}
		names[name] = true
		// The message is letters, digits, spaces and _:':. only, so the
		// double quotes expand nothing else.
		fmt.Fprintf(&b, `"${%s:?set %s to %s: left out of the printed command}"`, name, name, what)
	}
	return b.String()
}

// envName is s as a shell variable name's letters: upper case, anything
// but letters and digits an underscore.
func envName(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case 'a' <= r && r <= 'z':
			return r - 'a' + 'A'
		case 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
			return r
		}
		return '_'
	}, s)
}

// shellQuote returns s as one shell word. Anything outside a small safe set
// is single-quoted: inside '…' the shell expands nothing (no $, `, \, ;, >,
// newline); a single quote inside is closed, escaped and reopened.
func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	if strings.IndexFunc(s, func(r rune) bool { return !shellSafe(r) }) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func shellSafe(r rune) bool {
	switch {
	case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
		return true
	}
	return strings.ContainsRune("_@%+=:,./-", r)
}

// isURLFlag reports whether a is a flag whose next argument is a URL
// (--base-url U, -base-url U; the flag package accepts one or two dashes).
func isURLFlag(a string) bool {
	return a == "--base-url" || a == "-base-url"
}

// redactArg removes credentials from one argument that is, or ends in, a URL:
// the userinfo (user:password@) and credential-like query parameters. isURL
// says the argument is a --base-url value, which is redacted even without a
// scheme; otherwise only arguments holding "://" are treated as URLs.
func redactArg(a string, isURL bool) string {
	prefix, u := "", a
	if !isURL {
		for _, f := range []string{"--base-url=", "-base-url="} {
			if strings.HasPrefix(a, f) {
				prefix, u, isURL = f, a[len(f):], true
			}
		}
	}
	if !isURL {
		i := strings.Index(a, "://")
		if i < 0 {
			return a
		}
		// --flag=URL: keep the flag part as is.
		if j := strings.IndexByte(a[:i], '='); j >= 0 {
			prefix, u = a[:j+1], a[j+1:]
		}
	}
	return prefix + redactURL(u, isURL)
}

// userinfo matches the user[:password]@ of an authority after a scheme
// (or, for a --base-url value, without one); greedy up to the last @
// before the path, as url.Parse splits it.
var (
	userinfo         = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]*://)[^/?#\s]*@`)
	userinfoNoScheme = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]*://)?[^/?#\s]*@`)
)

// redactURL strips the userinfo and replaces the values of credential-like
// query parameters. It works on the text rather than re-encoding a parsed
// URL so that everything else is printed as the user typed it.
func redactURL(s string, schemeOptional bool) string {
	if schemeOptional {
		s = userinfoNoScheme.ReplaceAllString(s, "${1}"+slot("url_userinfo", "the URL's user:password")+"@")
	} else {
		s = userinfo.ReplaceAllString(s, "${1}"+slot("url_userinfo", "the URL's user:password")+"@")
	}
	base, query, hasQuery := strings.Cut(s, "?")
	// Key-shaped values in the host or path (sk-…, say).
	base = redactText(base)
	if !hasQuery {
		return base
	}
	query, frag, hasFrag := strings.Cut(query, "#")
	parts := strings.Split(query, "&")
	for k, p := range parts {
		name, _, ok := strings.Cut(p, "=")
		if n, err := url.QueryUnescape(name); err == nil {
			name = n
		}
		if ok && secretParam(name) {
			parts[k] = p[:strings.IndexByte(p, '=')+1] + slot(name, "the URL's "+strings.ToLower(envName(name))+" value")
		} else {
			parts[k] = redactText(p)
		}
	}
	query = strings.Join(parts, "&")
	if hasFrag {
		query += "#" + frag
	}
	return base + "?" + query
}

// redactText is redact.Text with each credential-shaped value it
// replaced (by "[redacted]") a secret's slot.
func redactText(s string) string {
	return strings.ReplaceAll(redact.Text(s), "[redacted]", slot("url_key", "the key in the URL"))
}

// secretParam reports whether a query parameter name looks like it carries
// a credential: key, api_key, token, access_token, secret, password, ….
func secretParam(name string) bool {
	n := strings.ToLower(strings.NewReplacer("_", "", "-", "", ".", "").Replace(name))
	switch n {
	case "key", "token", "auth", "sig", "signature", "code", "cookie", "credential", "credentials":
		return true
	}
	for _, s := range []string{"key", "token", "secret", "password", "passwd", "pwd", "auth", "credentials"} {
		if strings.HasSuffix(n, s) {
			return true
		}
	}
	return false
}
