package acquire

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

func init() {
	clikit.Register("batch", "export pending requests as batch files (OpenAI, Anthropic, vLLM, Ray), import a batch output, or submit to and fetch from OpenAI's and Anthropic's batch APIs (batch export|import|submit|status|fetch|forget)", runBatch)
	clikit.RegisterArgs("batch", func() []string { return []string{"export", "import", "submit", "status", "fetch", "forget"} })
}

const batchUsage = `
  prism batch export [--bank BANK [--probes P,…] | --rubric RUBRIC [--prompts DIR] [--samples N]] [--dataset NAME]
                     --backend openai|anthropic --model M [--judge NAME] [--repeats N]
                     [--format openai|anthropic|vllm|ray] [--shard I/N] [--max-lines N] [--max-bytes N]
                     [-o FILE] [--workspace FILE] [judge flags]
  prism batch import FILE [--workspace FILE]
  prism batch submit [the study and judge flags of export] [--shard I/N] [--max-lines N] [--max-bytes N]
  prism batch status [BATCH…] [--wait] [--base-url URL] [--api-key-env NAME] [--workspace FILE]
  prism batch fetch [BATCH…] [--wait] [--base-url URL] [--api-key-env NAME] [--workspace FILE]
  prism batch forget TAG… [--workspace FILE]

export writes every request of the study that has no answer yet as a batch
file and records the requests in the workspace. --format openai (default)
and vllm write OpenAI Batch JSONL ({"custom_id", "method": "POST", "url":
"/v1/chat/completions", "body"}; custom_id is the request key, "KEY:RUN"
for runs after the first), the file OpenAI's Batch API and vLLM's run-batch
read; anthropic writes Message Batches requests ({"custom_id", "params"},
short ids the workspace maps back; not in --mode expected: no logprobs);
ray writes rows for Ray Data LLM + vLLM ({"id", "model", "messages",
"sampling_params"}; contrib/ray/run.py). --shard I/N exports only the calls
of shard I of N (disjoint shards whose union is the study). A file holds at
most --max-lines lines and --max-bytes bytes (default: the provider's
limits: openai 50,000 lines and 200 MB, anthropic 100,000 and 256 MB;
vllm and ray none); a larger export is split into FILE.001.jsonl,
FILE.002.jsonl, … (it needs -o).

import reads the output file (OpenAI's or vLLM's shape, Anthropic's results,
or Ray output rows) and stores each answer at the coordinates it was
exported with; failed lines (and Anthropic's errored, canceled and expired
results) are stored as failures and stay pending. The flags of export
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
stored.

submit exports the pending requests as export does (--backend openai:
OpenAI Batch JSONL, uploaded and run as a batch; --backend anthropic: a
Message Batch) and sends each file as one batch, recorded in the
workspace with its batch id. Requests a batch already carries (submitted,
not yet fetched) are not sent again. status asks the provider about each
batch not yet fetched (or those named) and shows its counts (succeeded,
errored, expired) and what it waits for; fetch downloads the results of
ended batches and imports them as import does: errored and expired
requests stay pending, and submit sends them again. A fetched batch is
not imported twice. --wait polls until the batches are done. The key
comes from $OPENAI_API_KEY or $ANTHROPIC_API_KEY (or --api-key-env); it
is never stored. A job whose create call got no answer holds its requests
until status finds its batch; an Anthropic batch cannot be looked up, so
once you know none was made, forget TAG releases them.`

func runBatch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return clikit.UsageErr(batchUsage, "a subcommand is required")
	}
	switch args[0] {
	case "export":
		return runBatchExport(ctx, args[1:], stdout, stderr)
	case "import":
		return runBatchImport(ctx, args[1:], stdout, stderr)
	case "submit":
		return runBatchSubmit(ctx, args[1:], stdout, stderr)
	case "status":
		return runBatchStatus(ctx, args[1:], stdout, stderr)
	case "fetch":
		return runBatchFetch(ctx, args[1:], stdout, stderr)
	case "forget":
		return runBatchForget(ctx, args[1:], stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprintln(stdout, clikit.UsageText(batchUsage))
		return nil
	}
	return clikit.UsageErr(batchUsage, "unknown batch command %q", args[0])
}

func runBatchExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	b := newBatchPlanFlags("prism batch export", stderr)
	out := b.s.fs.String("o", "", "write to `FILE` (FILE.001.jsonl, FILE.002.jsonl, … when split) instead of standard output")
	format := b.s.fs.String("format", engine.FormatOpenAI, "batch file `FORMAT`: "+strings.Join(engine.Formats, ", "))
	st, plan, opts, help, err := b.plan(ctx, args, stdout)
	if err != nil || help {
		return err
	}
	defer st.Close()
	opts.Format = *format
	if !slices.Contains(engine.Formats, *format) {
		return clikit.UsageErr(batchUsage, "--format %q: want one of %s", *format, strings.Join(engine.Formats, ", "))
	}
	parts := &partFiles{path: *out, stdout: stdout}
	res, err := engine.ExportBatchFiles(ctx, st, plan, opts, parts.open)
	if err == nil {
		err = parts.finish()
	}
	if err != nil {
		parts.abandon()
		return err
	}
	dest := parts.dest()
	if opts.Shards > 1 {
		dest += fmt.Sprintf(" (shard %s)", *b.shard)
	}
	reportExport(stderr, "exported", res.Lines, dest, plan)
	return nil
}

// reportExport says what an export (or submit) wrote.
func reportExport(w io.Writer, verb string, lines int, dest string, plan *engine.Plan) {
	e := plan.Estimate
	if plan.IsRubric() {
		fmt.Fprintf(w, "%s %d lines to %s: %d call(s) for %d rating(s) of rubric %s (%d already answered, %d stored from cache)\n",
			verb, lines, dest, e.Calls, e.Requests-e.Answered-(e.CacheHits-e.Shared), plan.Spec.Rubric.Name, e.Answered, e.CacheHits-e.Shared)
		return
	}
	// Requests byte for byte another's share its line (Estimate.Shared):
	// they are exported, not stored from cache.
	fmt.Fprintf(w, "%s %d requests to %s (%d already answered, %d stored from cache%s)\n",
		verb, lines, dest, e.Answered, e.CacheHits-e.Shared, sharedText(e.Shared))
}

func runBatchImport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := clikit.NewWorkspaceFlags("prism batch import", stderr, batchUsage)
	pos, help, err := fs.ParseArgs(args, stdout)
	if err != nil || help {
		return err
	}
	if len(pos) != 1 {
		return clikit.UsageErr(batchUsage, "prism batch import takes one FILE")
	}
	// Streamed line by line (each line at most 64 MiB): the file limit
	// only refuses devices and absurd sizes.
	f, err := model.OpenInput(pos[0], 1<<40, "a batch results file (JSON Lines)")
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := clikit.OpenWorkspace(ctx, *fs.Workspace, false)
	if err != nil {
		return err
	}
	defer st.Close()
	stats, err := engine.ImportBatch(ctx, st, f, pos[0])
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "imported %d results from %s: %d answers, %d failures%s\n",
		stats.Lines, pos[0], stats.Answered, stats.Failed, clikit.ErrorsText(stats.Errors))
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
