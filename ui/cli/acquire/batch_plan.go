package acquire

import (
	"context"
	"io"
	"strings"

	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

// batchPlanFlags are the flags prism batch export and submit share: the
// study's (as prism run), the shard and the caps of one file.
type batchPlanFlags struct {
	s        *studyFlags
	shard    *string
	maxLines *int
	maxBytes *int64
	probes   *string
}

func newBatchPlanFlags(name string, stderr io.Writer) *batchPlanFlags {
	s := newStudyFlags(name, batchUsage, stderr)
	s.addRubricFlags()
	return &batchPlanFlags{s: s,
		shard:    s.fs.String("shard", "", "export only shard `I/N` of the calls (1 ≤ I ≤ N)"),
		maxLines: s.fs.Int("max-lines", 0, "at most `N` lines per file (default: the format's limit; -1: none)"),
		maxBytes: s.fs.Int64("max-bytes", 0, "at most `N` bytes per file (default: the format's limit; -1: none)"),
		probes:   s.fs.String("probes", "", "comma-separated `PROBES` to export (as prism run --probes); default: every condition of the bank"),
	}
}

// plan parses args and plans the study; the caller closes the store.
func (b *batchPlanFlags) plan(ctx context.Context, args []string, stdout io.Writer) (*store.Store, *engine.Plan, engine.ExportOptions, bool, error) {
	opts := engine.ExportOptions{}
	pos, help, err := b.s.fs.ParseArgs(args, stdout)
	if err != nil || help {
		return nil, nil, opts, help, err
	}
	if err := clikit.NoArgs(batchUsage, pos); err != nil {
		return nil, nil, opts, false, err
	}
	opts.MaxLines, opts.MaxBytes = *b.maxLines, *b.maxBytes
	if *b.shard != "" {
		if opts.Shard, opts.Shards, err = engine.ParseShard(*b.shard); err != nil {
			return nil, nil, opts, false, clikit.UsageErr(batchUsage, "%v", err)
		}
	}
	st, spec, err := b.s.spec(ctx)
	if err != nil {
		return nil, nil, opts, false, err
	}
	if *b.probes != "" {
		if spec.Rubric != nil {
			st.Close()
			return nil, nil, opts, false, clikit.UsageErr(batchUsage, "--probes is for a bank's probes, not a rubric (--rubric)")
		}
		for _, p := range strings.Split(*b.probes, ",") {
			if p = strings.TrimSpace(p); p != "" {
				spec.Probes = append(spec.Probes, p)
			}
		}
	}
	plan, err := engine.NewPlan(ctx, st, spec)
	if err != nil {
		st.Close()
		return nil, nil, opts, false, err
	}
	return st, plan, opts, false, nil
}
