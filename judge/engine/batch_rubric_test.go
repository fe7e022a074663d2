package engine

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/judge/openai"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
)

// fakeModel answers a chat-completions body deterministically from its
// messages and seed, so that a live run against a server playing it and
// a batch answered by it get the same replies. SAJA (a json_schema
// response format): every criterion rated, or one left out, one off its
// scale, or a refusal with no ratings at all; G-Eval: a leading rating,
// sometimes off the scale or unreadable; with logprobs, a distribution
// over 1–3 at the rating.
func fakeModel(body []byte) string {
	var req struct {
		Messages       json.RawMessage `json:"messages"`
		Seed           *int            `json:"seed"`
		Logprobs       bool            `json:"logprobs"`
		ResponseFormat *struct {
			JSONSchema struct {
				Schema struct {
					Required []string `json:"required"`
				} `json:"schema"`
			} `json:"json_schema"`
		} `json:"response_format"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		panic(err)
	}
	h := sha256.New()
	h.Write(req.Messages)
	if req.Seed != nil {
		fmt.Fprintf(h, "|%d", *req.Seed)
	}
	sum := h.Sum(nil)
	v := int(sum[0])
	msg := map[string]any{"role": "assistant"}
	choice := map[string]any{"index": 0, "message": msg, "finish_reason": "stop"}
	switch {
	case req.ResponseFormat != nil:
		crits := req.ResponseFormat.JSONSchema.Schema.Required
		ratings := map[string]int{}
		for i, c := range crits {
			ratings[c] = 1 + int(sum[1+i])%5
		}
		switch v % 4 {
		case 1:
			delete(ratings, crits[int(sum[9])%len(crits)])
		case 2:
			ratings[crits[int(sum[9])%len(crits)]] = 9
		}
		b, _ := json.Marshal(ratings)
		msg["content"] = string(b)
		if v%5 == 3 {
			msg["content"] = nil
			msg["refusal"] = "I can't help with that."
		}
	case req.Logprobs:
		p := []float64{.1 + float64(sum[1]%5)/10, .2, .3 + float64(sum[2]%3)/10}
		top := []map[string]any{}
		for i, x := range p {
			top = append(top, map[string]any{"token": fmt.Sprint(i + 1), "logprob": math.Log(x)})
		}
		msg["content"] = "2"
		choice["logprobs"] = map[string]any{"content": []any{map[string]any{"token": "2", "logprob": math.Log(.2), "top_logprobs": top}}}
	default:
		switch v % 6 {
		case 0:
			msg["content"] = "It reads well."
		case 1:
			msg["content"] = "7"
		default:
			msg["content"] = fmt.Sprint(1 + v%3)
		}
	}
	b, _ := json.Marshal(map[string]any{"id": "c", "object": "chat.completion", "created": 1, "model": "m",
		"choices": []any{choice}, "usage": map[string]any{"prompt_tokens": 100 + v, "completion_tokens": 5}})
	return string(b)
}

// modelServer plays fakeModel over HTTP and records the bodies it got.
type modelServer struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []string
}

func newModelServer(t *testing.T) *modelServer {
	s := &modelServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.bodies = append(s.bodies, canonicalJSON(t, b))
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, fakeModel(b))
	}))
	t.Cleanup(s.Close)
	return s
}

func canonicalJSON(t *testing.T, b []byte) string {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// rubricServerSpec is a rubric study against base.
func rubricServerSpec(t *testing.T, d *model.Dataset, base, rubric string, mod func(*judge.Config)) Spec {
	cfg := judge.Defaults()
	cfg.Backend, cfg.Model, cfg.BaseURL = judge.BackendOpenAI, "test-model", base+"/v1"
	cfg.APIKey = "sk-batchsecret0123456789abcdef"
	zero := 0.0
	cfg.Temperature = &zero
	seed := 11
	cfg.Seed = &seed
	if mod != nil {
		mod(&cfg)
	}
	return Spec{Dataset: d, Rubric: builtinRubric(t, rubric), RubricSource: "builtin:" + rubric, JudgeName: "srv",
		Config: cfg, Repeats: 2, Samples: 3, Limits: Limits{Concurrency: 2}}
}

// answerRubricBatch plays a batch engine over an export with fakeModel,
// in OpenAI's output shape; drop and fail pick lines (by index) to leave
// out or to fail.
func answerRubricBatch(t *testing.T, export []byte, drop, fail func(i int, id string) bool) []byte {
	t.Helper()
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(export))
	sc.Buffer(nil, 1<<20)
	for i := 0; sc.Scan(); i++ {
		var in BatchInput
		if err := json.Unmarshal(sc.Bytes(), &in); err != nil {
			t.Fatal(err)
		}
		switch {
		case drop != nil && drop(i, in.CustomID):
		case fail != nil && fail(i, in.CustomID):
			fmt.Fprintf(&out, `{"id":"b%d","custom_id":%q,"response":{"status_code":500,"request_id":"r","body":{"error":{"message":"overloaded"}}},"error":null}`+"\n", i, in.CustomID)
		default:
			fmt.Fprintf(&out, `{"id":"b%d","custom_id":%q,"response":{"status_code":200,"request_id":"r","body":%s},"error":null}`+"\n", i, in.CustomID, fakeModel(in.Body))
		}
	}
	return out.Bytes()
}

func liveRubricRun(t *testing.T, st *store.Store, spec Spec) *Plan {
	t.Helper()
	p, err := NewPlan(context.Background(), st, spec)
	if err != nil {
		t.Fatal(err)
	}
	js, err := PlanJudges(p, nil, openai.WithBackoff(time.Millisecond, 5*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Start(context.Background(), st, js, p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for range r.Events() {
	}
	if _, err := r.Wait(); err != nil {
		t.Fatal(err)
	}
	return p
}

func scoreTable(t *testing.T, st *store.Store, d *model.Dataset, hash string) []string {
	t.Helper()
	rows, err := st.Scores(context.Background(), d.Name, "srv", hash)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rows {
		s := fmt.Sprintf("%s/%s %s run %s: %.6f", r.Context, r.Candidate, r.Probe, r.Run, r.Score)
		if r.Missing {
			s = fmt.Sprintf("%s/%s %s run %s: missing", r.Context, r.Candidate, r.Probe, r.Run)
		}
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// sendKeys are the coordinates a plan would send.
func sendKeys(p *Plan) []string {
	var out []string
	for _, i := range p.Pending {
		if _, ok := p.Cached[i]; !ok {
			r := p.Row(&p.Items[i])
			out = append(out, r.Context+"/"+r.Candidate+" "+r.Probe+" "+r.Run)
		}
	}
	sort.Strings(out)
	return out
}

// A rubric study exported, answered by the fake model and imported stores
// what a live run against a server playing the same model stores: the
// same scores per criterion and run, the same missing cells and the same
// failures; each line's body is what the live client sent; the key never
// appears; and a rerun sends only what failed, as after the live run.
func TestRubricBatchMatchesLiveRun(t *testing.T) {
	for _, tc := range []struct {
		name, rubric string
		mod          func(*judge.Config)
		idForm       string
	}{
		{"saja", "saja-broad", nil, "saja:"},
		{"geval-sampled", "geval-summeval", nil, "/3"},
		{"geval-expected", "geval-summeval", func(c *judge.Config) { c.Mode = judge.ModeExpected }, "geval:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			d := tinyDataset("tiny")
			srv := newModelServer(t)
			live, _ := openStore(t, d)
			spec := rubricServerSpec(t, d, srv.URL, tc.rubric, tc.mod)
			lp := liveRubricRun(t, live, spec)

			bst, _ := openStore(t, d)
			p, err := NewPlan(ctx, bst, spec)
			if err != nil {
				t.Fatal(err)
			}
			var exp bytes.Buffer
			n, err := ExportBatch(ctx, bst, p, &exp)
			if err != nil {
				t.Fatal(err)
			}
			if n != p.Estimate.Calls || n != len(srv.bodies) {
				t.Fatalf("%d lines, %d calls planned, %d sent live", n, p.Estimate.Calls, len(srv.bodies))
			}
			if strings.Contains(exp.String(), string(spec.Config.APIKey)) {
				t.Fatal("the export holds the API key")
			}
			var bodies []string
			ids := map[string]bool{}
			sc := bufio.NewScanner(bytes.NewReader(exp.Bytes()))
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				var in BatchInput
				_ = json.Unmarshal(sc.Bytes(), &in)
				bodies = append(bodies, canonicalJSON(t, in.Body))
				if ids[in.CustomID] || !strings.Contains(in.CustomID, tc.idForm) {
					t.Errorf("custom_id %q repeated or not of the form %q", in.CustomID, tc.idForm)
				}
				ids[in.CustomID] = true
			}
			sent := slices.Clone(srv.bodies)
			sort.Strings(bodies)
			sort.Strings(sent)
			if !slices.Equal(bodies, sent) {
				t.Fatalf("the exported bodies differ from those sent live:\n%s\nvs\n%s", bodies[0], sent[0])
			}

			out := answerRubricBatch(t, exp.Bytes(), nil, nil)
			stats, err := ImportBatch(ctx, bst, bytes.NewReader(out), "out.jsonl")
			if err != nil {
				t.Fatal(err)
			}
			want, got := scoreTable(t, live, d, lp.BankHash), scoreTable(t, bst, d, p.BankHash)
			if !slices.Equal(want, got) {
				t.Fatalf("imported scores differ from the live run's:\nlive  %q\nbatch %q", want, got)
			}
			lprog, _ := live.Progress(ctx, d.Name, "srv", lp.BankHash)
			bprog, _ := bst.Progress(ctx, d.Name, "srv", p.BankHash)
			if lprog != bprog || stats.Answered != bprog.Answered || stats.Failed != bprog.Failures || stats.Lines != n {
				t.Errorf("progress live %+v, batch %+v; import stats %+v", lprog, bprog, stats)
			}
			t.Logf("%d lines; import %+v; stored %+v; ", n, stats, bprog)
			missing := 0
			for _, r := range got {
				if strings.HasSuffix(r, "missing") {
					missing++
				}
			}
			if stats.Missing != missing {
				t.Errorf("stats say %d missing cells, %d stored", stats.Missing, missing)
			}
			if tc.name == "saja" && (missing == 0 || bprog.Failures == 0) {
				t.Errorf("the fake model's SAJA replies should leave missing cells (%d) and failures (%d)", missing, bprog.Failures)
			}
			// The stored replies are the live ones: the raw JSON array of
			// a sampled request's replies, the logprobs of an expected one.
			lr, _ := live.Replies(ctx, d.Name, "srv", lp.BankHash, "doc1", "s1")
			br, _ := bst.Replies(ctx, d.Name, "srv", p.BankHash, "doc1", "s1")
			if len(lr) == 0 || fmt.Sprint(replyText(lr)) != fmt.Sprint(replyText(br)) {
				t.Errorf("stored replies differ:\nlive  %v\nbatch %v", replyText(lr), replyText(br))
			}

			againLive, err := NewPlan(ctx, live, spec)
			if err != nil {
				t.Fatal(err)
			}
			again, err := NewPlan(ctx, bst, spec)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(sendKeys(again), sendKeys(againLive)) || again.Estimate.Send != againLive.Estimate.Send {
				t.Errorf("after import the rerun sends %v, after the live run %v", sendKeys(again), sendKeys(againLive))
			}
			// Importing the same output again stores nothing new.
			stats2, err := ImportBatch(ctx, bst, bytes.NewReader(out), "out.jsonl")
			if err != nil || stats2.Answered != 0 || stats2.Skipped == 0 {
				t.Errorf("second import: %+v, %v", stats2, err)
			}
		})
	}
}

func replyText(rs []store.Reply) []string {
	var out []string
	for _, r := range rs {
		out = append(out, fmt.Sprintf("%s %s %q %v", r.Probe, r.Run, r.Raw, r.Score))
	}
	sort.Strings(out)
	return out
}

// A sampled G-Eval request is stored only with all its N samples
// answered: a sample left out of the output, or failed in it, fails the
// request (counted, pending, exported again with all N), never a mean of
// fewer.
func TestRubricBatchPartialSamples(t *testing.T) {
	ctx := context.Background()
	d := tinyDataset("tiny")
	st, _ := openStore(t, d)
	spec := rubricServerSpec(t, d, "http://127.0.0.1:1", "geval-summeval", nil)
	p, err := NewPlan(ctx, st, spec)
	if err != nil {
		t.Fatal(err)
	}
	var exp bytes.Buffer
	if _, err := ExportBatch(ctx, st, p, &exp); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(exp.String()), "\n")
	var first, second BatchInput
	_ = json.Unmarshal([]byte(lines[0]), &first)
	_ = json.Unmarshal([]byte(lines[3]), &second)
	out := answerRubricBatch(t, exp.Bytes(),
		func(i int, _ string) bool { return i == 1 }, // sample 1 of the first request is absent
		func(i int, _ string) bool { return i == 5 }) // sample 2 of the second failed
	stats, err := ImportBatch(ctx, st, bytes.NewReader(out), "out.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if stats.Incomplete != 2 || stats.Failed < 2 || stats.Errors[KindIncomplete] != 1 || stats.Errors[string(judge.KindServer)] != 1 {
		t.Fatalf("stats %+v", stats)
	}
	reqs := map[string]bool{}
	for _, l := range []BatchInput{first, second} {
		id, _ := parseRubricID(l.CustomID)
		reqs[id.key+":"+id.run] = true
	}
	again, err := NewPlan(ctx, st, spec)
	if err != nil {
		t.Fatal(err)
	}
	pend := 0
	for _, i := range again.Sends {
		it := again.Row(&again.Items[i])
		if reqs[it.Key+":"+it.Run] {
			pend++
		}
	}
	if pend != 2 {
		t.Errorf("%d of the 2 incomplete requests pending after import", pend)
	}
	var exp2 bytes.Buffer
	n, err := ExportBatch(ctx, st, again, &exp2)
	if err != nil || n != 3*again.Estimate.Send || !strings.Contains(exp2.String(), first.CustomID) {
		t.Errorf("re-export: %d lines for %d requests (%v)", n, again.Estimate.Send, err)
	}
	if f, _ := st.Failures(ctx, d.Name, "srv"); f[KindIncomplete] != 1 || f[string(judge.KindServer)] != 1 {
		t.Errorf("failures stored: %v", f)
	}
	resp, ok := incomplete(store.Request{}, &rubricCall{lines: []*BatchOutcome{{}, nil, {}}})
	if ok || resp.ErrKind != KindIncomplete || !strings.Contains(resp.Err, "1 of 3 samples are not in the batch output (sample 1)") {
		t.Errorf("incomplete failure %q %q", resp.ErrKind, resp.Err)
	}
}

// Lines that cannot be matched to the study are errors naming the file
// and line, and nothing of the file is stored.
func TestRubricBatchImportErrors(t *testing.T) {
	ctx := context.Background()
	d := tinyDataset("tiny")
	st, _ := openStore(t, d)
	sampled := rubricServerSpec(t, d, "http://127.0.0.1:1", "geval-summeval", nil)
	saja := rubricServerSpec(t, d, "http://127.0.0.1:1", "saja-broad", nil)
	saja.JudgeName = "srv-saja"
	export := func(spec Spec) (*Plan, []string) {
		p, err := NewPlan(ctx, st, spec)
		if err != nil {
			t.Fatal(err)
		}
		var exp bytes.Buffer
		if _, err := ExportBatch(ctx, st, p, &exp); err != nil {
			t.Fatal(err)
		}
		out := answerRubricBatch(t, exp.Bytes(), nil, nil)
		return p, strings.Split(strings.TrimSpace(string(out)), "\n")
	}
	gp, g := export(sampled)
	sp, s := export(saja)
	bank := serverSpec(t, newChatServer(t), d, 1, Limits{})
	bank.JudgeName = "srv-bank"
	bp, err := NewPlan(ctx, st, bank)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ExportBatch(ctx, st, bp, io.Discard); err != nil {
		t.Fatal(err)
	}
	replace := func(line, old, new string) string {
		if !strings.Contains(line, old) {
			t.Fatalf("%q not in %s", old, line)
		}
		return strings.Replace(line, old, new, 1)
	}
	gid, _ := parseRubricID(func() string { var in BatchInput; _ = json.Unmarshal([]byte(g[0]), &in); return in.CustomID }())
	sid, _ := parseRubricID(func() string { var in BatchInput; _ = json.Unmarshal([]byte(s[0]), &in); return in.CustomID }())
	withContent := ""
	for _, l := range s {
		if !strings.Contains(l, `"content":null`) {
			withContent = strings.Replace(l, ":0\"", "\"", 1)
			break
		}
	}
	other := sp.Row(&sp.Items[saja.Repeats]).Key // criterion 1 of the first call: not the call's first
	tests := []struct {
		name, in, want string
	}{
		{"malformed id", g[0] + "\n" + replace(g[1], gid.key, "xyz"), `out.jsonl:2:1: custom_id: "geval:xyz:0:1/3" is not a rubric call's id`},
		{"duplicate", g[0] + "\n" + g[1] + "\n" + g[1], `out.jsonl:3:1: custom_id: "geval:` + gid.key + `:0:1/3" appears twice (first on line 2)`},
		{"other N", g[0] + "\n" + replace(g[1], ":1/3", ":1/4"), "out.jsonl:2:1: custom_id: \"geval:" + gid.key + ":0:1/4\": 4 samples, but line 1 of the same request says 3 samples"},
		{"unknown key", replace(g[0], gid.key, strings.Repeat("ab", 32)), `out.jsonl:1:1: custom_id: "geval:` + strings.Repeat("ab", 32) + `:0:0/3": matches no exported request`},
		{"another N than exported", strings.Join([]string{replace(g[0], ":0/3", ":0/2"), replace(g[1], ":1/3", ":1/2")}, "\n"), "no longer has this key: the dataset's texts or the rubric or the sample count (2) differ"},
		{"expected form of a sampled study", replace(g[0], ":0/3", ""), "judge \"srv\" scores in integer mode: its G-Eval lines are geval:KEY:RUN:S/N"},
		{"saja id of a geval key", replace(g[0], "geval:"+gid.key+":0:0/3", "saja:"+gid.key+":0"), "names a saja call, but its key is a rating of geval rubric geval-summeval"},
		{"bank key", replace(s[0], sid.key, bp.Row(&bp.Items[0]).Key), "is a request of bank quality"},
		{"not the lead", replace(s[0], sid.key, other), "a SAJA call is named by its first criterion's (accuracy)"},
		{"bare key of a rubric rating", replace(withContent, "saja:", ""), "out.jsonl:1:1: custom_id: its key is a rating of rubric saja-broad"},
		{"good line then a bad one", s[0] + "\n" + g[0] + "\n" + replace(g[1], gid.key, strings.Repeat("ab", 32)), "out.jsonl:3:1: custom_id:"},
	}
	for _, tc := range tests {
		_, err := ImportBatch(ctx, st, strings.NewReader(tc.in+"\n"), "out.jsonl")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v\nwant %q", tc.name, err, tc.want)
		}
	}
	for _, h := range []string{gp.BankHash, sp.BankHash} {
		if f, _ := st.Failures(ctx, d.Name, "srv"); len(f) != 0 {
			t.Errorf("a refused import stored failures %v", f)
		}
		if rows, _ := st.Scores(ctx, d.Name, "srv", h); len(rows) != 0 {
			t.Errorf("a refused import stored %d rows", len(rows))
		}
	}
}
