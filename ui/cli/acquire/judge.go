package acquire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/judge/backend"
	"github.com/prism-eval/prism/judge/openai"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/datasets"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

func init() {
	clikit.Register("judge", "try a judge backend on the demo's first candidate (judge try)", runJudge)
	clikit.RegisterArgs("judge", func() []string { return []string{"try"} })
}

const judgeUsage = `prism judge try [--bank NAME] [--all] [--candidate N] [judge flags]

Scores one candidate of the embedded demo (the first context's candidate N,
default 1) under the baseline prompt, or under every condition of the bank
with --all, and prints the score, each sample, token counts and latency.
The judge is the offline simulator unless --backend openai (with --model,
--base-url, $OPENAI_API_KEY or --judge-config FILE) says otherwise.
Retries are shown on stderr as they happen. A condition that gets no
score makes the command fail (exit 1) with its whole reason.`

func runJudge(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "try" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			fmt.Fprintln(stdout, clikit.UsageText(judgeUsage))
			return nil
		}
		return clikit.UsageErr(judgeUsage, "a subcommand is required (try)")
	}
	fs := clikit.NewFlags("prism judge try", judgeUsage)
	bankName := fs.String("bank", "", "built-in probe `BANK` name (default: the first with a news-summary task)")
	all := fs.Bool("all", false, "score every condition of the bank, not only the baseline")
	candN := fs.Int("candidate", 1, "which candidate of the first demo context (1-based)")
	jf := judge.AddFlags(fs.FlagSet)
	// judge try reads no workspace, so it has no stored judge to name;
	// --judge offline|openai is the old spelling of --backend.
	old := fs.String("judge", "", "deprecated spelling of --backend")
	fs.Hide("judge")
	pos, help, err := fs.ParseArgs(args[1:], stdout)
	if err != nil || help {
		return err
	}
	if err := clikit.NoArgs(judgeUsage, pos); err != nil {
		return err
	}
	if err := oldJudgeSpelling(fs, *old, stderr); err != nil {
		return err
	}
	cfg, err := jf.Config(os.Getenv)
	if err != nil {
		return err
	}
	// Retries are shown as they happen: what failed and how long the
	// next attempt waits (otherwise a refused connection is seconds of
	// silence).
	j, err := backend.New(cfg, openai.WithLog(func(line string) { fmt.Fprintln(stderr, line) }))
	if err != nil {
		return err
	}
	d := datasets.Demo()
	bank, err := pickBank(*bankName, d.Task)
	if err != nil {
		return err
	}
	c := d.Contexts[0]
	if *candN < 1 || *candN > len(c.Candidates) {
		return clikit.UsageErr(judgeUsage, "--candidate %d: the first demo context has %d candidates", *candN, len(c.Candidates))
	}
	cand := c.Candidates[*candN-1]
	conds := []banks.Condition{banks.Baseline}
	if *all {
		conds = bank.Conditions()
	}
	fmt.Fprintf(stdout, "judge %s · bank %s · demo context %s, candidate %s\n\n", j.Name(), bank.Name, c.ID, cand.ID)
	return tryConditions(ctx, stdout, j, bank, d.Task, c, cand, conds)
}

// tryConditions scores the candidate under each condition and prints a
// row per answer; a failure that stops a run stops here too, the others
// are summed up in the error after the table.
func tryConditions(ctx context.Context, stdout io.Writer, j judge.Judge, bank *banks.Bank, task string, c model.Context, cand model.Candidate, conds []banks.Condition) error {
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "condition\tscore\tsamples\ttokens (prompt/cached/completion)\tlatency\tnote")
	var failed []string
	for _, cond := range conds {
		req, err := bank.Render(task, c, cand, cond)
		if err != nil {
			return err
		}
		res, err := j.Score(ctx, req)
		name := cond.Probe
		if cond.Wording > 0 {
			name += fmt.Sprintf(" #%d", cond.Wording+1)
		}
		tryRow(tw, name, res, err)
		if judge.KindOf(err).StopsRun() {
			tw.Flush()
			return fmt.Errorf("%s: %w", name, err)
		}
		if err != nil {
			// The table's note is clipped: the whole reason is the error.
			failed = append(failed, name+": "+err.Error())
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(failed) == 1 && len(conds) == 1 {
		return errors.New(failed[0])
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d of %d conditions got no score:\n  %s", len(failed), len(conds), strings.Join(failed, "\n  "))
	}
	return nil
}

// tryRow writes one condition's row: its score, samples, tokens,
// latency and a note (the error, the reply, or the usage the server
// reported wrong), clipped to the table.
func tryRow(tw io.Writer, name string, res judge.Result, err error) {
	score, note := "—", ""
	if res.HasScore {
		score = fmt.Sprintf("%.3f", res.Score)
	}
	switch {
	case err != nil:
		note = err.Error()
	case len(res.Samples) > 0 && res.Samples[0].Raw != "":
		note = strings.Join(strings.Fields(judge.SanitizeServerText(res.Samples[0].Raw)), " ")
	}
	for _, s := range res.Samples {
		if s.UsageNote != "" {
			note = "tokens estimated: " + note
			break
		}
	}
	fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d/%d\t%s\t%s\n", name, score, samples(res), res.PromptTokens,
		res.CachedPromptTokens, res.CompletionTokens, res.Latency.Round(time.Microsecond), clipNote(note))
}

func pickBank(name, task string) (*banks.Bank, error) {
	if name != "" {
		return banks.Builtin(name)
	}
	for _, b := range banks.Builtins() {
		if _, ok := b.Tasks[task]; ok {
			return b, nil
		}
	}
	return nil, fmt.Errorf("no built-in bank has the task %q", task)
}

func samples(r judge.Result) string {
	parts := make([]string, len(r.Samples))
	for i, s := range r.Samples {
		switch {
		case s.HasScore && s.ProbMass > 0 && s.ProbMass < 1:
			parts[i] = fmt.Sprintf("%.3g (mass %.2f)", s.Score, s.ProbMass)
		case s.HasScore:
			parts[i] = fmt.Sprintf("%.3g", s.Score)
		case s.Err != nil:
			parts[i] = string(s.Err.Kind)
		default:
			parts[i] = "—"
		}
	}
	return strings.Join(parts, " ")
}

func clipNote(s string) string {
	if r := []rune(s); len(r) > 60 {
		return string(r[:59]) + "…"
	}
	return s
}

// oldJudgeSpelling applies --judge offline|openai, the deprecated spelling
// of --backend, with a note on stderr.
func oldJudgeSpelling(fs clikit.WorkspaceFlags, old string, stderr io.Writer) error {
	if old == "" {
		return nil
	}
	if old != judge.BackendOffline && old != judge.BackendOpenAI {
		return clikit.UsageErr(judgeUsage, "--judge %q: judge try reads no workspace and takes --backend offline|openai", old)
	}
	fmt.Fprintf(stderr, "prism judge try: --judge %s is deprecated: use --backend %s (--judge now names the stored judge)\n", old, old)
	if err := fs.Set("backend", old); err != nil {
		return clikit.UsageErr(judgeUsage, "%v", err)
	}
	return nil
}
