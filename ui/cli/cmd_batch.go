package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/model"
)

func init() {
	register("batch", "export pending requests as OpenAI Batch JSONL, or import a batch output (batch export|import)", runBatch)
}

const batchUsage = `
  prism batch export [--bank BANK | --rubric RUBRIC [--prompts DIR] [--samples N]] [--dataset NAME]
                     --backend openai --model M [--judge NAME] [--repeats N] [-o FILE]
                     [--workspace FILE] [judge flags]
  prism batch import FILE [--workspace FILE]

export writes every request of the study that has no answer yet as OpenAI
Batch JSONL ({"custom_id", "method": "POST", "url": "/v1/chat/completions",
"body"}; custom_id is the request key, "KEY:RUN" for runs after the first),
the file OpenAI's Batch API and vLLM's run-batch read, and records the
requests in the workspace. import reads the output file (OpenAI's or vLLM's
shape) and stores each answer at the coordinates it was exported with;
failed lines are stored as failures and stay pending. The flags of export
are those of prism run: --backend is what answers, --judge the stored judge
name the answers go under (default: the model).

With --rubric (docs/rubrics.md) a line is one judge call, its body what
prism run --rubric sends for it: "saja:KEY:RUN" for a SAJA call (every
criterion of a candidate, with the rubric's JSON schema), "geval:KEY:RUN"
for a G-Eval request in --mode expected (with logprobs), and
"geval:KEY:RUN:S/N" for sample S of the N (--samples) of a sampled G-Eval
request. import reads the replies as prism run --rubric does and stores each
criterion's rating; a sampled request is scored only when all its N samples
came back, else it fails and stays pending. A line whose custom_id is not a
call of a study exported to this workspace (unknown, repeated, another N or
mode, another study) is an error naming the file and line, and nothing is
stored.`

func runBatch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usageErr(batchUsage, "a subcommand is required")
	}
	switch args[0] {
	case "export":
		return runBatchExport(ctx, args[1:], stdout, stderr)
	case "import":
		return runBatchImport(ctx, args[1:], stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprintln(stdout, usageText(batchUsage))
		return nil
	}
	return usageErr(batchUsage, "unknown batch command %q", args[0])
}

func runBatchExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	s := newStudyFlags("prism batch export", batchUsage, stderr)
	s.addRubricFlags()
	out := s.fs.String("o", "", "write to `FILE` instead of standard output")
	pos, help, err := s.fs.parse(args, stdout)
	if err != nil || help {
		return err
	}
	if len(pos) > 0 {
		return usageErr(batchUsage, "unexpected argument %q", pos[0])
	}
	st, spec, err := s.spec(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	plan, err := engine.NewPlan(ctx, st, spec)
	if err != nil {
		return err
	}
	var n int
	if *out == "" {
		n, err = engine.ExportBatch(ctx, st, plan, stdout)
	} else {
		err = model.WriteFileAtomic(*out, func(w io.Writer) error {
			var werr error
			n, werr = engine.ExportBatch(ctx, st, plan, w)
			return werr
		})
	}
	if err != nil {
		return err
	}
	dest := *out
	if dest == "" {
		dest = "standard output"
	}
	if plan.IsRubric() {
		e := plan.Estimate
		fmt.Fprintf(stderr, "exported %d lines to %s: %d call(s) for %d rating(s) of rubric %s (%d already answered, %d stored from cache)\n",
			n, dest, e.Calls, e.Requests-e.Answered-(e.CacheHits-e.Shared), plan.Spec.Rubric.Name, e.Answered, e.CacheHits-e.Shared)
		return nil
	}
	// Requests byte for byte another's share its line (Estimate.Shared):
	// they are exported, not stored from cache.
	e := plan.Estimate
	fmt.Fprintf(stderr, "exported %d requests to %s (%d already answered, %d stored from cache%s)\n",
		n, dest, e.Answered, e.CacheHits-e.Shared, sharedText(e.Shared))
	return nil
}

func runBatchImport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newWorkspaceFlags("prism batch import", stderr, batchUsage)
	pos, help, err := fs.parse(args, stdout)
	if err != nil || help {
		return err
	}
	if len(pos) != 1 {
		return usageErr(batchUsage, "prism batch import takes one FILE")
	}
	// Streamed line by line (each line at most 64 MiB): the file limit
	// only refuses devices and absurd sizes.
	f, err := model.OpenInput(pos[0], 1<<40, "a batch results file (JSON Lines)")
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := openWorkspace(ctx, *fs.workspace, false)
	if err != nil {
		return err
	}
	defer st.Close()
	stats, err := engine.ImportBatch(ctx, st, f, pos[0])
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "imported %d results from %s: %d answers, %d failures%s\n",
		stats.Lines, pos[0], stats.Answered, stats.Failed, errorsText(stats.Errors))
	if stats.UsageEstimated > 0 {
		fmt.Fprintf(stdout, "%d result(s) reported implausible token counts (negative, or beyond any request's size): replaced, so their cost is an estimate\n", stats.UsageEstimated)
	}
	if stats.Missing > 0 {
		fmt.Fprintf(stdout, "%d of the answers are missing cells (a criterion the SAJA reply left out or rated off its scale)\n", stats.Missing)
	}
	if stats.Incomplete > 0 {
		fmt.Fprintf(stdout, "%d sampled G-Eval request(s) did not get all their samples back: not scored from fewer, they stay pending\n", stats.Incomplete)
	}
	if stats.Skipped > 0 {
		fmt.Fprintf(stdout, "%d rating(s) already answered in the workspace were left as they are\n", stats.Skipped)
	}
	if stats.Failed > 0 {
		fmt.Fprintln(stdout, "failed requests stay pending: export again to retry them")
	}
	return nil
}

// sharedText says how many requests share an identical request's line.
func sharedText(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", %d sharing the line of an identical request", n)
}
