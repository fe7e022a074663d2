package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
)

// Spec is one study to acquire: every candidate of Dataset under every
// condition of Bank, Repeats times, answered by the judge Config describes
// and stored under JudgeName.
type Spec struct {
	Dataset *model.Dataset // already stored in the workspace under Dataset.Name
	// DatasetRev is the revision Dataset was read at (store.DatasetAt);
	// 0: NewPlan reads the current one.
	DatasetRev int64
	Bank       *banks.Bank
	BankSource string // where the bank came from ("builtin:quality" or a file), stored with its snapshot
	// Rubric, when set instead of Bank, makes the study a rubric
	// baseline's (docs/rubrics.md): one SAJA call per candidate, or one
	// G-Eval call per criterion per candidate, each criterion's rating
	// stored as its own score under model.RubricProbe. The rubric's hash
	// plays the bank hash's part; its snapshot is stored with source
	// store.RubricSourcePrefix + RubricSource.
	Rubric       *banks.Rubric
	RubricSource string // "builtin:saja-broad" or the file it came from
	// Samples is G-Eval's N in integer mode: each G-Eval request's score is
	// the mean of N sampled ratings, at temperature 1 and top_p 1 whatever
	// the config says (0: DefaultGEvalSamples). In expected mode a
	// G-Eval request is one call whose logprobs give the weighted mean.
	Samples int
	// Probes, when not nil, limits the study to the bank's conditions of
	// these probes ("baseline", "ATTR:+", "ATTR:-", "neutral:NAME",
	// "ctx:NAME"; every wording of each): prism score asks only what a
	// calibrator reads. The answers are stored under the full bank's hash,
	// so they are the same study as prism run's and answers already
	// stored count as answered. nil: every condition of the bank.
	Probes    []string
	Task      string // task prompt of the bank; "" uses Dataset.Task
	JudgeName string // name the answers are stored under
	Config    judge.Config
	// Repeats is the number of runs per condition (≥ 1): run r is a
	// separate request stored with run label r. Config.Repeats (samples
	// averaged inside one call) is not used by the engine.
	Repeats int
	// Orders, when > 0, makes the study batched (batched.go,
	// docs/protocol.md §14): one call per context, condition, order and
	// run shows every candidate of the context in order k < Orders of
	// judge.NewOrderPlan(OrderSeed, …). 0: pointwise, one call per
	// candidate.
	Orders    int
	OrderSeed int64
	Limits    Limits
	Prices    Prices // nil: DefaultPrices
	// Latency is the assumed time of one call, for the time estimate only
	// (0: 1 s for a server, 0 for the offline simulator).
	Latency time.Duration
	// Diagnostic names the diagnostic acquiring ("screen", "diagnose
	// wording", …); "" is the study's own acquisition. Only the latter
	// sets the study's planned runs, which analyses read
	// (store.PlanStudy): a diagnostic's extra runs never join a fit.
	Diagnostic string
	// KeepRead keeps the estimate's decode of the study's answers on the
	// plan (Plan.StudyRead) for a read of its rows after it, as prism
	// score reads them: one decode for both. Otherwise it is dropped
	// once the estimate is made.
	KeepRead bool
	// Read is a decode of the study's answers made beforehand
	// (store.ReadStudy with rows), which the estimate uses when it holds
	// the study planned (StudyRead.Holds) instead of decoding it again:
	// prism score decodes it while it reads the dataset.
	Read *store.StudyRead
	// IDsOnly says Dataset holds ids and labels, not texts
	// (store.DatasetIDsAt): a plan that would render a request (a
	// candidate with something pending, a listwise or rubric study)
	// fails with ErrTextsNeeded instead, and Start refuses the plan. A
	// reader of an answered study plans on it without reading the texts.
	IDsOnly bool
}

// ErrTextsNeeded is a plan on a dataset without its texts (Spec.IDsOnly)
// that needs them: plan again on the whole dataset.
var ErrTextsNeeded = errors.New("engine: the plan needs the dataset's texts")

// DefaultJudgeName is the name answers are stored under when none is
// given: the backend (offline, or offline-VARIANT for a simulator variant)
// or the model, with "-MODE" for a mode other than integer (e.g.
// "gpt-4o-mini-expected"). prism run and the TUI's run form both name
// judges with it.
func DefaultJudgeName(cfg judge.Config) string {
	name := cfg.Backend
	switch {
	case cfg.Backend == judge.BackendOpenAI || cfg.Backend == judge.BackendAnthropic:
		name = cfg.Model
	case cfg.Model != "": // an offline variant
		name += "-" + cfg.Model
	}
	if cfg.Mode != judge.ModeInteger {
		name += "-" + string(cfg.Mode)
	}
	return name
}

// Limits bound how fast a run sends.
type Limits struct {
	Concurrency int // requests in flight at once (≤ 0: 8)
	RPM         int // requests per minute (0: unlimited)
	TPM         int // tokens per minute, charged with estimated input + output tokens (0: unlimited)
	// MaxWait caps how long one server hint (Retry-After, an exhausted
	// quota's reset) holds new requests (≤ 0: DefaultMaxWait). A run that
	// waits says why and until when (Progress.Waiting).
	MaxWait time.Duration
}

// DefaultMaxWait is the cap on one server-requested wait.
const DefaultMaxWait = 60 * time.Second

func (l Limits) maxWait() time.Duration {
	if l.MaxWait <= 0 {
		return DefaultMaxWait
	}
	return l.MaxWait
}

func (l Limits) concurrency() int {
	if l.Concurrency <= 0 {
		return 8
	}
	return l.Concurrency
}

// Item is one request of a plan: where it comes from, its key, and its
// estimated token counts; Plan.Row spells its stored coordinates. The rendered
// request is not kept (a study's messages repeat each source text dozens
// of times); Plan.Request renders it again when it is sent. An item holds
// indices and its key's 32 bytes, no strings and no pointer: 64 bytes, so
// a plan of 608,000 requests is 39 MB that the collector does not scan.
// That is why an item does not name its plan: its coordinates are read
// through the plan (Plan.Row), which the reader holds anyway.
type Item struct {
	Run       int32
	Context   int32 // index into Spec.Dataset.Contexts
	Candidate int32 // index into that context's Candidates
	InTokens  int32 // estimated prompt tokens (EstimateTokens)
	OutTokens int32 // estimated completion tokens
	// Lead is the item whose request is sent for this one: itself, except
	// in a SAJA plan, where one call per candidate and run answers every
	// criterion (the criterion's items lead to the first one's).
	Lead int32
	// Condition is the index into Spec.Bank.Conditions() (the full bank,
	// whatever Spec.Probes), or a rubric's criterion; planHead refuses
	// more than math.MaxInt16 of them.
	Condition int16
	Order     int16 // presentation order index of a listwise study (0 otherwise)
	// Part is the index of this item's rating in the call's Result.Items
	// (a SAJA criterion, or a batched call's position), or -1 when the
	// item is the call's Score.
	Part int16

	key [32]byte // store.Keyer.Sum of the messages
}

// Key is the item's request key (store.RequestKey of its messages).
func (it *Item) Key() string { return store.KeyString(it.key) }

// Row is the stored coordinates and request key of it, an item of p.
func (p *Plan) Row(it *Item) store.Request {
	c := &p.Spec.Dataset.Contexts[it.Context]
	return store.Request{Key: it.Key(), Judge: p.Spec.JudgeName, Dataset: p.Spec.Dataset.Name,
		Context: c.ID, Candidate: c.Candidates[it.Candidate].ID, BankHash: p.BankHash,
		Probe: p.probe(it), Wording: p.wordingLabel(it), Run: p.runLabel(it)}
}

// probe is an item's stored probe: its condition's, or its rubric
// criterion's model.RubricProbe.
func (p *Plan) probe(it *Item) string {
	if p.rubric != nil {
		return p.critProbes[it.Condition]
	}
	return p.conds[it.Condition].Probe
}

// wordingLabel is an item's stored wording label.
func (p *Plan) wordingLabel(it *Item) string {
	if p.rubric != nil {
		return "0"
	}
	return strconv.Itoa(p.conds[it.Condition].Wording)
}

// Plan is a study turned into requests, with what the workspace already
// holds and what the rest will cost.
type Plan struct {
	Spec     Spec
	BankHash string
	Judge    store.Judge // the judge row the answers are stored under (no key)
	Items    []Item      // every request, in send order: all conditions and runs of one candidate together
	// Pending indexes Items with no answer at their coordinates; of those,
	// Cached maps an index to an answer recorded elsewhere for identical
	// messages (same key and run), which the run stores without sending.
	Pending  []int
	Cached   map[int]store.Response
	Estimate Estimate
	// DatasetRev is the stored revision of Spec.Dataset the plan was made
	// from (Spec.DatasetRev, else read by NewPlan); the run refuses to
	// start when the stored dataset is another one.
	DatasetRev int64

	// Sends lists, in send order, the items whose requests the run sends
	// (the leads of the pending items not answered from the cache).
	Sends []int

	render  *banks.Renderer
	conds   []banks.Condition // every condition of the bank
	planned []int             // indices into conds of the conditions planned (Spec.Probes)

	rubric     *banks.RubricRenderer // a rubric plan's renderer (nil for a bank's)
	critProbes []string              // a rubric plan's stored probe of each criterion
	// group maps a SAJA call's lead to its pending items not answered from
	// the cache, in criterion order (nil: every item is its own call).
	group map[int][]int

	orders []judge.OrderPlan // a batched plan's order plan of each context

	streamed bool // the items are made while the plan runs (NewRunPlan)
	// read is EstimatePlan's decode of the study's answers (nil when it
	// read none); Start drops it, since the run writes the study.
	read  *store.StudyRead
	chunk int // items per chunk of a streamed plan (0: streamChunk; tests set fewer)
}

// StudyRead is the decode of the study's answers the plan's estimate
// read (store.ReadStudy), for a read of its rows without decoding them
// again (store.ScanCandidates); nil when it read none or the plan was started.
func (p *Plan) StudyRead() *store.StudyRead { return p.read }

// Conditions is the number of the bank's conditions the plan asks: all of
// them, or those of Spec.Probes.
func (p *Plan) Conditions() int { return len(p.planned) }

// Request renders Items[i] (the same request whose key the plan holds).
// In a SAJA plan every criterion's item renders the same request.
func (p *Plan) Request(i int) (banks.Request, error) {
	it := &p.Items[i]
	c := p.Spec.Dataset.Contexts[it.Context]
	if p.rubric != nil {
		return p.rubricRequest(it, c)
	}
	if p.orders != nil {
		return p.batchedRequest(it)
	}
	return p.render.Render(c, c.Candidates[it.Candidate], p.conds[it.Condition])
}

// members returns the items a call to lead answers and the run stores:
// lead alone, or the pending items of a SAJA call.
func (p *Plan) members(lead int) []int {
	if p.group != nil {
		return p.group[lead]
	}
	return []int{lead}
}

// wording is an item's wording index.
func (p *Plan) wording(it *Item) int {
	if p.rubric != nil {
		return 0
	}
	return p.conds[it.Condition].Wording
}

// StudyPlan is what the plan records on its study when it runs.
func (p *Plan) StudyPlan() store.StudyPlan {
	return store.StudyPlan{Dataset: p.Spec.Dataset.Name, Judge: p.Spec.JudgeName, BankHash: p.BankHash,
		Runs: max(1, p.Spec.Repeats), Requests: p.Estimate.Requests, Diagnostic: p.Spec.Diagnostic}
}

// Estimate is a plan's size and cost before anything is sent.
//
// In a rubric plan a request is one stored rating (a criterion of a
// candidate), and Send counts calls: one SAJA call answers every criterion
// of a candidate, and a G-Eval request in integer mode is Samples calls
// (Calls counts those).
type Estimate struct {
	Requests  int // every request of the study
	Answered  int // already answered at their coordinates
	CacheHits int // identical messages answered elsewhere, or sent once for several (Shared): stored, not sent
	// Shared counts, of CacheHits, the requests byte for byte another
	// request of the plan (same key and run): one call is sent for all of
	// them, and its answer (or failure) stored for each.
	Shared       int
	Send         int   // requests to send
	Calls        int   // calls to the judge those sends make (Send, or Send × Samples for G-Eval)
	InputTokens  int64 // estimated prompt tokens of the requests to send
	OutputTokens int64 // estimated completion tokens of the requests to send
	Cost         float64
	Priced       bool          // false when the model is not in the price table
	PriceModel   string        // the price-table entry used
	Time         time.Duration // at the configured limits and assumed latency
}

// EstimateTokens estimates the prompt tokens of a request as
// Σ (⌈len(content)/4⌉ + 4) over messages, + 3: the rule of thumb of about
// four characters of English per token, plus the chat format's few tokens
// per message. It is an estimate for planning and rate limiting; actual
// usage comes back with each answer.
func EstimateTokens(msgs []banks.Message) int { return judge.EstimatePromptTokens(msgs) }

// estimateTokensOf is EstimateTokens of a request whose two messages
// have these lengths (banks.Renderer.Lengths), without the messages.
func estimateTokensOf(l banks.Lengths) int {
	return 3 + (l.System+3)/4 + 4 + (l.User+3)/4 + 4
}

// outputTokens is the estimated reply: {"score": 7} is about 6 tokens; 10
// leaves room for a stray newline or fence, capped by max_tokens.
func outputTokens(cfg judge.Config) int {
	if cfg.MaxTokens > 0 && cfg.MaxTokens < 10 {
		return cfg.MaxTokens
	}
	return 10
}

// KeyParams are the judge parameters that change what is sent and so are
// part of every request key (and stored with the judge): the score mode,
// sampling parameters and, for a server, the response format. The key is
// never among them.
func KeyParams(cfg judge.Config) map[string]any {
	p := map[string]any{"mode": string(cfg.Mode)}
	if cfg.Temperature != nil {
		p["temperature"] = *cfg.Temperature
	}
	if cfg.TopP != nil {
		p["top_p"] = *cfg.TopP
	}
	if cfg.MaxTokens > 0 {
		p["max_tokens"] = cfg.MaxTokens
	}
	if cfg.Seed != nil {
		p["seed"] = *cfg.Seed
	}
	if cfg.Mode == judge.ModeExpected {
		p["top_logprobs"] = cfg.TopLogprobs
	}
	if cfg.Backend == judge.BackendOpenAI {
		p["response_format"] = cfg.ResponseFormat
	}
	return p
}

// StoredJudge is the judge row a spec's answers are stored under.
func StoredJudge(s Spec) store.Judge {
	j := store.Judge{Name: s.JudgeName, Backend: s.Config.Backend, Model: s.Config.Model, Params: KeyParams(s.Config)}
	if j.Backend == "" {
		j.Backend = judge.BackendOffline
	}
	if j.Backend == judge.BackendOpenAI {
		j.BaseURL = s.Config.BaseURL
	}
	if s.Orders > 0 {
		// A batched judge is another configuration: its answers never
		// mix with a pointwise judge's, and its order seed is kept.
		j.Params[ParamBatched] = true
		j.Params[ParamOrderSeed] = s.OrderSeed
	}
	return j
}

// priceModel is the price-table entry of a config.
func priceModel(cfg judge.Config) string {
	if cfg.Backend == judge.BackendOffline || cfg.Backend == "" {
		return "offline"
	}
	return cfg.Model
}

// MaxPlanRequests bounds the requests of one whole plan (candidates ×
// conditions × runs): 2,000,000 is 33 runs of SummEval's 1,600 candidates
// under 38 conditions, and about 0.2 GB of plan. EstimatePlan, which
// holds no request, estimates a study of any size, and a streamed plan
// (NewRunPlan) runs one.
const MaxPlanRequests = 2_000_000

// NewPlan renders every request of spec, keys it, and asks the workspace
// which are answered. It writes nothing. Errors name the spec field at
// fault.
func NewPlan(ctx context.Context, st *store.Store, spec Spec) (*Plan, error) {
	if spec.IDsOnly {
		return nil, ErrTextsNeeded // it renders every request
	}
	p, err := planHead(ctx, st, spec, true)
	if err != nil || p.rubric != nil {
		return p, err
	}
	spec = p.Spec
	if spec.Orders > 0 {
		if err := p.batchedItems(ctx, st); err != nil {
			return nil, err
		}
		return p, nil
	}
	cur, err := p.newCursor()
	if err != nil {
		return nil, err
	}
	total := int64(spec.Dataset.NumCandidates()) * int64(len(p.planned)) * int64(spec.Repeats)
	if p.Items, err = cur.next(make([]Item, 0, total), int(total)); err != nil {
		return nil, err
	}
	if err := p.resolve(ctx, st); err != nil {
		return nil, err
	}
	return p, nil
}

// planHead checks spec and returns a bank plan without items (its
// renderer and conditions set), or a rubric spec's whole plan. With
// limit, a bank study of more than MaxPlanRequests is refused.
func planHead(ctx context.Context, st *store.Store, spec Spec, limit bool) (*Plan, error) {
	spec, err := checkSpec(spec)
	if err != nil {
		return nil, err
	}
	task := spec.Task
	if task == "" {
		task = spec.Dataset.Task
	}
	if spec.Rubric != nil {
		if spec.IDsOnly {
			return nil, ErrTextsNeeded
		}
		return newRubricPlan(ctx, st, spec, task)
	}
	rend, err := spec.Bank.Renderer(task)
	if err != nil {
		return nil, fmt.Errorf("engine: bank %q: %w", spec.Bank.Name, err)
	}
	conds, planned, err := bankConditions(spec, limit)
	if err != nil {
		return nil, err
	}
	rev := spec.DatasetRev
	if rev == 0 {
		rev, err = st.DatasetRevision(ctx, spec.Dataset.Name)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, fmt.Errorf("engine: %w", err)
		}
	}
	p := &Plan{DatasetRev: rev, Spec: spec, BankHash: rend.Hash(), Judge: StoredJudge(spec), Cached: map[int]store.Response{},
		render: rend, conds: conds, planned: planned}
	return p, nil
}

// checkSpec refuses a spec that cannot be planned, naming its field, and
// fills its defaults (prices, the run's longest wait).
func checkSpec(spec Spec) (Spec, error) {
	if spec.Dataset == nil || (spec.Bank == nil) == (spec.Rubric == nil) {
		return spec, errors.New("engine: spec needs a dataset and either a bank or a rubric")
	}
	if spec.JudgeName == "" {
		return spec, errors.New("engine: spec needs a judge name")
	}
	if spec.Repeats < 1 {
		return spec, fmt.Errorf("engine: repeats: %d, want at least 1", spec.Repeats)
	}
	if spec.Orders < 0 {
		return spec, fmt.Errorf("engine: orders: %d, want 0 (pointwise) or at least 1", spec.Orders)
	}
	if spec.Orders > 0 && spec.Rubric != nil {
		return spec, errors.New("engine: orders: a rubric study is not listwise")
	}
	if spec.Prices == nil {
		spec.Prices = DefaultPrices()
	}
	if spec.Limits.MaxWait <= 0 && spec.Config.MaxRetryWait > 0 {
		// One knob: the longest server-requested wait a request retries
		// after is also the longest the whole run holds for.
		spec.Limits.MaxWait = time.Duration(spec.Config.MaxRetryWait)
	}
	// An Item keeps a condition (or criterion), order and position in
	// an int16.
	if spec.Orders > math.MaxInt16 {
		return spec, fmt.Errorf("engine: orders: %d, at most %d", spec.Orders, math.MaxInt16)
	}
	if spec.Rubric != nil {
		if n := len(spec.Rubric.Criteria); n > math.MaxInt16 {
			return spec, fmt.Errorf("engine: rubric %q: %d criteria, at most %d", spec.Rubric.Name, n, math.MaxInt16)
		}
	}
	return spec, nil
}

// bankConditions returns the bank's conditions and those of them spec
// plans, refusing what an Item cannot hold and, with limit, a study of
// more than MaxPlanRequests.
func bankConditions(spec Spec, limit bool) (conds []banks.Condition, planned []int, err error) {
	conds = spec.Bank.Conditions()
	if len(conds) > math.MaxInt16 {
		return nil, nil, fmt.Errorf("engine: bank %q: %d conditions, at most %d", spec.Bank.Name, len(conds), math.MaxInt16)
	}
	if spec.Orders > 0 {
		for _, c := range spec.Dataset.Contexts {
			if len(c.Candidates) > math.MaxInt16 {
				return nil, nil, fmt.Errorf("engine: orders: context %s has %d candidates, at most %d in a listwise call", c.ID, len(c.Candidates), math.MaxInt16)
			}
		}
	}
	if planned, err = plannedConditions(spec.Bank, conds, spec.Probes); err != nil {
		return nil, nil, err
	}
	// Refuse a study too large to plan before allocating it (a plan
	// keeps about 100 bytes per request); EstimatePlan has no limit.
	total := int64(spec.Dataset.NumCandidates()) * int64(len(planned)) * int64(spec.Repeats)
	if limit && total > MaxPlanRequests {
		return nil, nil, fmt.Errorf("engine: the study has %d requests (%d candidates × %d conditions × %d runs), more than the %d one plan holds; use fewer runs (--repeats) or split the dataset",
			total, spec.Dataset.NumCandidates(), len(planned), spec.Repeats, MaxPlanRequests)
	}
	return conds, planned, nil
}

// plannedConditions returns the indices of conds whose probe is listed
// in probes (every index when probes is nil). A listed probe the bank has
// no condition for is an error naming it.
func plannedConditions(b *banks.Bank, conds []banks.Condition, probes []string) ([]int, error) {
	var out []int
	if probes == nil {
		out = make([]int, len(conds))
		for i := range out {
			out[i] = i
		}
		return out, nil
	}
	want := make(map[string]bool, len(probes))
	for _, p := range probes {
		want[p] = true
	}
	found := map[string]bool{}
	for i, c := range conds {
		if want[c.Probe] {
			out = append(out, i)
			found[c.Probe] = true
		}
	}
	var missing []string
	for _, p := range probes {
		if !found[p] && !slices.Contains(missing, p) {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("engine: probes: bank %q has no probe %s (its probes: %s)", b.Name, strings.Join(quoteAll(missing), ", "), strings.Join(b.Probes(), ", "))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("engine: probes: an empty list plans nothing (nil plans every condition of bank %q)", b.Name)
	}
	return out, nil
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}
