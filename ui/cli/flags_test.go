package cli

import (
	"context"
	"errors"
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

func TestFiniteFloatFlag(t *testing.T) {
	for _, tc := range []struct {
		arg, err string
		want     float64
	}{
		{"0.5", "", 0.5},
		{"-2", "", -2},
		{"NaN", `"NaN" is not a finite number`, 0},
		{"nan", "not a finite number", 0},
		{"Inf", "not a finite number", 0},
		{"-inf", "not a finite number", 0},
		{"3", "3 is outside [-2, 2]", 0},
		{"1e308", "outside [-2, 2]", 0},
		{"x", `"x" is not a number`, 0},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		v := clikit.FiniteFloatFlag(fs, "g", 0.25, -2, 2, "")
		err := fs.Parse([]string{"--g", tc.arg})
		switch {
		case tc.err == "" && (err != nil || *v != tc.want):
			t.Errorf("--g %s: %v, %v; want %v", tc.arg, *v, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "-g")):
			t.Errorf("--g %s: error %v, want one naming the flag and %q", tc.arg, err, tc.err)
		}
	}
}

// Every command refuses a non-finite float flag before doing any work,
// naming the flag: --min-gain (select) and the judge flags --temperature
// and --top-p, whose own range checks a NaN would pass.
func TestCommandsRejectNonFiniteFloats(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		run  func(context.Context, []string, io.Writer, io.Writer) error
		args []string
		flag string
	}{
		{clikit.Commands["select"].Run, []string{"--scores", "s.csv", "--labels", "l.csv", "--min-gain", "NaN"}, "-min-gain"},
		{clikit.Commands["select"].Run, []string{"--min-gain=+Inf", "--judge", "j"}, "-min-gain"},
		{clikit.Commands["select"].Run, []string{"--min-gain", "5", "--judge", "j"}, "-min-gain"},
		{clikit.Commands["run"].Run, []string{"--bank", "quality", "--temperature", "NaN"}, "-temperature"},
		{clikit.Commands["screen"].Run, []string{"--bank", "quality", "--top-p", "nan"}, "-top-p"},
		{clikit.Commands["judge"].Run, []string{"try", "--temperature", "-Inf"}, "-temperature"},
	} {
		err := tc.run(ctx, tc.args, io.Discard, io.Discard)
		if err == nil || !errors.Is(err, clikit.ErrUsage) || !strings.Contains(err.Error(), tc.flag) {
			t.Errorf("%q: error %v, want a usage error naming %s", tc.args, err, tc.flag)
		}
	}
}
