package acquire

import (
	"flag"
	"strings"

	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

// batchedFlags are prism run's --probes and the flags of a batched study (docs/engine.md,
// "Batched scoring").
type batchedFlags struct {
	probes  *string
	batched *bool
	orders  *int
	seed    *int64
}

func addBatchedFlags(s *studyFlags) *batchedFlags {
	return &batchedFlags{
		probes:  s.fs.String("probes", "", "comma-separated `PROBES` to acquire (baseline, ATTR:+, ATTR:-, neutral:NAME, ctx:NAME; every wording of each); default: every condition of the bank"),
		batched: s.fs.Bool("batched", false, "batched pointwise scoring: one call per presentation order shows every candidate of a context"),
		orders:  s.fs.Int("orders", 8, "with --batched: presentation orders `K` per context and condition (cyclic shifts of a random order and of its reversal)"),
		seed:    s.fs.Int64("order-seed", engine.DefaultOrderSeed, "with --batched: seed `S` of the random base order"),
	}
}

// apply makes spec batched when --batched is given, names the judge
// NAME-batched unless --judge was given, and refuses the batched flags
// without --batched or with a rubric.
func (b *batchedFlags) apply(s *studyFlags, spec *engine.Spec) error {
	set := map[string]bool{}
	s.fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *b.probes != "" {
		if spec.Rubric != nil {
			return clikit.UsageErr(s.fs.UsageDoc, "--probes is for a bank's probes, not a rubric (--rubric)")
		}
		spec.Probes = nil
		for _, p := range strings.Split(*b.probes, ",") {
			if p = strings.TrimSpace(p); p != "" {
				spec.Probes = append(spec.Probes, p)
			}
		}
	}
	if !*b.batched {
		if set["orders"] || set["order-seed"] {
			return clikit.UsageErr(s.fs.UsageDoc, "--orders and --order-seed are for a batched study (--batched)")
		}
		return nil
	}
	if spec.Rubric != nil {
		return clikit.UsageErr(s.fs.UsageDoc, "--batched is for a bank's probes, not a rubric (--rubric)")
	}
	if *b.orders < 1 {
		return clikit.UsageErr(s.fs.UsageDoc, "--orders must be ≥ 1, got %d", *b.orders)
	}
	spec.Orders, spec.OrderSeed = *b.orders, *b.seed
	if !set["judge"] && !set["name"] {
		spec.JudgeName = engine.BatchedJudgeName(spec.Config)
	}
	return nil
}
