package acquire

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

func init() {
	clikit.Register("diagnose", "probe diagnostics beyond the signal screen: presentation order, wording strength, joint instructions, score resolution (diagnose KIND)", runDiagnose)
	clikit.RegisterArgs("diagnose", diagnosisNames)
}

// diagnosis is one kind of prism diagnose: each lives in a file of its
// own (cmd_diagnose_KIND.go) and registers itself here.
type diagnosis struct {
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

var diagnoses = map[string]diagnosis{}

func registerDiagnosis(name, summary string, run func(ctx context.Context, args []string, stdout, stderr io.Writer) error) {
	if _, dup := diagnoses[name]; dup {
		panic("prism: diagnosis registered twice: " + name)
	}
	diagnoses[name] = diagnosis{summary: summary, run: run}
}

// diagnoseUsage lists the registered kinds; it is built on demand so that
// every kind's file can add itself in init.
func diagnoseUsage() string {
	var b strings.Builder
	b.WriteString("usage: prism diagnose KIND [flags]   (prism diagnose KIND -h for a kind's flags)\n\n")
	b.WriteString("Probe diagnostics (docs/protocol.md, docs/diagnostics.md); each prints a\n")
	b.WriteString("table, or its documented JSON report with --json. order reads stored answers\n")
	b.WriteString("only (it sends nothing); joint, resolution and wording first acquire their\n")
	b.WriteString("conditions through the engine (stored answers are reused; --stored sends\n")
	b.WriteString("nothing; --dry-run prints the estimate and stops; --max-cost, --max-requests\n")
	b.WriteString("and --confirm-above as for prism run). Kinds:\n")
	for _, n := range diagnosisNames() {
		fmt.Fprintf(&b, "  %-12s %s\n", n, diagnoses[n].summary)
	}
	return strings.TrimRight(b.String(), "\n")
}

// diagnosisNames are the registered kinds, sorted.
func diagnosisNames() []string {
	names := make([]string, 0, len(diagnoses))
	for n := range diagnoses {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func runDiagnose(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		if len(args) == 0 {
			return clikit.UsageErr(diagnoseUsage(), "diagnose needs a KIND")
		}
		fmt.Fprintln(stdout, diagnoseUsage())
		return nil
	}
	d, ok := diagnoses[args[0]]
	if !ok {
		return clikit.UsageErr(diagnoseUsage(), "unknown diagnosis %q", args[0])
	}
	return d.run(ctx, args[1:], stdout, stderr)
}
