package acquire

import (
	"context"
	"fmt"
	"io"

	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

// runBatchForget releases the requests of jobs whose create call got no
// answer and that the provider cannot be asked about (an Anthropic
// batch carries no tag to look it up by): they are marked failed, so the
// next submit or export sends their requests. Only the user can know the
// batch was never made; a job the provider has is refused, as is a job
// not named.
func runBatchForget(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f := newJobFlags("prism batch forget", stderr)
	pos, help, err := f.fs.ParseArgs(args, stdout)
	if err != nil || help {
		return err
	}
	if len(pos) == 0 {
		return clikit.UsageErr(batchUsage, "prism batch forget takes the tags of the jobs to release (prism batch status lists them)")
	}
	st, jobs, _, err := f.jobs(ctx, args, stdout)
	if err != nil {
		return err
	}
	defer st.Close()
	for i := range jobs {
		j := &jobs[i]
		if j.State != store.JobCreating {
			return fmt.Errorf("job %s is %s at the provider: prism batch status and fetch follow it; only a job whose create call got no answer can be forgotten", jobName(j), j.State)
		}
	}
	for i := range jobs {
		j := &jobs[i]
		j.State, j.Status = store.JobFailed, "forgotten: its create call got no answer"
		if err := st.UpdateBatchJob(ctx, j); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "job %s (%s, %d requests) forgotten: its requests are pending again. Were the batch made after all, its results will not be imported and those requests may be paid twice.\n",
			j.Tag, j.Provider, j.Requests)
	}
	return nil
}
