package cli

import (
	"os/exec"
	"strings"
	"testing"
)

func TestShellQuote(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "''"},
		{"plain", "plain"},
		{"--workspace=a/b.prism", "--workspace=a/b.prism"},
		{"user@host:8080,x+y%z", "user@host:8080,x+y%z"},
		{"a;b", "'a;b'"},
		{"a>b", "'a>b'"},
		{"$(rm -rf /)", "'$(rm -rf /)'"},
		{"`id`", "'`id`'"},
		{"a\nb", "'a\nb'"},
		{"it's", `'it'\''s'`},
		{"'", `''\'''`},
		{"ünïcode", "'ünïcode'"},
		{"a b\tc", "'a b\tc'"},
		{`back\slash`, `'back\slash'`},
		{"*?[]~#&|!{}", "'*?[]~#&|!{}'"},
	} {
		if got := shellQuote(c.in); got != c.want {
			t.Errorf("shellQuote(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestShellJoinRoundTrip feeds the printed line to sh and checks that sh
// hands back exactly the arguments.
func TestShellJoinRoundTrip(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	args := []string{"--bank", "x;y", "", ">out", "$(rm -rf /)", "`id`", "a\nb", "it's", "'", `\`, "ünï", "*", "~", "a  b", "#c", "!x", "--name=a b", "%s\\0"}
	// The outer sh parses the line as a user's shell would; the inner one
	// prints each argument it receives, NUL-terminated.
	line := `sh -c 'printf "%s\0" "$@"' sh ` + shellJoin(args)
	got, err := exec.Command(sh, "-c", line).Output()
	if err != nil {
		t.Fatalf("sh: %v", err)
	}
	back := strings.Split(strings.TrimSuffix(string(got), "\x00"), "\x00")
	if len(back) != len(args) {
		t.Fatalf("sh gave %d args %q, want %d %q", len(back), back, len(args), args)
	}
	for i := range args {
		if back[i] != args[i] {
			t.Errorf("arg %d: sh gave %q, want %q", i, back[i], args[i])
		}
	}
}

func TestShellJoinRedactsURLs(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--base-url", "https://u:secret@host/v1"}, "--base-url https://host/v1"},
		{[]string{"--base-url=https://u:secret@host/v1"}, "--base-url=https://host/v1"},
		{[]string{"-base-url", "u:secret@host:8080/v1"}, "-base-url host:8080/v1"},
		{[]string{"--base-url", "https://host/v1?api_key=secret&x=1"}, "--base-url 'https://host/v1?api_key=[redacted]&x=1'"},
		{[]string{"--base-url", "https://host/v1?token=secret#f"}, "--base-url 'https://host/v1?token=[redacted]#f'"},
		{[]string{"--other=http://a:secret@b/c?key=secret"}, "'--other=http://b/c?key=[redacted]'"},
		{[]string{"--base-url", "https://host/sk-abcdefghijklmnopqrstuv/v1"}, "--base-url 'https://host/[redacted]/v1'"},
		{[]string{"--bank", "user@host"}, "--bank user@host"}, // not a URL: kept
		{[]string{"--name=me@x://y"}, "--name=me@x://y"},      // no scheme before the @: kept
	} {
		got := shellJoin(c.args)
		if got != c.want {
			t.Errorf("shellJoin(%q) = %q, want %q", c.args, got, c.want)
		}
		if strings.Contains(got, "secret") {
			t.Errorf("shellJoin(%q) = %q: prints the secret", c.args, got)
		}
	}
}
