package acquire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/judge/batchapi"
	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

func runBatchSubmit(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	b := newBatchPlanFlags("prism batch submit", stderr)
	st, plan, opts, help, err := b.plan(ctx, args, stdout)
	if err != nil || help {
		return err
	}
	defer st.Close()
	cfg := plan.Spec.Config
	if cfg.Backend != judge.BackendOpenAI && cfg.Backend != judge.BackendAnthropic {
		return clikit.UsageErr(batchUsage, "prism batch submit sends to OpenAI's or Anthropic's batch API: give --backend openai or anthropic")
	}
	prov, err := batchapi.New(cfg)
	if err != nil {
		return err
	}
	res, err := engine.SubmitBatch(ctx, st, plan, opts, prov)
	for _, j := range res.Jobs {
		if j.State != store.JobFailed && j.BatchID != "" {
			fmt.Fprintf(stdout, "submitted batch %s (%s, %d requests): %s\n", j.BatchID, j.Provider, j.Requests, j.Status)
		}
	}
	if res.Export.Held > 0 {
		fmt.Fprintf(stdout, "%d request(s) already in a submitted batch were not sent again (prism batch status)\n", res.Export.Held)
	}
	if err != nil {
		return err
	}
	if len(res.Jobs) == 0 {
		fmt.Fprintln(stdout, "nothing to submit")
		return nil
	}
	reportExport(stderr, "submitted", res.Export.Lines, fmt.Sprintf("%d batch(es)", len(res.Jobs)), plan)
	return nil
}

// jobFlags are the flags of prism batch status and fetch: the workspace,
// --wait, and where and with which key to ask (default: the endpoint the
// job recorded, the provider's usual key variable).
type jobFlags struct {
	fs      clikit.WorkspaceFlags
	wait    *bool
	baseURL *string
	keyEnv  *string
}

func newJobFlags(name string, stderr io.Writer) jobFlags {
	fs := clikit.NewWorkspaceFlags(name, stderr, batchUsage)
	return jobFlags{fs: fs,
		wait:    fs.Bool("wait", false, "poll until the batches are done (30 s, then doubling up to 10 min)"),
		baseURL: fs.String("base-url", "", "ask this base URL instead of the one the job recorded"),
		keyEnv:  fs.String("api-key-env", "", "environment variable holding the API key (default OPENAI_API_KEY or ANTHROPIC_API_KEY)"),
	}
}

// jobs opens the workspace and picks the jobs named by pos (batch ids or
// tags), else every job not yet imported or failed.
func (f jobFlags) jobs(ctx context.Context, args []string, stdout io.Writer) (*store.Store, []store.BatchJob, bool, error) {
	pos, help, err := f.fs.ParseArgs(args, stdout)
	if err != nil || help {
		return nil, nil, help, err
	}
	st, err := clikit.OpenWorkspace(ctx, *f.fs.Workspace, false)
	if err != nil {
		return nil, nil, false, err
	}
	all, err := st.BatchJobs(ctx)
	if err != nil {
		st.Close()
		return nil, nil, false, err
	}
	var out []store.BatchJob
	for _, j := range all {
		named := slices.Contains(pos, j.BatchID) || slices.Contains(pos, j.Tag)
		if named || len(pos) == 0 && j.State != store.JobImported && j.State != store.JobFailed {
			out = append(out, j)
		}
	}
	for _, p := range pos {
		if !slices.ContainsFunc(out, func(j store.BatchJob) bool { return j.BatchID == p || j.Tag == p }) {
			st.Close()
			return nil, nil, false, fmt.Errorf("no batch %q in workspace %s (prism batch status lists them)", p, *f.fs.Workspace)
		}
	}
	return st, out, false, nil
}

// provider is the batch API a job was sent to; its key is registered
// with the store so that nothing the store writes carries it.
func (f jobFlags) provider(st *store.Store, j store.BatchJob) (batchapi.Provider, error) {
	cfg := judge.Defaults()
	cfg.Backend, cfg.BaseURL, cfg.APIKeyEnv = j.Provider, j.Endpoint, *f.keyEnv
	if *f.baseURL != "" {
		cfg.BaseURL = *f.baseURL
	}
	cfg.ApplyEnv(os.Getenv)
	if cfg.APIKey != "" {
		st.AddSecret(string(cfg.APIKey))
	}
	return batchapi.New(cfg)
}

func runBatchStatus(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f := newJobFlags("prism batch status", stderr)
	st, jobs, help, err := f.jobs(ctx, args, stdout)
	if err != nil || help {
		return err
	}
	defer st.Close()
	if len(jobs) == 0 {
		fmt.Fprintln(stdout, "no batch in progress (prism batch submit sends one)")
		return nil
	}
	var errs []error
	for i := range jobs {
		j := &jobs[i]
		if j.State == store.JobImported || j.State == store.JobFailed {
			fmt.Fprintln(stdout, jobLine(j, batchapi.Status{Status: j.Status}))
			continue
		}
		prov, err := f.provider(st, *j)
		if err != nil {
			return err
		}
		var s batchapi.Status
		ok := true
		if *f.wait {
			s, err = engine.WaitJob(ctx, st, prov, j, engine.DefaultPoll, func(s batchapi.Status) {
				if !s.Done {
					fmt.Fprintln(stderr, jobLine(j, s))
				}
			})
		} else {
			s, ok, err = engine.RefreshJob(ctx, st, prov, j)
		}
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("%s: %w", jobName(j), err))
		case !ok:
			fmt.Fprintf(stdout, "job %s (%s, %d requests): its create call got no answer and the provider shows no batch for it (yet); its requests stay held (prism batch forget %s releases them once you know no batch was made)\n", j.Tag, j.Provider, j.Requests, j.Tag)
		default:
			fmt.Fprintln(stdout, jobLine(j, s))
		}
	}
	return errors.Join(errs...)
}

// jobLine is one job's state: counts, and what it waits for or what to
// do next.
func jobLine(j *store.BatchJob, s batchapi.Status) string {
	c := j.Counts
	line := fmt.Sprintf("%s (%s, %d requests): %s, %s: %d succeeded, %d errored, %d expired", jobName(j), j.Provider, j.Requests,
		j.State, j.Status, c["succeeded"], c["errored"], c["expired"])
	if c["canceled"] > 0 {
		line += fmt.Sprintf(", %d canceled", c["canceled"])
	}
	switch j.State {
	case store.JobSubmitted:
		line += fmt.Sprintf(", %d processing; waiting for %s", c["processing"], s.Waiting)
	case store.JobEnded:
		line += "; prism batch fetch imports the results"
	case store.JobFailed:
		if s.Reason != "" {
			line += ": " + s.Reason
		}
		line += "; its requests are pending again"
	}
	return line
}

func jobName(j *store.BatchJob) string {
	if j.BatchID != "" {
		return j.BatchID
	}
	return j.Tag
}

func runBatchFetch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f := newJobFlags("prism batch fetch", stderr)
	st, jobs, help, err := f.jobs(ctx, args, stdout)
	if err != nil || help {
		return err
	}
	defer st.Close()
	if len(jobs) == 0 {
		fmt.Fprintln(stdout, "no batch to fetch")
		return nil
	}
	var errs []error
	for i := range jobs {
		j := &jobs[i]
		prov, err := f.provider(st, *j)
		if err != nil {
			return err
		}
		if *f.wait && j.State != store.JobImported && j.State != store.JobFailed {
			if _, err := engine.WaitJob(ctx, st, prov, j, engine.DefaultPoll, func(s batchapi.Status) {
				if !s.Done {
					fmt.Fprintln(stderr, jobLine(j, s))
				}
			}); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", jobName(j), err))
				continue
			}
		}
		stats, err := engine.FetchJob(ctx, st, prov, j)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", jobName(j), err))
			continue
		}
		fmt.Fprintf(stdout, "imported batch %s: %d answers, %d failures%s\n", jobName(j), stats.Answered, stats.Failed, clikit.ErrorsText(stats.Errors))
		if stats.Failed > 0 {
			fmt.Fprintln(stdout, "failed, errored and expired requests stay pending: submit again to retry them")
		}
	}
	return errors.Join(errs...)
}
