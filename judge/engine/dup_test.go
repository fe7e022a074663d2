package engine

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
)

// dupDataset is tinyDataset with the same summary twice in each document
// (as SummEval has: 310 request keys occur more than once over 752 rows):
// doc0's s1 is its s0, and doc1 gets an s2 that is its s1. Of its 5
// candidates, 3 are distinct.
func dupDataset() *model.Dataset {
	d := tinyDataset("dup")
	d.Contexts[0].Candidates[1].Text = d.Contexts[0].Candidates[0].Text
	c := d.Contexts[1].Candidates[1]
	c.ID, c.Human = "s2", 4
	d.Contexts[1].Candidates = append(d.Contexts[1].Candidates, c)
	return d
}

// A run sends each distinct request once and stores its answer for every
// row that shares it; a second run sends nothing (issue 42, item 13),
// whole or streamed in chunks smaller than a context.
func TestRunSendsIdenticalRequestsOnce(t *testing.T) {
	for _, streamed := range []bool{false, true} {
		t.Run(map[bool]string{false: "whole", true: "streamed"}[streamed], func(t *testing.T) {
			d := dupDataset()
			st, _ := openStore(t, d)
			ctx := context.Background()
			s := newChatServer(t)
			spec := serverSpec(t, s, d, 2, Limits{Concurrency: 4})
			const perCand = 38 * 2
			rows, distinct := 5*perCand, 3*perCand
			p, err := NewPlan(ctx, st, spec)
			if err != nil {
				t.Fatal(err)
			}
			if e := p.Estimate; e.Send != distinct || e.Shared != rows-distinct || e.CacheHits != rows-distinct {
				t.Fatalf("estimate: %d to send, %d shared, %d from cache; want %d, %d, %d", e.Send, e.Shared, e.CacheHits, distinct, rows-distinct, rows-distinct)
			}
			if streamed {
				if p, err = NewRunPlan(ctx, st, spec); err != nil {
					t.Fatal(err)
				}
				p.chunk = 7 // chunks would split every candidate's items
			}
			sum := startAndWait(t, st, spec, p)
			seen, _ := s.counts()
			if len(seen) != distinct {
				t.Errorf("server saw %d distinct requests, want %d", len(seen), distinct)
			}
			for id, n := range seen {
				if n != 1 {
					t.Fatalf("request %s sent %d times", id[:8], n)
				}
			}
			if sum.Sent != distinct || sum.CacheHits != rows-distinct || sum.Answered != rows || sum.Failed != 0 {
				t.Errorf("summary: %d sent, %d from cache, %d answered, %d failed; want %d, %d, %d, 0", sum.Sent, sum.CacheHits, sum.Answered, sum.Failed, distinct, rows-distinct, rows)
			}
			if sum.PromptTokens != int64(100*distinct) {
				t.Errorf("%d prompt tokens counted, want 100 per call sent (%d)", sum.PromptTokens, 100*distinct)
			}
			if sum.Study.Answered != rows || sum.Study.Requests != rows {
				t.Errorf("stored: %+v, want %d requests all answered", sum.Study, rows)
			}
			// Each duplicate has its twin's answer.
			scores, err := st.Scores(ctx, d.Name, "srv", p.BankHash)
			if err != nil || len(scores) != rows {
				t.Fatalf("%d scores (%v), want %d", len(scores), err, rows)
			}
			byCell := map[[4]string]float64{}
			for _, r := range scores {
				byCell[[4]string{r.Context, r.Candidate, r.Probe + "/" + r.Wording, r.Run}] = r.Score
			}
			for _, tw := range [][3]string{{"doc0", "s0", "s1"}, {"doc1", "s1", "s2"}} {
				for k, v := range byCell {
					if k[0] == tw[0] && k[1] == tw[1] {
						if w := byCell[[4]string{tw[0], tw[2], k[2], k[3]}]; w != v {
							t.Fatalf("%s/%s %s run %s: %v, its twin %s %v", tw[0], tw[2], k[2], k[3], w, tw[1], v)
						}
					}
				}
			}
			again, err := NewPlan(ctx, st, spec)
			if err != nil || again.Estimate.Send != 0 || again.Estimate.CacheHits != 0 || again.Estimate.Answered != rows {
				t.Fatalf("rerun: %+v (%v), want nothing to send", again.Estimate, err)
			}
		})
	}
}

// startAndWait runs p (planned from spec) to its end against a server.
func startAndWait(t *testing.T, st *store.Store, spec Spec, p *Plan) Summary {
	t.Helper()
	lim := NewLimiter(spec.Limits)
	js, err := NewJudges(spec.Config, spec.Repeats, lim)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Start(context.Background(), st, js, p, Options{Limiter: lim})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := r.Wait()
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// A shared request that fails is sent once, and its failure stored (and
// counted) for every row that shares it: each stays pending, and the next
// run sends the request once again.
func TestSharedRequestFailureCountsPerRow(t *testing.T) {
	d := dupDataset()
	st, _ := openStore(t, d)
	ctx := context.Background()
	s := newChatServer(t)
	spec := serverSpec(t, s, d, 1, Limits{Concurrency: 2})
	p, err := NewPlan(ctx, st, spec)
	if err != nil {
		t.Fatal(err)
	}
	// Fail doc0's s0 baseline (shared by s1).
	req, err := p.Request(0)
	if err != nil || !strings.Contains(req.Messages[len(req.Messages)-1].Content, d.Contexts[0].Candidates[0].Text) {
		t.Fatalf("item 0 is not doc0/s0: %v", err)
	}
	bad := ""
	s.fault = func(id string, _ int) (int, http.Header, string) {
		if id == bad {
			return 400, nil, `{"error":{"message":"no"}}`
		}
		return 0, nil, ""
	}
	bad, _ = bodyIdentity(mustBody(t, spec, p, 0))
	sum := startAndWait(t, st, spec, p)
	seen, _ := s.counts()
	if seen[bad] != 1 {
		t.Fatalf("the failing request was sent %d times, want once", seen[bad])
	}
	if sum.Failed != 2 || sum.Errors["bad_request"] != 2 {
		t.Errorf("failed %d (%v), want 2: one per row", sum.Failed, sum.Errors)
	}
	again, err := NewPlan(ctx, st, spec)
	if err != nil || again.Estimate.Send != 1 || again.Estimate.Shared != 1 {
		t.Fatalf("after the failure: %+v (%v), want one request to send for two rows", again.Estimate, err)
	}
	s.fault = nil
	startAndWait(t, st, spec, again)
	if seen, _ := s.counts(); seen[bad] != 2 {
		t.Fatalf("the failed request was sent %d times in all, want twice", seen[bad])
	}
}

// mustBody is the body the client sends for item i of p.
func mustBody(t *testing.T, spec Spec, p *Plan, i int) []byte {
	t.Helper()
	req, err := p.Request(i)
	if err != nil {
		t.Fatal(err)
	}
	cfg := runConfig(spec.Config, int(p.Items[i].Run), 1)
	body, err := ChatBody(cfg, req, 0)
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// A batch export writes one line per distinct request; the import stores
// each line's answer for every row that shares it.
func TestBatchExportSharesIdenticalRequests(t *testing.T) {
	d := dupDataset()
	st, _ := openStore(t, d)
	ctx := context.Background()
	spec := serverSpec(t, newChatServer(t), d, 1, Limits{})
	p, err := NewPlan(ctx, st, spec)
	if err != nil {
		t.Fatal(err)
	}
	var exp bytes.Buffer
	n, err := ExportBatch(ctx, st, p, &exp)
	if err != nil || n != 3*38 {
		t.Fatalf("exported %d lines (%v), want %d", n, err, 3*38)
	}
	out, want := answerBatch(t, exp.Bytes(), "openai")
	stats, err := ImportBatch(ctx, st, bytes.NewReader(out), "out.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if stats.Lines != n {
		t.Errorf("%d lines imported, want %d", stats.Lines, n)
	}
	answered, shared := 0, 0
	for id := range want {
		key, run := ParseCustomID(id)
		rows, err := st.RequestsByKey(ctx, key, run)
		if err != nil {
			t.Fatal(err)
		}
		answered += len(rows)
		shared += len(rows) - 1
	}
	prog, err := st.Progress(ctx, d.Name, "srv", p.BankHash)
	if err != nil {
		t.Fatal(err)
	}
	if prog.Requests != 5*38 || prog.Answered != answered || shared == 0 {
		t.Errorf("stored %+v, want %d requests and %d answered (%d by a shared line)", prog, 5*38, answered, shared)
	}
}

// The estimate prism run prints (EstimatePlan) counts a context's
// identical requests once to send, as NewPlan and the run do: in a new
// workspace, and in one holding some of the study's answers.
func TestEstimatePlanCountsIdenticalRequestsOnce(t *testing.T) {
	d := dupDataset()
	st, _ := openStore(t, d)
	ctx := context.Background()
	s := newChatServer(t)
	spec := serverSpec(t, s, d, 2, Limits{Concurrency: 2})
	check := func(when string) {
		t.Helper()
		whole, err := NewPlan(ctx, st, spec)
		if err != nil {
			t.Fatal(err)
		}
		est, err := EstimatePlan(ctx, st, spec)
		if err != nil {
			t.Fatal(err)
		}
		w, e := whole.Estimate, est.Estimate
		if e.Send != w.Send || e.Shared != w.Shared || e.CacheHits != w.CacheHits || e.Answered != w.Answered || e.InputTokens != w.InputTokens {
			t.Errorf("%s: EstimatePlan %+v, NewPlan %+v", when, e, w)
		}
		if w.Shared == 0 {
			t.Errorf("%s: nothing shared", when)
		}
	}
	check("new workspace")
	base := spec
	base.Probes = []string{"baseline"}
	p, err := NewPlan(ctx, st, base)
	if err != nil {
		t.Fatal(err)
	}
	startAndWait(t, st, base, p)
	check("baselines answered")
}
