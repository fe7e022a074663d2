// Package offline is prism's embedded default judge: a deterministic
// simulator that scores a candidate from documented text features of the
// candidate and its source, needs no network and no key, and responds to
// probe instructions the way the paper reports real judges do. It is
// always labelled "offline (simulator)".
//
// The simulated judge's implicit weights differ on purpose from what
// human raters of summaries reward (coherence, consistency, fluency,
// relevance): it over-rewards length, specificity, extractiveness and
// overlap with the lead, and under-rewards grounding and coherence. That
// gives PRISM a real bias to correct.
//
// It answers rubric requests too (banks.Request.Rubric set: SAJA and
// G-Eval, docs/rubrics.md), rating each criterion from the feature it
// names with a halo towards its overall impression and a leniency shift
// (see scoreRubric), so the rubric baselines run with no network.
//
// A batched request (several candidates in one call) gets documented
// order effects — primacy, contrast with the previous candidate and
// attention fading over positions (batched.go) — so the presentation-order
// diagnostics show something offline.
package offline

import (
	"context"
	"encoding/binary"
	"hash/fnv"
	"math"
	"strings"
	"time"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
)

// Name is how the offline judge appears everywhere.
const Name = "offline (simulator)"

// Weights is the simulated judge's implicit weight on each feature, on a
// logit scale around the reference values Ref. Compare a human summary
// rater, who would weight Grounding, Coherence, Fluency and Coverage most.
var Weights = Features{
	Length: 2.0, Coverage: 0.9, Extractiveness: 0.8, Lead: 0.6, Repetition: -0.4,
	Specificity: 1.2, Grounding: 0.3, Accuracy: 0.3, Fluency: 0.6, Coherence: 0.3,
	Polish: 0.5, Confidence: 0.3, Structure: 0.1, Engagement: 0.2, Helpfulness: 0.3, Safety: 1.0,
	// The story, dialogue and answer features weigh little at baseline.
	Formality: 0.2, Dialogue: 0.1, FirstPerson: -0.1, Question: 0.1, Enthusiasm: 0.1, Opinion: -0.1,
	Steps: 0.3, Notation: 0.1, SelfCheck: 0.2, FinalResult: 0.3, SentenceLength: 0.2, Pace: 0.1,
	Description: 0.1, Sensory: 0.2, Humor: 0.1, Darkness: -0.1, Ending: 0.2, Characters: 0.2, Vocabulary: 0.4,
}

// Ref is the typical value of each feature: a probe moves a candidate up
// when its feature is above Ref and down when below.
var Ref = Features{
	Length: 0.6, Coverage: 0.3, Extractiveness: 0.6, Lead: 0.5, Repetition: 0.1,
	Specificity: 0.5, Grounding: 0.8, Accuracy: 0.8, Fluency: 0.7, Coherence: 0.5,
	Polish: 0.6, Confidence: 0.8, Structure: 0.1, Engagement: 0.3, Helpfulness: 0.5, Safety: 1.0,
	Formality: 0.6, Dialogue: 0.2, FirstPerson: 0.2, Question: 0.2, Enthusiasm: 0.2, Opinion: 0.2,
	Steps: 0.3, Notation: 0.2, SelfCheck: 0.2, FinalResult: 0.5, SentenceLength: 0.5, Pace: 0.5,
	Description: 0.3, Sensory: 0.3, Humor: 0.2, Darkness: 0.2, Ending: 0.5, Characters: 0.4, Vocabulary: 0.6,
}

// Probe response constants (logit units per unit of feature deviation).
const (
	gainMore  = 2.4   // "more weight": Δz = strength·gainMore·(f − ref)
	gainLess  = 1.4   // "less weight": Δz = −strength·gainLess·(f − ref); |less| < |more| as in §2.2
	shiftMore = -0.10 // both signs lower scores a little (a shared component)
	shiftLess = -0.04
	curvature = 1.5 // and penalise extreme feature values: −strength·curvature·(f − ref)²

	noiseInteger  = 0.5  // call noise, in scale points per 9 points of range (integer mode)
	noiseExpected = 0.06 // the same in expected mode
	spread        = 0.8  // sd of the score distribution in expected mode, points per 9 of range
	positionBias  = 0.15 // batched: first position +0.15 logit, last −0.15 (primacy)
)

// Judge is the offline simulator. It is safe for concurrent use; feature
// caches are shared by all calls.
type Judge struct {
	mode    judge.Mode
	repeats int
	seed    uint64
	model   string   // "" or a variant (variants.go)
	weights Features // the variant's implicit weights

	sources memo[string, *source]
	cands   memo[candKey, Features]
	effects memo[string, effect]
}

type candKey struct{ src, cand string }

// New returns an offline judge for cfg (only Model, Mode, Repeats and
// Seed are read; the backend must be "offline" or empty, the model empty
// or a variant).
func New(cfg judge.Config) (*Judge, error) {
	if cfg.Backend != "" && cfg.Backend != judge.BackendOffline {
		return nil, &judge.Error{Kind: judge.KindConfig, Msg: "backend " + cfg.Backend + " is not offline"}
	}
	if cfg.Mode == "" {
		cfg.Mode = judge.ModeInteger
	}
	if cfg.Mode != judge.ModeInteger && cfg.Mode != judge.ModeExpected {
		return nil, &judge.Error{Kind: judge.KindConfig, Msg: "mode " + string(cfg.Mode) + " is not integer or expected"}
	}
	w, ok := VariantWeights(cfg.Model)
	if !ok {
		return nil, &judge.Error{Kind: judge.KindConfig, Msg: "model " + cfg.Model + " is not an offline variant (" + strings.Join(Variants(), ", ") + ")"}
	}
	j := &Judge{mode: cfg.Mode, repeats: max(1, cfg.Repeats), model: cfg.Model, weights: w}
	j.sources.limit, j.cands.limit = sourceCap, candCap
	if cfg.Seed != nil {
		j.seed = uint64(*cfg.Seed)
	}
	return j, nil
}

// Name returns "offline (simulator)", or the variant's name
// ("offline-strict (simulator)").
func (j *Judge) Name() string { return NameOf(j.model) }

// Score implements judge.Judge. For each repeat r it computes
//
//	z = Σ_f Weights[f]·(F[f] − Ref[f]) + probe(F)   (+ order effects when batched, batched.go)
//	μ = Min + (Max − Min)·logistic(z)
//
// and then, in integer mode, round(μ + ε) kept within [Min, Max], with
// ε ~ N(0, σ²), σ = 0.5·(Max−Min)/9; in expected mode the mean of a
// discretised normal N(μ + ε, (0.8·(Max−Min)/9)²) over the integers of the
// scale, with σ = 0.06·(Max−Min)/9 (ProbMass 1).
// ε is drawn from a generator seeded by a hash of the request (instruction,
// source, candidate, scale, batch position) and r, so repeats differ and
// reruns are identical. probe(F) for a weight instruction on feature k
// with strength m is
//
//	more: m·(gainMore·(F[k] − Ref[k]) − curvature·(F[k] − Ref[k])²) + m·shiftMore
//	less: m·(−gainLess·(F[k] − Ref[k]) − curvature·(F[k] − Ref[k])²) + m·shiftLess
//
// so the two signs are asymmetric and share a component, as real judges'
// responses do (paper §2.2).
func (j *Judge) Score(ctx context.Context, req banks.Request) (judge.Result, error) {
	var res judge.Result
	if err := ctx.Err(); err != nil {
		e := &judge.Error{Kind: judge.KindCanceled, Msg: err.Error()}
		res.Err = e
		return res, e
	}
	if req.Scale.Max <= req.Scale.Min {
		e := &judge.Error{Kind: judge.KindConfig, Msg: "empty scale"}
		res.Err = e
		return res, e
	}
	start := time.Now()
	if req.Rubric != nil {
		return j.scoreRubric(req, start)
	}
	src := j.source(req.Source)
	eff := j.effect(req.Instruction)
	texts, ids := []string{req.CandidateText}, []string(nil)
	if len(req.BatchIDs) > 0 {
		texts, ids = req.BatchTexts, req.BatchIDs
		if len(texts) != len(ids) {
			e := &judge.Error{Kind: judge.KindConfig, Msg: "batch ids and texts differ in length"}
			res.Err = e
			return res, e
		}
	}
	zs := make([]float64, len(texts))
	for i, t := range texts {
		f := j.features(req.Source, t, src)
		zs[i] = logit(&j.weights, f, eff)
	}
	batchEffects(zs) // order effects of batched scoring (batched.go)
	base := j.requestHash(req, src.hash)
	res.Samples = make([]judge.Sample, j.repeats)
	for r := range j.repeats {
		s := &res.Samples[r]
		s.Attempts = 1
		if ids == nil {
			s.Score, s.ProbMass = j.draw(zs[0], req.Scale, base, r, 0)
			s.HasScore = true
			continue
		}
		s.Items = make([]judge.Item, len(ids))
		for i := range ids {
			v, m := j.draw(zs[i], req.Scale, base, r, i)
			s.Items[i] = judge.Item{ID: ids[i], Score: v, HasScore: true, ProbMass: m}
		}
	}
	res.Samples[0].Latency = time.Since(start)
	return res, res.Finish(req.BatchIDs)
}

// logit is the simulated judge's internal quality on a logit scale under
// the implicit weights w.
func logit(w *Features, f Features, eff effect) float64 {
	z := 0.0
	for k := range f {
		z += w[k] * (f[k] - Ref[k])
	}
	for _, t := range eff.terms {
		d := f[t.feature] - Ref[t.feature]
		if t.sign > 0 {
			z += t.strength * (gainMore*d - curvature*d*d + shiftMore)
		} else {
			z += t.strength * (-gainLess*d - curvature*d*d + shiftLess)
		}
	}
	return z + eff.extra.logit(f)
}

// draw turns a logit into one sample's score (and its probability mass).
func (j *Judge) draw(z float64, sc banks.Scale, base uint64, repeat, pos int) (float64, float64) {
	lo, hi := float64(sc.Min), float64(sc.Max)
	unit := (hi - lo) / 9
	mu := lo + (hi-lo)/(1+math.Exp(-z))
	eps := normal(mix(base, uint64(repeat), uint64(pos)))
	if j.mode == judge.ModeInteger {
		v := math.Round(mu + eps*noiseInteger*unit)
		return math.Max(lo, math.Min(hi, v)), 0
	}
	c := mu + eps*noiseExpected*unit
	sd := spread * unit
	var sum, wsum float64
	for v := sc.Min; v <= sc.Max; v++ {
		d := (float64(v) - c) / sd
		w := math.Exp(-d * d / 2)
		sum += float64(v) * w
		wsum += w
	}
	// A weighted mean of scale points lies in [lo, hi]; the clamp only
	// removes rounding (sum/wsum gave 2.9999999999999996 on a 3–4 scale).
	return math.Max(lo, math.Min(hi, sum/wsum)), 1
}

// requestHash identifies a request's content for the noise generator.
func (j *Judge) requestHash(req banks.Request, srcHash uint64) uint64 {
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], srcHash^j.seed)
	h.Write(b[:])
	binary.LittleEndian.PutUint64(b[:], uint64(int64(req.Scale.Min))<<32^uint64(uint32(req.Scale.Max)))
	h.Write(b[:])
	h.Write([]byte(req.Instruction))
	h.Write([]byte{0})
	h.Write([]byte(req.CandidateText))
	for _, t := range req.BatchTexts {
		h.Write([]byte{0})
		h.Write([]byte(t))
	}
	return h.Sum64()
}

// mix is splitmix64 over the combined inputs.
func mix(a, b, c uint64) uint64 {
	x := a ^ (b+1)*0x9e3779b97f4a7c15 ^ (c+1)*0xbf58476d1ce4e5b9
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// normal maps a hash to a standard normal draw (Box–Muller).
func normal(h uint64) float64 {
	u1 := (float64(h>>11) + 0.5) / (1 << 53)
	h2 := mix(h, 7, 11)
	u2 := float64(h2>>11) / (1 << 53)
	return math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2)
}

func (j *Judge) source(text string) *source {
	return j.sources.get(text, func() *source { return newSource(text) })
}

func (j *Judge) features(srcText, cand string, src *source) Features {
	return j.cands.get(candKey{srcText, cand}, func() Features { return measure(cand, src) })
}

func (j *Judge) effect(instr string) effect {
	return j.effects.get(instr, func() effect { return parseInstruction(instr) })
}

// FeaturesOf returns the features the judge reads from a candidate and its
// source (for documentation and diagnostics).
func FeaturesOf(source, candidate string) Features {
	return measure(candidate, newSource(source))
}

// FeatureNamed returns the feature an attribute clause maps to.
func FeatureNamed(clause string) (Feature, bool) { return featureOf(clause) }
