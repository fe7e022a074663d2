package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/judge/openai"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
)

// Batch lines of rubric studies (docs/engine.md, "prism batch"; docs/rubrics.md).
//
// A line is one judge call, named by a custom_id that says which call it
// is and of what kind:
//
//	saja:KEY:RUN         a SAJA call; KEY is the request key of its first criterion's rating
//	geval:KEY:RUN        a G-Eval request in expected mode (one call, read by its logprobs)
//	geval:KEY:RUN:S/N    sample S (0…N-1) of a sampled G-Eval request of N samples
//
// A bank request's custom_id is its hex key (CustomID), so the prefixes
// never collide with it. Import checks every id against the workspace: the
// key must be a recorded rating of a rubric study of that kind, its judge's
// mode must match the id's form, and the request rendered again from the
// stored dataset and rubric snapshot, under the judge's parameters and the
// id's N, must have that key (so an N, a dataset or a rubric that differ
// from the export's are refused, not stored under the wrong key).

const (
	sajaIDPrefix  = banks.RubricSAJA + ":"
	gevalIDPrefix = banks.RubricGEval + ":"
)

// KindIncomplete is the error kind stored for a sampled G-Eval request
// whose batch output lacks some of its N samples: it is not scored from
// fewer samples, and stays pending.
const KindIncomplete = "incomplete"

// RubricCustomID names one call of a rubric study in a batch file: kind is
// banks.RubricSAJA or banks.RubricGEval, key and run the request key and
// run label of the call's (first) rating; samples is N for a sampled
// G-Eval request (sample its index, 0…N-1) and 0 for a one-call request.
func RubricCustomID(kind, key, run string, sample, samples int) string {
	id := kind + ":" + key + ":" + run
	if samples > 0 {
		id += ":" + strconv.Itoa(sample) + "/" + strconv.Itoa(samples)
	}
	return id
}

func isRubricID(id string) bool {
	return strings.HasPrefix(id, sajaIDPrefix) || strings.HasPrefix(id, gevalIDPrefix)
}

// rubricID is a parsed RubricCustomID.
type rubricID struct {
	kind, key, run  string
	sample, samples int
}

// parseRubricID inverts RubricCustomID, accepting only what it writes.
func parseRubricID(id string) (rubricID, error) {
	bad := func(why string) (rubricID, error) {
		return rubricID{}, fmt.Errorf("%q is not a rubric call's id (%s; want saja:KEY:RUN, geval:KEY:RUN or geval:KEY:RUN:SAMPLE/N)", id, why)
	}
	kind, rest, _ := strings.Cut(id, ":")
	parts := strings.Split(rest, ":")
	out := rubricID{kind: kind}
	switch {
	case len(parts) == 2:
	case len(parts) == 3 && kind == banks.RubricGEval:
	default:
		return bad("wrong number of fields")
	}
	out.key, out.run = parts[0], parts[1]
	if len(out.key) != 64 || strings.Trim(out.key, "0123456789abcdef") != "" {
		return bad("the key is not a request key")
	}
	if _, ok := decimal(out.run); !ok {
		return bad("the run is not a run label")
	}
	if len(parts) == 3 {
		s, n, found := strings.Cut(parts[2], "/")
		var ok1, ok2 bool
		out.sample, ok1 = decimal(s)
		out.samples, ok2 = decimal(n)
		if !found || !ok1 || !ok2 || out.samples < 1 || out.sample >= out.samples {
			return bad("the sample is not S/N with 0 ≤ S < N")
		}
	}
	return out, nil
}

// decimal reads a non-negative integer written as strconv.Itoa writes it.
func decimal(s string) (int, bool) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || strconv.Itoa(n) != s || n > 1<<30 {
		return 0, false
	}
	return n, true
}

// exportRubric emits a rubric plan's calls (Plan.Sends) of opts' shard:
// each body is what the live openai client sends for that call of that
// run (openai.RequestBody under SendConfig and the run's seed), N lines
// for a sampled G-Eval request. It returns the ratings the calls answer,
// to record.
func (p *Plan) exportRubric(opts ExportOptions, emit func(id string, body []byte) error) ([]store.Request, error) {
	cfg := p.SendConfig()
	n := p.samples()
	kind := p.Spec.Rubric.Kind
	named := 0 // N in the id: sampled G-Eval only
	if kind == banks.RubricGEval && cfg.Mode != judge.ModeExpected {
		named = n
	}
	var rows []store.Request
	for _, lead := range p.Sends {
		it := &p.Items[lead]
		run := strconv.Itoa(int(it.Run))
		if !opts.inShard(it.Key(), run) {
			continue
		}
		req, err := p.Request(lead)
		if err != nil {
			return nil, err
		}
		rc := runConfig(cfg, int(it.Run), n)
		for s := range n {
			body, err := openai.RequestBody(rc, req, s)
			if err != nil {
				row := p.Row(it)
				return nil, fmt.Errorf("engine: %s/%s %s: %w", row.Context, row.Candidate, row.Probe, err)
			}
			if err := emit(RubricCustomID(kind, it.Key(), run, s, named), body); err != nil {
				return nil, err
			}
		}
		for _, k := range p.members(lead) {
			rows = append(rows, p.Row(&p.Items[k]))
		}
	}
	return rows, nil
}

// rubricCall is the lines of one call (or sampled request) in a batch
// output: by sample index, nil where a sample has no line.
type rubricCall struct {
	id      rubricID
	first   int    // the line that named it first
	firstID string // and its custom_id
	lines   []*BatchOutcome
}

// importRubric turns a batch output's rubric lines into the responses a
// live run would store (docs/rubrics.md): each reply read by
// openai.ReadReply, the samples of a call gathered into a judge.Result
// and finished as the client's Score does, and stored per rating by
// cellResponse (a SAJA call's criteria: answers, missing cells, or the
// failure of every criterion; a G-Eval request: its mean, the raw JSON
// array of its N replies). A sampled G-Eval request is scored only when
// all its N samples came back: with a sample absent or failed (which a
// live run would have retried) it is stored as a failure and stays
// pending. Only ratings still pending in the workspace are stored.
//
// Errors (nothing is stored) name the file and line: an id that is not a
// rubric call's, one that appears twice, samples of one request that
// disagree on N, an id matching no recorded request, or one whose
// request is not a rubric call of that kind and mode, or no longer
// renders to its key.
func importRubric(ctx context.Context, st *store.Store, file string, outs []BatchOutcome, stats *ImportStats) ([]store.Response, error) {
	order, err := rubricCalls(file, outs)
	if err != nil {
		return nil, err
	}
	stats.Lines += len(outs)
	studies := map[[3]string]*rubricStudy{}
	var rs []store.Response
	for _, c := range order {
		at := func(err error) error {
			return fmt.Errorf("%s:%d:1: custom_id: %q: %w", file, c.first, c.firstID, err)
		}
		rows, err := st.RequestsByKey(ctx, c.id.key, c.id.run)
		if err != nil {
			return nil, err
		}
		if len(rows) == 0 {
			return nil, at(errors.New("matches no exported request in this workspace (export with prism batch export first)"))
		}
		for _, row := range rows {
			sk := [3]string{row.Judge, row.Dataset, row.BankHash}
			s := studies[sk]
			if s == nil {
				if s, err = loadRubricStudy(ctx, st, row); err != nil {
					return nil, at(err)
				}
				studies[sk] = s
			}
			req, ratings, err := s.resolve(row, c.id)
			if err != nil {
				return nil, at(err)
			}
			resps, err := s.importCall(ctx, st, req, ratings, c, stats)
			if err != nil {
				return nil, err
			}
			rs = append(rs, resps...)
		}
	}
	return rs, nil
}

// rubricCalls groups the lines of outs by the call they answer (a G-Eval
// request's N samples are N lines), in the order of their first lines,
// refusing a custom_id twice or a call whose lines disagree on N.
func rubricCalls(file string, outs []BatchOutcome) ([]*rubricCall, error) {
	type callKey struct{ kind, key, run string }
	seen := map[string]int{}
	calls := map[callKey]*rubricCall{}
	var order []*rubricCall
	for i := range outs {
		oc := &outs[i]
		at := func(format string, args ...any) error {
			return fmt.Errorf("%s:%d:1: custom_id: %s", file, oc.Line, fmt.Sprintf(format, args...))
		}
		id, err := parseRubricID(oc.CustomID)
		if err != nil {
			return nil, at("%v", err)
		}
		if l, ok := seen[oc.CustomID]; ok {
			return nil, at("%q appears twice (first on line %d): a batch answers each call once", oc.CustomID, l)
		}
		seen[oc.CustomID] = oc.Line
		ck := callKey{id.kind, id.key, id.run}
		c := calls[ck]
		if c == nil {
			c = &rubricCall{id: id, first: oc.Line, firstID: oc.CustomID, lines: make([]*BatchOutcome, max(1, id.samples))}
			calls[ck] = c
			order = append(order, c)
		}
		if c.id.samples != id.samples {
			return nil, at("%q: %s, but line %d of the same request says %s", oc.CustomID, samplesText(id.samples), c.first, samplesText(c.id.samples))
		}
		c.lines[id.sample] = oc
	}
	return order, nil
}

// importCall is the responses call c gives the ratings of its request
// (resolve) still pending in the workspace, counted in stats.
func (s *rubricStudy) importCall(ctx context.Context, st *store.Store, req banks.Request, ratings []store.Request, c *rubricCall, stats *ImportStats) ([]store.Response, error) {
	pending, err := st.Pending(ctx, ratings)
	if err != nil {
		return nil, err
	}
	stats.Skipped += len(ratings) - len(pending)
	if len(pending) == 0 {
		return nil, nil
	}
	resps, whole := s.responses(req, ratings, pending, c)
	if !whole {
		stats.Incomplete++
	}
	for _, r := range resps {
		countResponse(r.ErrKind, r.Score, &stats.Answered, &stats.Missing, &stats.Failed, stats.Errors)
	}
	return resps, nil
}

func samplesText(n int) string {
	if n == 0 {
		return "one call"
	}
	return strconv.Itoa(n) + " samples"
}

// rubricStudy is what importRubric needs of one (judge, dataset, rubric)
// study to check and read its lines.
type rubricStudy struct {
	rubric  *banks.Rubric
	judge   store.Judge
	mode    judge.Mode
	dataset *model.Dataset
	where   map[[2]string][2]int // context and candidate ID → indices
	tasks   []string             // the dataset's task first, then the rubric's others
	rends   map[string]*banks.RubricRenderer
	keyers  map[int]*store.Keyer // by the request's samples
}

func loadRubricStudy(ctx context.Context, st *store.Store, row store.Request) (*rubricStudy, error) {
	snap, err := st.Bank(ctx, row.BankHash)
	if err != nil {
		return nil, err
	}
	if !snap.IsRubric() {
		return nil, fmt.Errorf("its key is a request of bank %s (%s), not a rubric call: a bank request's custom_id is its key (KEY or KEY:RUN)", snap.Name, model.ShortHash(row.BankHash))
	}
	r, err := banks.ParseRubric([]byte(snap.Text), "rubric "+model.ShortHash(row.BankHash))
	if err != nil {
		return nil, err
	}
	j, err := st.Judge(ctx, row.Judge)
	if err != nil {
		return nil, err
	}
	d, err := st.Dataset(ctx, row.Dataset)
	if err != nil {
		return nil, err
	}
	s := &rubricStudy{rubric: r, judge: j, mode: judge.ModeInteger, dataset: d, where: map[[2]string][2]int{},
		rends: map[string]*banks.RubricRenderer{}, keyers: map[int]*store.Keyer{}}
	if m, _ := j.Params["mode"].(string); m != "" {
		s.mode = judge.Mode(m)
	}
	for ci, c := range d.Contexts {
		for ki, cand := range c.Candidates {
			s.where[[2]string{c.ID, cand.ID}] = [2]int{ci, ki}
		}
	}
	if _, ok := r.Tasks[d.Task]; ok {
		s.tasks = append(s.tasks, d.Task)
	}
	for _, t := range r.TaskNames() {
		if t != d.Task {
			s.tasks = append(s.tasks, t)
		}
	}
	return s, nil
}

// sampled reports whether the study's G-Eval requests are sampled (not
// read by logprobs).
func (s *rubricStudy) sampled() bool {
	return s.rubric.Kind == banks.RubricGEval && s.mode != judge.ModeExpected
}

// keyer keys the study's requests of n samples: the stored judge's
// parameters as the plan's rubricKeyParams makes them from SendConfig.
func (s *rubricStudy) keyer(n int) (*store.Keyer, error) {
	if k, ok := s.keyers[n]; ok {
		return k, nil
	}
	params := maps.Clone(s.judge.Params)
	if params == nil {
		params = map[string]any{}
	}
	if s.sampled() {
		params["temperature"], params["top_p"] = 1.0, 1.0
	}
	params["rubric"] = s.rubric.Kind
	if s.rubric.Kind == banks.RubricGEval {
		params["samples"] = n
	}
	k, err := store.NewKeyer(s.judge.Backend, s.judge.Model, params)
	if err != nil {
		return nil, err
	}
	s.keyers[n] = k
	return k, nil
}

func (s *rubricStudy) renderer(task string) (*banks.RubricRenderer, error) {
	if rr, ok := s.rends[task]; ok {
		return rr, nil
	}
	rr, err := s.rubric.Renderer(task)
	if err != nil {
		return nil, err
	}
	s.rends[task] = rr
	return rr, nil
}

// resolve checks that row, found by id's key, is the rating id names, and
// returns the request the call sent and the ratings it answers (a SAJA
// call's every criterion, in rubric order; a G-Eval request's one).
func (s *rubricStudy) resolve(row store.Request, id rubricID) (banks.Request, []store.Request, error) {
	r := s.rubric
	if r.Kind != id.kind {
		return banks.Request{}, nil, fmt.Errorf("names a %s call, but its key is a rating of %s rubric %s", id.kind, r.Kind, r.Name)
	}
	name, crit, ok := model.SplitRubricProbe(row.Probe)
	if !ok || name != r.Name {
		return banks.Request{}, nil, fmt.Errorf("its key is a rating of probe %q, not of rubric %s", row.Probe, r.Name)
	}
	if r.Kind == banks.RubricSAJA && crit != r.Criteria[0].Name {
		return banks.Request{}, nil, fmt.Errorf("its key is the rating of criterion %s: a SAJA call is named by its first criterion's (%s)", crit, r.Criteria[0].Name)
	}
	if r.Kind == banks.RubricGEval && s.sampled() != (id.samples > 0) {
		want := "geval:KEY:RUN (one call read by its logprobs)"
		if s.sampled() {
			want = "geval:KEY:RUN:S/N (N sampled calls)"
		}
		return banks.Request{}, nil, fmt.Errorf("judge %q scores in %s mode: its G-Eval lines are %s", row.Judge, s.mode, want)
	}
	pos, ok := s.where[[2]string{row.Context, row.Candidate}]
	if !ok {
		return banks.Request{}, nil, fmt.Errorf("candidate %s/%s is no longer in dataset %q", row.Context, row.Candidate, row.Dataset)
	}
	c := s.dataset.Contexts[pos[0]]
	cand := c.Candidates[pos[1]]
	k, err := s.keyer(max(1, id.samples))
	if err != nil {
		return banks.Request{}, nil, err
	}
	for _, task := range s.tasks {
		rr, err := s.renderer(task)
		if err != nil {
			return banks.Request{}, nil, err
		}
		if r.Kind == banks.RubricGEval {
			req, err := rr.RenderCriterion(c, cand, crit)
			if err != nil {
				return banks.Request{}, nil, err
			}
			if k.Key(storeMessages(req.Messages, "")) == row.Key {
				return req, []store.Request{row}, nil
			}
			continue
		}
		req := rr.Render(c, cand)[0]
		if k.Key(storeMessages(req.Messages, crit)) != row.Key {
			continue
		}
		ratings := make([]store.Request, len(r.Criteria))
		for i, cr := range r.Criteria {
			q := row
			q.Key, q.Probe = k.Key(storeMessages(req.Messages, cr.Name)), model.RubricProbe(r.Name, cr.Name)
			ratings[i] = q
		}
		return req, ratings, nil
	}
	what := "the dataset's texts or the rubric"
	if id.samples > 0 {
		what += fmt.Sprintf(" or the sample count (%d)", id.samples)
	}
	return banks.Request{}, nil, fmt.Errorf("the request of %s/%s %s no longer has this key: %s differ from the export's", row.Context, row.Candidate, row.Probe, what)
}

// storeMessages are a request's messages as keyed, with a SAJA rating's
// criterion appended (newRubricPlan).
func storeMessages(ms []banks.Message, criterion string) []store.Message {
	out := make([]store.Message, 0, len(ms)+1)
	for _, m := range ms {
		out = append(out, store.Message(m))
	}
	if criterion != "" {
		out = append(out, store.Message{Role: "criterion", Content: criterion})
	}
	return out
}

// responses are the responses of the pending ratings (a subsequence of
// ratings) that the call's lines make, as a live run makes them; whole is
// false for a sampled request without all its answers (incomplete).
func (s *rubricStudy) responses(req banks.Request, ratings, pending []store.Request, c *rubricCall) (resps []store.Response, whole bool) {
	part := map[string]int{}
	for i, q := range ratings {
		part[q.Probe] = i
	}
	if c.id.samples > 0 {
		if resp, ok := incomplete(pending[0], c); !ok {
			return []store.Response{resp}, false
		}
	}
	cfg := judge.Config{Mode: s.mode}
	res := judge.Result{Samples: make([]judge.Sample, len(c.lines))}
	for i, oc := range c.lines {
		res.Samples[i] = sampleOf(cfg, req, oc)
	}
	// As the client's Score: the samples finished into the result.
	var err error
	if ferr := res.Finish(judge.ItemIDs(req)); ferr != nil {
		err = ferr
	}
	out := make([]store.Response, len(pending))
	for m, q := range pending {
		k := -1
		if s.rubric.Kind == banks.RubricSAJA {
			k = part[q.Probe]
		}
		out[m] = cellResponse(q, k, m == 0, res, err)
	}
	return out, true
}

// sampleOf is the sample a live call would have made of a batch line: a
// failed line is the sample's transport error, a reply is read by
// openai.ReadReply.
func sampleOf(cfg judge.Config, req banks.Request, oc *BatchOutcome) judge.Sample {
	if oc.ErrKind != "" {
		return judge.Sample{Attempts: 1, Err: &judge.Error{Kind: judge.ErrorKind(oc.ErrKind), Msg: judge.SanitizeServerText(oc.Err), Attempts: 1}}
	}
	s := openai.ReadReply(cfg, req, openai.Reply{Content: oc.Raw, Refusal: oc.Refusal, FinishReason: oc.FinishReason, Logprobs: oc.Logprobs})
	s.PromptTokens, s.CachedPromptTokens, s.CompletionTokens, s.Attempts = oc.PromptTokens, oc.CachedTokens, oc.CompletionTokens, 1
	if s.Err != nil {
		s.Err.Attempts = 1
	}
	return s
}

// incomplete is the failure of a sampled G-Eval request whose lines are
// not all answers (ok false), with the tokens its lines used: a sample
// without a line (KindIncomplete), or the first failed line's kind.
func incomplete(q store.Request, c *rubricCall) (store.Response, bool) {
	resp := store.Response{Request: q, Score: math.NaN(), Time: time.Now()}
	var absent []string
	for i, oc := range c.lines {
		if oc == nil {
			absent = append(absent, strconv.Itoa(i))
			continue
		}
		resp.PromptTokens += oc.PromptTokens
		resp.CachedTokens += oc.CachedTokens
		resp.CompletionTokens += oc.CompletionTokens
		if oc.ErrKind != "" && resp.ErrKind == "" {
			resp.ErrKind = oc.ErrKind
			resp.Err = fmt.Sprintf("sample %d of %d failed in the batch (%s): the request is scored from all %d samples or not at all",
				i, len(c.lines), judge.SanitizeServerText(oc.Err), len(c.lines))
		}
	}
	if len(absent) > 0 {
		resp.ErrKind = KindIncomplete
		resp.Err = fmt.Sprintf("%d of %d samples are not in the batch output (sample %s): the request is scored from all %d samples or not at all",
			len(absent), len(c.lines), strings.Join(absent, ", "), len(c.lines))
	}
	return resp, resp.ErrKind == ""
}
