package engine

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	mrand "math/rand/v2"
	"time"

	"github.com/prism-eval/prism/judge/batchapi"
	"github.com/prism-eval/prism/model/store"
)

// SubmitResult is what SubmitBatch did: the export (lines sent, calls
// held by earlier batches) and the jobs it recorded, one per part.
type SubmitResult struct {
	Export ExportResult
	Jobs   []store.BatchJob
}

// SubmitBatch exports the plan's pending calls in the provider's format
// (ExportBatchFiles, the provider's limits unless opts set others),
// leaving out the calls a job of the workspace still holds
// (store.BatchHeld: submitted and not yet imported), and submits each
// part as a batch. Each job is recorded before its batch is created
// (state creating), so that its calls stay held even if prism stops
// before the provider's answer is recorded; a part the provider refused
// is recorded failed and its calls are free again. An error stops the
// submission: the parts already submitted stay recorded.
func SubmitBatch(ctx context.Context, st *store.Store, p *Plan, opts ExportOptions, prov batchapi.Provider) (SubmitResult, error) {
	var res SubmitResult
	switch prov.Name() {
	case batchapi.ProviderOpenAI:
		opts.Format = FormatOpenAI
	case batchapi.ProviderAnthropic:
		opts.Format = FormatAnthropic
	default:
		return res, fmt.Errorf("engine: no batch format for provider %q", prov.Name())
	}
	held, err := st.BatchHeld(ctx)
	if err != nil {
		return res, err
	}
	opts.Held = func(id string) bool { _, ok := held[id]; return ok }
	var parts []*bytes.Buffer
	res.Export, err = ExportBatchFiles(ctx, st, p, opts, func(int) (io.Writer, error) {
		parts = append(parts, &bytes.Buffer{})
		return parts[len(parts)-1], nil
	})
	if err != nil {
		return res, err
	}
	for i, buf := range parts {
		if res.Export.Parts[i] == 0 {
			continue
		}
		job, err := submitPart(ctx, st, prov, buf.Bytes(), res.Export.IDs[i], i, len(parts))
		if job != nil {
			res.Jobs = append(res.Jobs, *job)
		}
		if err != nil {
			return res, err
		}
	}
	return res, nil
}

// submitPart records a job for one part and creates its batch.
func submitPart(ctx context.Context, st *store.Store, prov batchapi.Provider, data []byte, ids []string, i, n int) (*store.BatchJob, error) {
	tag, err := newTag()
	if err != nil {
		return nil, err
	}
	job := &store.BatchJob{Provider: prov.Name(), Tag: tag, Endpoint: prov.Endpoint(), State: store.JobCreating}
	if err := st.PutBatchJob(ctx, job, ids); err != nil {
		return nil, err
	}
	name := fmt.Sprintf("prism-%s.jsonl", tag)
	if n > 1 {
		name = fmt.Sprintf("prism-%s.%03d.jsonl", tag, i+1)
	}
	s, err := prov.Submit(ctx, batchapi.Input{Name: name, Data: data, Lines: len(ids), Tag: tag})
	if err != nil {
		var be *batchapi.Error
		if errors.As(err, &be) && be.MayExist {
			// The batch may exist: its calls stay held (state creating);
			// prism batch status looks for it.
			return job, fmt.Errorf("%w: the batch may have been created; its %d requests stay held (job %s): prism batch status looks for it", err, len(ids), tag)
		}
		job.State, job.Status, job.Files = store.JobFailed, "not created", s.Files
		if uerr := st.UpdateBatchJob(ctx, job); uerr != nil {
			return job, errors.Join(err, uerr)
		}
		return job, err
	}
	return job, recordStatus(ctx, st, job, s)
}

// newTag is a job's name before its batch has an id: "prism-" and 12
// random hex digits, unique across workspaces.
func newTag() (string, error) {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return "prism-" + hex.EncodeToString(b[:]), nil
}

// recordStatus writes what the provider said of a job's batch.
func recordStatus(ctx context.Context, st *store.Store, job *store.BatchJob, s batchapi.Status) error {
	if s.ID != "" {
		job.BatchID = s.ID
	}
	job.Status, job.Counts = s.Status, s.Counts.Map()
	if job.Files == nil {
		job.Files = map[string]string{}
	}
	for k, v := range s.Files {
		job.Files[k] = v
	}
	switch {
	case job.State == store.JobImported:
	case s.Failed:
		job.State = store.JobFailed
	case s.Done:
		job.State = store.JobEnded
	default:
		job.State = store.JobSubmitted
	}
	return st.UpdateBatchJob(ctx, job)
}

// RefreshJob asks the provider about a job and records the answer. A job
// left creating (prism stopped, or the create call's answer was lost)
// is looked for by its tag: found, it becomes the batch it is; not found,
// ok is false and the job stays as it is (its calls held).
func RefreshJob(ctx context.Context, st *store.Store, prov batchapi.Provider, job *store.BatchJob) (s batchapi.Status, ok bool, err error) {
	if job.State == store.JobCreating {
		s, ok, err = prov.Find(ctx, job.Tag)
		if err != nil || !ok {
			return s, false, err
		}
	} else if s, err = prov.Status(ctx, job.BatchID); err != nil {
		return s, false, err
	}
	return s, true, recordStatus(ctx, st, job, s)
}

// Poll sets how WaitJob polls: the first wait, its cap (each wait
// doubles, with jitter in [½, 1] of it), and the sleep (tests record
// instead of waiting).
type Poll struct {
	First, Max time.Duration
	Sleep      func(ctx context.Context, d time.Duration) error
}

// DefaultPoll waits 30 s, then 1, 2, 4 … minutes, at most 10: a batch
// takes minutes to hours (within 24 h), and a status call is free but
// rate limited.
var DefaultPoll = Poll{First: 30 * time.Second, Max: 10 * time.Minute}

// WaitJob refreshes the job until its batch is done, waiting with
// backoff between calls; each status seen is recorded and passed to
// seen (nil: none).
func WaitJob(ctx context.Context, st *store.Store, prov batchapi.Provider, job *store.BatchJob, poll Poll, seen func(batchapi.Status)) (batchapi.Status, error) {
	wait := poll.First
	for {
		s, ok, err := RefreshJob(ctx, st, prov, job)
		if err != nil {
			return s, err
		}
		if !ok {
			return s, fmt.Errorf("job %s: its create call got no answer and the provider shows no batch for it; its requests stay held", job.Tag)
		}
		if seen != nil {
			seen(s)
		}
		if s.Done {
			return s, nil
		}
		d := time.Duration(float64(wait) * (0.5 + 0.5*mrand.Float64()))
		sleep := poll.Sleep
		if sleep == nil {
			sleep = sleepCtx
		}
		if err := sleep(ctx, d); err != nil {
			return s, err
		}
		wait = time.Duration(math.Min(float64(wait)*2, float64(poll.Max)))
	}
}

// FetchJob downloads an ended job's results and stores them through
// ImportBatch (every id checked before anything is stored; errored,
// expired and canceled requests stored as failures, so they stay pending
// for a later export), then records the job imported: a second fetch
// finds nothing to do, and the store keeps the first answer to any
// request in any case. A job not ended is an error saying what it waits
// for.
func FetchJob(ctx context.Context, st *store.Store, prov batchapi.Provider, job *store.BatchJob) (ImportStats, error) {
	stats := ImportStats{Errors: map[string]int{}}
	switch job.State {
	case store.JobImported:
		return stats, fmt.Errorf("batch %s is already imported", job.BatchID)
	case store.JobFailed:
		return stats, fmt.Errorf("batch %s never ran (%s): its requests are pending again", jobName(job), job.Status)
	}
	s, ok, err := RefreshJob(ctx, st, prov, job)
	if err != nil {
		return stats, err
	}
	if !ok {
		return stats, fmt.Errorf("job %s: the provider shows no batch for it yet", job.Tag)
	}
	if !s.Done {
		return stats, fmt.Errorf("batch %s is %s: waiting for %s", job.BatchID, s.Status, s.Waiting)
	}
	if s.Failed {
		return stats, fmt.Errorf("batch %s failed: %s; its requests are pending again", job.BatchID, s.Reason)
	}
	results, err := prov.Results(ctx, s)
	if err != nil {
		return stats, err
	}
	for _, r := range results {
		one, err := ImportBatch(ctx, st, bytes.NewReader(r.Data), r.Name)
		if err != nil {
			return stats, err
		}
		stats.add(one)
	}
	job.State = store.JobImported
	return stats, st.UpdateBatchJob(ctx, job)
}

func (s *ImportStats) add(o ImportStats) {
	s.Lines += o.Lines
	s.Answered += o.Answered
	s.Failed += o.Failed
	s.UsageEstimated += o.UsageEstimated
	s.Missing += o.Missing
	s.Incomplete += o.Incomplete
	s.Skipped += o.Skipped
	for k, v := range o.Errors {
		s.Errors[k] += v
	}
}

// jobName is a job's batch id, or its tag while it has none.
func jobName(j *store.BatchJob) string {
	if j.BatchID != "" {
		return j.BatchID
	}
	return j.Tag
}
