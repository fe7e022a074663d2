package clikit

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
	line := `sh -c 'printf "%s\0" "$@"' sh ` + ShellJoin(args)
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
	need := func(name, what string) string {
		return `"${` + name + `:?set ` + name + ` to ` + what + `: left out of the printed command}"`
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--base-url", "https://u:s3cr3t@host/v1"}, "--base-url https://" + need("PRISM_URL_USERINFO", "the URL's user:password") + "@host/v1"},
		{[]string{"--base-url=https://u:s3cr3t@host/v1"}, "--base-url=https://" + need("PRISM_URL_USERINFO", "the URL's user:password") + "@host/v1"},
		{[]string{"-base-url", "u:s3cr3t@host:8080/v1"}, "-base-url " + need("PRISM_URL_USERINFO", "the URL's user:password") + "@host:8080/v1"},
		{[]string{"--base-url", "https://host/v1?api_key=s3cr3t&x=1"}, "--base-url 'https://host/v1?api_key='" + need("PRISM_API_KEY", "the URL's api_key value") + "'&x=1'"},
		{[]string{"--base-url", "https://host/v1?token=s3cr3t#f"}, "--base-url 'https://host/v1?token='" + need("PRISM_TOKEN", "the URL's token value") + "'#f'"},
		{[]string{"--other=http://a:s3cr3t@b/c?key=s3cr3t"}, "--other=http://" + need("PRISM_URL_USERINFO", "the URL's user:password") + "'@b/c?key='" + need("PRISM_KEY", "the URL's key value")},
		{[]string{"--base-url", "https://host/sk-abcdefghijklmnopqrstuv/v1"}, "--base-url https://host/" + need("PRISM_URL_KEY", "the key in the URL") + "/v1"},
		{[]string{"--base-url", "https://h/?api_key=s3cr3t&API-KEY=s3cr3t"}, "--base-url 'https://h/?api_key='" + need("PRISM_API_KEY", "the URL's api_key value") + "'&API-KEY='" + need("PRISM_API_KEY_2", "the URL's api_key value")},
		{[]string{"--bank", "user@host"}, "--bank user@host"}, // not a URL: kept
		{[]string{"--name=me@x://y"}, "--name=me@x://y"},      // no scheme before the @: kept
	} {
		got := ShellJoin(c.args)
		if got != c.want {
			t.Errorf("shellJoin(%q) = %q, want %q", c.args, got, c.want)
		}
		if strings.Contains(got, "s3cr3t") || strings.Contains(got, "sk-abc") {
			t.Errorf("shellJoin(%q) = %q: prints the secret", c.args, got)
		}
	}
}

// The resume hint of a run whose --base-url carries a credential runs as
// printed: sh gives back exactly the arguments once the parameters it
// names are set, and refuses to run, naming them, when they are not
// (issue 42: "?api_key=[redacted]" was sent as the key).
func TestShellJoinWithSecretsRuns(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	args := []string{"run", "--base-url", "https://u:p%40ss@host/v1?api_key=s3cr3t&x=1", "--base-url=https://h/sk-abcdefghijklmnopqrstuv/v1?token=t'o$k"}
	line := ShellJoin(args)
	if strings.Contains(line, "s3cr3t") || strings.Contains(line, "p%40ss") || strings.Contains(line, "sk-abc") || strings.Contains(line, "t'o$k") {
		t.Fatalf("the line prints a secret: %s", line)
	}
	cmd := exec.Command(sh, "-c", `sh -c 'printf "%s\0" "$@"' sh `+line)
	cmd.Env = append(cmd.Environ(), "PRISM_URL_USERINFO=u:p%40ss", "PRISM_API_KEY=s3cr3t", "PRISM_URL_KEY=sk-abcdefghijklmnopqrstuv", "PRISM_TOKEN=t'o$k")
	got, err := cmd.Output()
	if err != nil {
		t.Fatalf("sh: %v\n%s", err, line)
	}
	if back := strings.Split(strings.TrimSuffix(string(got), "\x00"), "\x00"); strings.Join(back, "\n") != strings.Join(args, "\n") {
		t.Fatalf("sh gave %q, want %q", back, args)
	}
	cmd = exec.Command(sh, "-c", "true "+line)
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "PRISM_URL_USERINFO") {
		t.Fatalf("without the parameters: %v %s, want an error naming PRISM_URL_USERINFO", err, out)
	}
}
