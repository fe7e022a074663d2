package engine

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/model/store"
)

// BatchURL is the endpoint every exported batch line targets.
const BatchURL = "/v1/chat/completions"

// BatchInput is one line of an OpenAI Batch input file (vLLM's run-batch
// reads the same shape).
type BatchInput struct {
	CustomID string          `json:"custom_id"`
	Method   string          `json:"method"`
	URL      string          `json:"url"`
	Body     json.RawMessage `json:"body"`
}

// CustomID names a request in a batch file: its key for run 0, and
// "KEY:RUN" for later runs (custom ids must be unique within a file, and
// the runs of one condition share a key).
func CustomID(key, run string) string {
	if run == "0" {
		return key
	}
	return key + ":" + run
}

// ParseCustomID inverts CustomID.
func ParseCustomID(id string) (key, run string) {
	if k, r, ok := strings.Cut(id, ":"); ok {
		return k, r
	}
	return id, "0"
}

// ChatBody is the chat-completions request body for run `run` of req under
// cfg, as the OpenAI-compatible client sends it: model, messages, and the
// sampling parameters that are set (seed+run when a seed is set, logprobs
// in expected mode, the response format). In batch, the auto response
// format sends the JSON schema, since a batch cannot fall back.
func ChatBody(cfg judge.Config, req banks.Request, run int) ([]byte, error) {
	body := map[string]any{"model": cfg.Model, "messages": req.Messages}
	if cfg.MaxTokens > 0 {
		body["max_tokens"] = cfg.MaxTokens
	}
	if cfg.Temperature != nil {
		body["temperature"] = *cfg.Temperature
	}
	if cfg.TopP != nil {
		body["top_p"] = *cfg.TopP
	}
	if cfg.Seed != nil {
		body["seed"] = *cfg.Seed + run
	}
	if cfg.Mode == judge.ModeExpected {
		body["logprobs"] = true
		body["top_logprobs"] = cfg.TopLogprobs
	}
	switch cfg.ResponseFormat {
	case judge.FormatAuto, judge.FormatJSONSchema:
		body["response_format"] = map[string]any{"type": "json_schema", "json_schema": map[string]any{
			"name": "score", "strict": true, "schema": map[string]any{
				"type":                 "object",
				"properties":           map[string]any{"score": map[string]any{"type": "integer", "minimum": req.Scale.Min, "maximum": req.Scale.Max}},
				"required":             []string{"score"},
				"additionalProperties": false,
			}}}
	case judge.FormatJSONObject:
		body["response_format"] = map[string]any{"type": "json_object"}
	}
	return json.Marshal(body)
}

// ExportBatch writes the plan's requests still to be sent as OpenAI Batch
// JSONL to w, in one file whatever its size, and records them in the
// workspace (ExportBatchFiles, format openai, no limits). It returns the
// number of lines written.
func ExportBatch(ctx context.Context, st *store.Store, p *Plan, w io.Writer) (int, error) {
	bw := bufio.NewWriter(w)
	res, err := ExportBatchFiles(ctx, st, p, ExportOptions{Format: FormatOpenAI, MaxLines: -1, MaxBytes: -1},
		func(part int) (io.Writer, error) {
			if part > 0 {
				return nil, errors.New("engine: ExportBatch writes one file")
			}
			return bw, nil
		})
	return res.Lines, err
}

// ExportBatchFiles writes the plan's requests still to be sent (of shard
// opts.Shard of opts.Shards) as batch files in opts.Format, a new part
// (open(1), open(2), …) whenever the next line would pass opts.MaxLines
// or opts.MaxBytes, and records them in the workspace (with the judge and
// bank snapshot, and the short ids of an Anthropic file) so that
// ImportBatch can match the output back. Answers to identical messages
// already in the workspace are stored at once instead of exported. The
// workspace records the requests only once every part is written.
//
// A rubric plan's lines are its calls (Plan.Sends), each with the body
// the live openai client sends for it (openai.RequestBody) and a
// custom_id RubricCustomID names: one line per SAJA call or G-Eval
// request in expected mode, N lines (one per sample) per sampled G-Eval
// request.
func ExportBatchFiles(ctx context.Context, st *store.Store, p *Plan, opts ExportOptions, open func(part int) (io.Writer, error)) (ExportResult, error) {
	if p.IsBatched() {
		// One line would answer a context's candidates at once; the
		// import reads one score per line.
		return ExportResult{}, errors.New("engine: a listwise study (Spec.Orders) cannot go through a batch file yet; use prism run --listwise")
	}
	f, err := opts.resolve(p.SendConfig())
	if err != nil {
		return ExportResult{}, err
	}
	if _, err := st.PutJudge(ctx, p.Judge); err != nil {
		return ExportResult{}, err
	}
	snap, err := p.snapshot()
	if err != nil {
		return ExportResult{}, err
	}
	if err := st.PutBank(ctx, snap); err != nil {
		return ExportResult{}, err
	}
	// The batch file acquires the study as prism run would: its plan is
	// the study's (store.PlanStudy).
	if err := st.PlanStudy(ctx, p.StudyPlan()); err != nil {
		return ExportResult{}, err
	}
	var cached []store.Response
	for _, i := range p.Pending {
		if resp, ok := p.Cached[i]; ok {
			resp.Time = time.Now()
			cached = append(cached, resp)
		}
	}
	rows, res, err := p.exportParts(opts, f, open)
	if err != nil {
		return res, err
	}
	if len(f.shortIDs) > 0 {
		if err := st.PutBatchIDs(ctx, f.shortIDs); err != nil {
			return res, err
		}
	}
	if err := st.PutRequests(ctx, rows); err != nil {
		return res, err
	}
	return res, st.PutResponses(ctx, cached)
}

// exportParts writes the lines of the plan's calls in format f to the
// parts open makes (split by opts' limits), leaving out those opts.Held
// holds, and returns the rows the lines answer.
func (p *Plan) exportParts(opts ExportOptions, f *lineFormat, open func(part int) (io.Writer, error)) ([]store.Request, ExportResult, error) {
	sw := &splitWriter{open: open, maxLines: opts.MaxLines, maxBytes: opts.MaxBytes}
	var ids [][]string
	held := 0
	rows, err := p.exportLines(opts, func(id string, body []byte) error {
		if opts.Held != nil && opts.Held(id) {
			held++
			return nil
		}
		line, err := f.line(id, body)
		if err != nil {
			return fmt.Errorf("engine: %s: %w", id, err)
		}
		if err := sw.write(line); err != nil {
			return err
		}
		for len(ids) < len(sw.parts) {
			ids = append(ids, nil)
		}
		ids[len(sw.parts)-1] = append(ids[len(sw.parts)-1], id)
		return nil
	})
	if err == nil {
		err = sw.close()
	}
	for len(ids) < len(sw.parts) {
		ids = append(ids, nil)
	}
	return rows, ExportResult{Lines: sw.total, Parts: sw.parts, IDs: ids, Held: held}, err
}

// exportLines calls emit with the custom_id and chat-completions body of
// every call of the plan's shard, and returns the rows the calls answer.
// One line per call: requests byte for byte another's (the same summary
// twice in a document) share its line, and its answer is stored for each
// of them on import (their rows have its key).
func (p *Plan) exportLines(opts ExportOptions, emit func(id string, body []byte) error) ([]store.Request, error) {
	if p.rubric != nil {
		return p.exportRubric(opts, emit)
	}
	var rows []store.Request
	for _, i := range p.Sends {
		it := &p.Items[i]
		row := p.Row(it)
		if !opts.inShard(row.Key, row.Run) {
			continue
		}
		req, err := p.Request(i)
		if err != nil {
			return nil, err
		}
		body, err := ChatBody(p.Spec.Config, req, int(it.Run))
		if err != nil {
			return nil, err
		}
		if err := emit(CustomID(row.Key, row.Run), body); err != nil {
			return nil, err
		}
		for _, k := range p.members(i) {
			rows = append(rows, p.Row(&p.Items[k]))
		}
	}
	return rows, nil
}

// ImportStats counts what ImportBatch stored. A bank request's line
// counts once in Answered or Failed; a rubric call's lines count each
// rating they store (every criterion of a SAJA call).
type ImportStats struct {
	Lines    int            // outcomes read
	Answered int            // answers stored
	Failed   int            // failures stored
	Errors   map[string]int // failures by kind

	// UsageEstimated counts the lines whose token usage was implausible
	// and replaced (BatchOutcome.UsageNote).
	UsageEstimated int

	// Rubric calls only (docs/rubrics.md): Missing counts the answers
	// stored without a score (SAJA missing cells, among Answered);
	// Incomplete the sampled G-Eval requests whose N samples were not all
	// answered in the file (stored as failures of kind KindIncomplete or
	// of their failed sample's kind, among Failed); Skipped the ratings
	// already answered in the workspace, left as they are.
	Missing, Incomplete, Skipped int
}

// ImportBatch reads a batch output file and stores every outcome at the
// coordinates its custom_id was exported with (ExportBatch); answers are
// scored with the scale of the request's bank and dataset task and the
// mode of its judge. A custom_id that no exported request has, or one that
// appears on two lines, is an error naming the line(s); nothing is stored
// unless the whole file reads.
//
// A rubric call's lines (RubricCustomID) are read as the live openai
// client reads its replies and stored as a live run stores them
// (importRubric).
func ImportBatch(ctx context.Context, st *store.Store, r io.Reader, file string) (ImportStats, error) {
	stats := ImportStats{Errors: map[string]int{}}
	im := &batchImport{ctx: ctx, st: st, rowsOf: map[string][]store.Request{}, scales: map[scaleGroup]banks.Scale{}, modes: map[string]judge.Mode{}}
	short := shortIDs(func(s string) (string, bool, error) { return st.BatchID(ctx, s) })
	outs, err := parseBatchLines(r, file, short, func(oc *BatchOutcome) error {
		if isRubricID(oc.CustomID) {
			return nil // read by importRubric, with the rubric's parsers
		}
		sc, mode, err := im.lookup(oc.CustomID)
		if err != nil {
			return err
		}
		scoreOutcome(oc, oc.Refusal, oc.FinishReason, sc, mode)
		return nil
	})
	if err != nil {
		return stats, err
	}
	rs, rubric, err := im.responses(outs, file, &stats)
	if err != nil {
		return stats, err
	}
	if len(rubric) > 0 {
		more, err := importRubric(ctx, st, file, rubric, &stats)
		if err != nil {
			return stats, err
		}
		rs = append(rs, more...)
	}
	return stats, st.PutResponses(ctx, rs)
}

// batchImport is what ImportBatch reads of the workspace once for every
// line: each custom_id's requests, each study's scale, each judge's mode.
type batchImport struct {
	ctx    context.Context
	st     *store.Store
	rowsOf map[string][]store.Request
	scales map[scaleGroup]banks.Scale
	modes  map[string]judge.Mode
}

type scaleGroup struct{ judge, dataset, bank string }

// lookup is the scale and the judge's mode a custom_id's answer is read
// with.
func (im *batchImport) lookup(id string) (banks.Scale, judge.Mode, error) {
	ctx, st := im.ctx, im.st
	rows, err := requestsFor(ctx, st, im.rowsOf, id)
	if err != nil {
		return banks.Scale{}, "", err
	}
	q := rows[0]
	g := scaleGroup{q.Judge, q.Dataset, q.BankHash}
	sc, ok := im.scales[g]
	if !ok {
		if sc, err = taskScale(ctx, st, q.Dataset, q.BankHash); err != nil {
			return banks.Scale{}, "", err
		}
		im.scales[g] = sc
	}
	mode, ok := im.modes[q.Judge]
	if !ok {
		j, err := st.Judge(ctx, q.Judge)
		if err != nil {
			return banks.Scale{}, "", err
		}
		mode = judge.ModeInteger
		if m, _ := j.Params["mode"].(string); m != "" {
			mode = judge.Mode(m)
		}
		im.modes[q.Judge] = mode
	}
	return sc, mode, nil
}

// responses are the responses of the bank requests' lines of outs, at
// their requests' coordinates, counted in stats; the rubric calls' lines
// are returned for importRubric.
func (im *batchImport) responses(outs []BatchOutcome, file string, stats *ImportStats) (rs []store.Response, rubric []BatchOutcome, err error) {
	now := time.Now()
	// A batch answers each request once: two lines with one custom_id
	// would store one answer over the other, so the file is refused.
	seen := map[string]int{}
	for _, oc := range outs {
		if isRubricID(oc.CustomID) {
			rubric = append(rubric, oc)
			continue
		}
		if l, ok := seen[oc.CustomID]; ok {
			return nil, nil, fmt.Errorf("%s:%d:1: custom_id: %q appears twice (first on line %d): a batch answers each request once; nothing was stored", file, oc.Line, oc.CustomID, l)
		}
		seen[oc.CustomID] = oc.Line
		rows, err := requestsFor(im.ctx, im.st, im.rowsOf, oc.CustomID)
		if err != nil {
			return nil, nil, fmt.Errorf("%s:%d:1: custom_id: %w", file, oc.Line, err)
		}
		stats.Lines++
		if oc.UsageNote != "" {
			stats.UsageEstimated++
		}
		var lp json.RawMessage
		if len(oc.Logprobs) > 0 {
			lp, _ = json.Marshal(oc.Logprobs)
		}
		for _, q := range rows {
			rs = append(rs, store.Response{Request: q, Raw: oc.Raw, Score: oc.Score, Logprobs: lp,
				PromptTokens: oc.PromptTokens, CachedTokens: oc.CachedTokens, CompletionTokens: oc.CompletionTokens,
				ErrKind: oc.ErrKind, Err: oc.Err, Time: now})
		}
		// A bank request's line: Missing counts rubric answers only.
		countResponse(oc.ErrKind, oc.Score, &stats.Answered, nil, &stats.Failed, stats.Errors)
	}
	return rs, rubric, nil
}

func requestsFor(ctx context.Context, st *store.Store, cache map[string][]store.Request, id string) ([]store.Request, error) {
	if rows, ok := cache[id]; ok {
		return rows, nil
	}
	key, run := ParseCustomID(id)
	rows, err := st.RequestsByKey(ctx, key, run)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%q matches no exported request in this workspace (export with prism batch export first)", id)
	}
	cache[id] = rows
	return rows, nil
}

// taskScale is the score scale of the dataset's task in a stored bank
// snapshot.
func taskScale(ctx context.Context, st *store.Store, dataset, bankHash string) (banks.Scale, error) {
	snap, err := st.Bank(ctx, bankHash)
	if err != nil {
		return banks.Scale{}, err
	}
	if snap.IsRubric() {
		return banks.Scale{}, fmt.Errorf("its key is a rating of rubric %s: a rubric call's line is named saja:KEY:RUN, geval:KEY:RUN or geval:KEY:RUN:S/N", snap.Name)
	}
	b, err := banks.Parse([]byte(snap.Text), "bank "+bankHash)
	if err != nil {
		return banks.Scale{}, err
	}
	d, err := st.Dataset(ctx, dataset)
	if err != nil {
		return banks.Scale{}, err
	}
	t, ok := b.Tasks[d.Task]
	if !ok {
		return banks.Scale{}, errors.New("bank " + bankHash + " has no task " + strconv.Quote(d.Task))
	}
	return t.Scale, nil
}

// maxBatchPromptBytes bounds the prompt a batch line can have answered:
// its request is not at hand when the output is read, so a prompt count
// is checked against the largest request prism sends.
const maxBatchPromptBytes = 1 << 22

// checkUsage replaces implausible token counts of a batch output line
// (negative, or beyond any request's size) as the online client does
// (judge.CheckUsage): the prompt by 0 (its request is not read here),
// the completion by an estimate from the reply.
func (oc *BatchOutcome) checkUsage() {
	u := judge.Usage{Prompt: oc.PromptTokens, CachedPrompt: oc.CachedTokens, Completion: oc.CompletionTokens}
	est := judge.Usage{Completion: judge.EstimateCompletionTokens(oc.Raw)}
	u, oc.UsageNote = judge.CheckUsage(u, maxBatchPromptBytes, est)
	oc.PromptTokens, oc.CachedTokens, oc.CompletionTokens = u.Prompt, u.CachedPrompt, u.Completion
}
