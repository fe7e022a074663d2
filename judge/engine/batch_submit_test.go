package engine

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/judge/batchapi"
	"github.com/prism-eval/prism/judge/batchapi/batchapitest"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
)

type fakeCase struct {
	backend string
	fake    func() *batchapitest.Fake
}

var fakeCases = []fakeCase{
	{batchapi.ProviderOpenAI, batchapitest.NewOpenAI},
	{batchapi.ProviderAnthropic, batchapitest.NewAnthropic},
}

// submitSpec is a study of the tiny dataset judged through the fake.
func submitSpec(t *testing.T, d *model.Dataset, backend, base string) Spec {
	cfg := judge.Defaults()
	cfg.Backend, cfg.Model, cfg.BaseURL, cfg.APIKey = backend, "test-model", base, batchapitest.Key
	cfg.ResponseFormat = judge.FormatNone
	return Spec{Dataset: d, Bank: quality(t), BankSource: "builtin:quality", JudgeName: "srv", Config: cfg, Repeats: 2}
}

func batchProvider(t *testing.T, spec Spec) batchapi.Provider {
	t.Helper()
	p, err := batchapi.New(spec.Config)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func onlyJob(t *testing.T, st *store.Store) store.BatchJob {
	t.Helper()
	jobs, err := st.BatchJobs(context.Background())
	if err != nil || len(jobs) != 1 {
		t.Fatalf("jobs %+v, %v: want one", jobs, err)
	}
	return jobs[0]
}

// TestSubmitStatusFetch: against each provider's fake, a study is
// submitted (one batch), a second submit holds every call (nothing paid
// twice), the job survives reopening the workspace (a crash), status
// says it is in progress and what it waits for, fetch stores every
// answer, and a second fetch stores nothing.
func TestSubmitStatusFetch(t *testing.T) {
	for _, tc := range fakeCases {
		t.Run(tc.backend, func(t *testing.T) {
			f := tc.fake()
			defer f.Close()
			f.Polls = 2 // status, then fetch, see it in progress
			d := tinyDataset("tiny")
			st, path := openStore(t, d)
			ctx := context.Background()
			spec := submitSpec(t, d, tc.backend, f.BaseURL())
			p, err := NewPlan(ctx, st, spec)
			if err != nil {
				t.Fatal(err)
			}
			n := len(p.Items)
			res, err := SubmitBatch(ctx, st, p, ExportOptions{}, batchProvider(t, spec))
			if err != nil || len(res.Jobs) != 1 || res.Export.Lines != n || f.Creates() != 1 {
				t.Fatalf("submit: %+v, %v (creates %d)", res, err, f.Creates())
			}
			again, _ := NewPlan(ctx, st, spec)
			res2, err := SubmitBatch(ctx, st, again, ExportOptions{}, batchProvider(t, spec))
			if err != nil || len(res2.Jobs) != 0 || res2.Export.Held != n || f.Creates() != 1 {
				t.Fatalf("second submit: %+v, %v (creates %d): want every call held", res2, err, f.Creates())
			}
			// A crash: the workspace is reopened, and a new client made.
			st.Close()
			if st, err = store.Open(ctx, path); err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			job := onlyJob(t, st)
			prov := batchProvider(t, spec)
			s, ok, err := RefreshJob(ctx, st, prov, &job)
			if err != nil || !ok || s.Done || s.Waiting == "" || job.State != store.JobSubmitted {
				t.Fatalf("status: %+v ok=%v %v, job %+v", s, ok, err, job)
			}
			if _, err := FetchJob(ctx, st, prov, &job); err == nil || !strings.Contains(err.Error(), "waiting for") {
				t.Fatalf("fetch before the end: %v", err)
			}
			stats, err := FetchJob(ctx, st, prov, &job)
			if err != nil || stats.Answered != n || stats.Failed != 0 {
				t.Fatalf("fetch: %+v, %v", stats, err)
			}
			if j := onlyJob(t, st); j.State != store.JobImported || j.Counts["succeeded"] != n {
				t.Fatalf("job after fetch: %+v", j)
			}
			if rows, _ := st.Scores(ctx, d.Name, "srv", p.BankHash); len(rows) != n {
				t.Fatalf("%d scores stored, want %d", len(rows), n)
			}
			if _, err := FetchJob(ctx, st, prov, &job); err == nil {
				t.Fatal("a second fetch imported again")
			}
			if rows, _ := st.Scores(ctx, d.Name, "srv", p.BankHash); len(rows) != n {
				t.Fatalf("%d scores after a second fetch, want %d", len(rows), n)
			}
			if done, _ := NewPlan(ctx, st, spec); done.Estimate.Send != 0 {
				t.Fatalf("%d calls still pending", done.Estimate.Send)
			}
		})
	}
}

// TestSubmitExpiredHalf: a batch that expires half done stores the half
// that ran; the rest stays pending, and the next submit sends exactly
// the rest.
func TestSubmitExpiredHalf(t *testing.T) {
	for _, tc := range fakeCases {
		t.Run(tc.backend, func(t *testing.T) {
			f := tc.fake()
			defer f.Close()
			d := tinyDataset("tiny")
			st, _ := openStore(t, d)
			ctx := context.Background()
			spec := submitSpec(t, d, tc.backend, f.BaseURL())
			p, _ := NewPlan(ctx, st, spec)
			n := len(p.Items)
			f.Polls, f.ExpireAfter = 0, n/2
			prov := batchProvider(t, spec)
			if _, err := SubmitBatch(ctx, st, p, ExportOptions{}, prov); err != nil {
				t.Fatal(err)
			}
			job := onlyJob(t, st)
			stats, err := FetchJob(ctx, st, prov, &job)
			if err != nil || stats.Answered != n/2 || stats.Failed != n-n/2 || stats.Errors[KindExpired] != n-n/2 {
				t.Fatalf("fetch: %+v, %v", stats, err)
			}
			if job.Counts["expired"] != n-n/2 {
				t.Fatalf("counts %v", job.Counts)
			}
			rest := slices.Clone(f.Requests()[n/2:])
			p2, _ := NewPlan(ctx, st, spec)
			f.ExpireAfter = -1
			res, err := SubmitBatch(ctx, st, p2, ExportOptions{}, prov)
			if err != nil || res.Export.Lines != n-n/2 || len(res.Jobs) != 1 {
				t.Fatalf("second submit: %+v, %v", res, err)
			}
			second := slices.Clone(f.Requests()[n:])
			slices.Sort(rest)
			slices.Sort(second)
			if !slices.Equal(rest, second) {
				t.Fatalf("second batch %v, want the expired %v", second, rest)
			}
		})
	}
}

// lostAnswer is a provider whose create call reaches the server but
// whose answer is lost (MayExist).
type lostAnswer struct{ batchapi.Provider }

func (l lostAnswer) Submit(ctx context.Context, in batchapi.Input) (batchapi.Status, error) {
	l.Provider.Submit(ctx, in)
	return batchapi.Status{}, &batchapi.Error{Op: "create batch", Kind: judge.KindTimeout, MayExist: true}
}

// TestSubmitLostAnswer: a create call whose answer is lost leaves the job
// creating with its calls held; status finds the batch by its tag
// (OpenAI's metadata) and the job becomes it.
func TestSubmitLostAnswer(t *testing.T) {
	f := batchapitest.NewOpenAI()
	defer f.Close()
	d := tinyDataset("tiny")
	st, _ := openStore(t, d)
	ctx := context.Background()
	spec := submitSpec(t, d, batchapi.ProviderOpenAI, f.BaseURL())
	p, _ := NewPlan(ctx, st, spec)
	prov := batchProvider(t, spec)
	_, err := SubmitBatch(ctx, st, p, ExportOptions{}, lostAnswer{prov})
	var be *batchapi.Error
	if !errors.As(err, &be) || !strings.Contains(err.Error(), "stay held") {
		t.Fatalf("%v", err)
	}
	job := onlyJob(t, st)
	if job.State != store.JobCreating || job.BatchID != "" {
		t.Fatalf("%+v", job)
	}
	if held, _ := st.BatchHeld(ctx); len(held) != len(p.Items) {
		t.Fatalf("%d held, want %d", len(held), len(p.Items))
	}
	s, ok, err := RefreshJob(ctx, st, prov, &job)
	if err != nil || !ok || job.BatchID != s.ID || job.State != store.JobSubmitted || f.Creates() != 1 {
		t.Fatalf("refresh: %+v ok=%v %v, job %+v", s, ok, err, job)
	}
}
