package clitest

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

// RunPrism calls the dispatcher as the binary would and returns exit code and output.
func RunPrism(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = clikit.RunMain(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

type CLIError struct {
	Args []string
	Out  string
}

func (e *CLIError) Error() string { return "prism " + strings.Join(e.Args, " ") + ": " + e.Out }

// Main is each command package's TestMain: it lets a test re-execute the
// test binary as the prism command (the crash tests kill such a child with
// SIGKILL), and removes the fixtures built once per package run.
func Main(m *testing.M) {
	if os.Getenv("PRISM_TEST_AS_MAIN") == "1" {
		os.Exit(clikit.RunMain(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
	}
	code := m.Run()
	cleanupFixtures()
	os.Exit(code)
}

func MustRun(t *testing.T, args ...string) (string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	if code := clikit.RunMain(context.Background(), args, &out, &errb); code != 0 {
		t.Fatalf("prism %s: exit %d\n%s%s", strings.Join(args, " "), code, out.String(), errb.String())
	}
	return out.String(), errb.String()
}

func RunCmd(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = clikit.RunMain(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}
