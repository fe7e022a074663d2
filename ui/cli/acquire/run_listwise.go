package acquire

import (
	"flag"
	"strings"

	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

// listwiseFlags are prism run's --probes and the flags of a listwise study
// (docs/engine.md, "Listwise scoring").
type listwiseFlags struct {
	probes   *string
	listwise *bool
	batched  *bool // --batched: the deprecated spelling of --listwise
	orders   *int
	seed     *int64
}

func addListwiseFlags(s *studyFlags) *listwiseFlags {
	l := &listwiseFlags{
		probes:   s.fs.String("probes", "", "comma-separated `PROBES` to acquire (baseline, ATTR:+, ATTR:-, neutral:NAME, ctx:NAME; every wording of each); default: every condition of the bank"),
		listwise: s.fs.Bool("listwise", false, "listwise scoring: one call per presentation order shows every candidate of a context"),
		batched:  s.fs.Bool("batched", false, "deprecated spelling of --listwise"),
		orders:   s.fs.Int("orders", 8, "with --listwise: presentation orders `K` per context and condition (cyclic shifts of a random order and of its reversal)"),
		seed:     s.fs.Int64("order-seed", engine.DefaultOrderSeed, "with --listwise: seed `S` of the random base order"),
	}
	s.fs.Hide("batched")
	return l
}

// apply makes spec listwise when --listwise is given, names the judge
// NAME-batched (the stored name, kept) unless --judge was given, and
// refuses the listwise flags without --listwise or with a rubric.
func (l *listwiseFlags) apply(s *studyFlags, spec *engine.Spec) error {
	set := map[string]bool{}
	s.fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *l.probes != "" {
		if spec.Rubric != nil {
			return clikit.UsageErr(s.fs.UsageDoc, "--probes is for a bank's probes, not a rubric (--rubric)")
		}
		spec.Probes = nil
		for _, p := range strings.Split(*l.probes, ",") {
			if p = strings.TrimSpace(p); p != "" {
				spec.Probes = append(spec.Probes, p)
			}
		}
	}
	if _, err := s.fs.Deprecated(s.stderr, "batched", "listwise"); err != nil {
		return err
	}
	if !*l.listwise && !*l.batched {
		if set["orders"] || set["order-seed"] {
			return clikit.UsageErr(s.fs.UsageDoc, "--orders and --order-seed are for a listwise study (--listwise)")
		}
		return nil
	}
	if spec.Rubric != nil {
		return clikit.UsageErr(s.fs.UsageDoc, "--listwise is for a bank's probes, not a rubric (--rubric)")
	}
	if *l.orders < 1 {
		return clikit.UsageErr(s.fs.UsageDoc, "--orders must be ≥ 1, got %d", *l.orders)
	}
	spec.Orders, spec.OrderSeed = *l.orders, *l.seed
	if !set["judge"] && !set["name"] {
		spec.JudgeName = engine.BatchedJudgeName(spec.Config)
	}
	return nil
}
