package clikit

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/judge/engine"
)

// SpendFlags are the flags every command that sends judge requests shares
// (prism run, score, screen, diagnose joint|resolution|wording), and check
// is the one gate between a printed estimate and the first request: a
// large bill is never started by surprise (docs/engine.md, "Spending").
type SpendFlags struct {
	fs           *flag.FlagSet
	Dry          *bool
	maxCost      *float64
	maxRequests  *int
	confirmAbove *float64
	yes          *bool
}

// defaultConfirmAbove is the estimated cost in USD above which a run on a
// terminal asks before it sends: a few dollars is a mistake worth a
// question, a few cents is not.
const defaultConfirmAbove = 5.0

// SpendFlagNames are the flags addSpendFlags defines.
var SpendFlagNames = []string{"dry-run", "max-cost", "max-requests", "confirm-above", "yes"}

// AddSpendFlags defines --dry-run, --max-cost, --max-requests,
// --confirm-above and --yes on fs.
func AddSpendFlags(fs WorkspaceFlags) *SpendFlags {
	return &SpendFlags{
		fs:           fs.FlagSet,
		Dry:          fs.Bool("dry-run", false, "print the estimate and send nothing"),
		maxCost:      FiniteFloatFlag(fs.FlagSet, "max-cost", 0, 0, 1e12, "refuse, sending nothing, when the estimated cost exceeds `USD` (default: no limit)"),
		maxRequests:  countFlag(fs.FlagSet, "max-requests", "refuse, sending nothing, when more than `N` requests are to be sent (default: no limit)"),
		confirmAbove: FiniteFloatFlag(fs.FlagSet, "confirm-above", defaultConfirmAbove, 0, 1e12, "on a terminal, ask before sending when the estimated cost exceeds `USD`"),
		yes:          fs.Bool("yes", false, "do not ask before sending (--max-cost and --max-requests still apply)"),
	}
}

// given reports whether the flag name was on the command line.
func (s *SpendFlags) given(name string) bool {
	set := false
	s.fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// countValue is an int flag that takes only a count ≥ 0.
type countValue struct{ v *int }

func countFlag(fs *flag.FlagSet, name, usage string) *int {
	p := new(int)
	fs.Var(countValue{p}, name, usage)
	return p
}

func (c countValue) String() string {
	if c.v == nil {
		return "0"
	}
	return strconv.Itoa(*c.v)
}

func (c countValue) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return fmt.Errorf("%q: want a whole number ≥ 0", s)
	}
	*c.v = n
	return nil
}

// ConfirmIO is where the confirmation question reads its answer, and
// whether that is a terminal; tests replace it. Without a terminal (CI,
// a pipe) nothing is asked.
var ConfirmIO = struct {
	In       io.Reader
	Terminal func() bool
}{os.Stdin, func() bool { return isTerminal(os.Stdin) }}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// Check decides, after the estimate e was printed and before anything is
// sent, whether the sends may go. A dry run reports false after a line on
// info (and whether a run would be refused); an estimate over --max-cost or
// --max-requests is an error saying nothing was sent; an estimated cost
// over --confirm-above with a priced backend asks on stderr when stdin is
// a terminal, unless --yes. The offline simulator is free and never asks.
func (s *SpendFlags) Check(e engine.Estimate, backend string, info, stderr io.Writer) (send bool, err error) {
	over := s.limitError(e, backend)
	if *s.Dry {
		if over != nil {
			fmt.Fprintf(info, "dry run: nothing sent; a run would be refused: %v\n", over)
		} else {
			fmt.Fprintln(info, "dry run: nothing sent")
		}
		return false, nil
	}
	if over != nil {
		return false, fmt.Errorf("%w; nothing was sent", over)
	}
	priced := backend != judge.BackendOffline && e.Priced
	if e.Send == 0 || !priced || e.Cost <= *s.confirmAbove || *s.yes || !ConfirmIO.Terminal() {
		return true, nil
	}
	fmt.Fprintf(stderr, "send %d requests, estimated cost $%.2f (above --confirm-above $%.2f)? [y/N] ", e.Send, e.Cost, *s.confirmAbove)
	line, _ := bufio.NewReader(ConfirmIO.In).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true, nil
	}
	return false, fmt.Errorf("not confirmed: nothing was sent (--yes sends without asking)")
}

// limitError says how e exceeds --max-cost or --max-requests, or is nil.
// The simulator costs nothing; an unknown cost cannot be shown to stay
// under --max-cost, so it exceeds it.
func (s *SpendFlags) limitError(e engine.Estimate, backend string) error {
	if s.given("max-requests") && e.Send > *s.maxRequests {
		return fmt.Errorf("%d requests to send exceed --max-requests %d", e.Send, *s.maxRequests)
	}
	if !s.given("max-cost") || e.Send == 0 || backend == judge.BackendOffline {
		return nil
	}
	if !e.Priced {
		return fmt.Errorf("--max-cost $%g: the cost is unknown (no price for %q; pass --prices FILE)", *s.maxCost, e.PriceModel)
	}
	if e.Cost > *s.maxCost {
		return fmt.Errorf("estimated cost $%.2f exceeds --max-cost $%g", e.Cost, *s.maxCost)
	}
	return nil
}

// SumEstimates is the estimate of two studies sent by one command (prism
// diagnose resolution's two scales), checked once before either is sent.
func SumEstimates(a, b engine.Estimate) engine.Estimate {
	return engine.Estimate{
		Requests: a.Requests + b.Requests, Answered: a.Answered + b.Answered, CacheHits: a.CacheHits + b.CacheHits,
		Send: a.Send + b.Send, Calls: a.Calls + b.Calls,
		InputTokens: a.InputTokens + b.InputTokens, OutputTokens: a.OutputTokens + b.OutputTokens,
		Cost: a.Cost + b.Cost, Priced: a.Priced && b.Priced, PriceModel: a.PriceModel, Time: a.Time + b.Time,
	}
}
