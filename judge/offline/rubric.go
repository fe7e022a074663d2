package offline

import (
	"hash/fnv"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
)

// Rubric requests (SAJA and G-Eval, docs/rubrics.md). The simulated judge
// rates each criterion from the one feature the criterion names, with
// three documented biases of LLM rubric judges:
//
//   - halo: every rating is pulled towards the judge's overall impression
//     z (the logit of a baseline bank request, with its length,
//     specificity and extractiveness bias): a criterion's logit is
//     haloWeight·z + (1 − haloWeight)·criterionGain·sign·(F[k] − Ref[k]);
//   - leniency: rubric ratings are shifted up by leniency logits;
//   - an "overall" criterion (name "overall", or a label that starts
//     with "overall") is z itself, plus leniency.
//
// Feature k comes from criterionFeatures by name, else from the words of
// the criterion's name and label (the keyword table that maps a bank's
// attribute clauses), else the criterion is read as overall.
// sign is −1 for criteria that reward less of the feature (conciseness
// rewards less length; non-redundancy, less repetition; own wording, less
// extractiveness).
const (
	haloWeight    = 0.5
	criterionGain = 4.0
	leniency      = 0.3
	// ratingNoise is the sd of a rubric rating's call noise, in scale
	// points per 4 points of range (0.5 on 1–5, 0.25 on 1–3): rubric
	// ratings are sampled at temperature 1 in G-Eval's setting.
	ratingNoise = 0.5
)

type critFeature struct {
	feature Feature
	sign    float64
}

// criterionFeatures maps the built-in rubrics' criteria to features.
var criterionFeatures = map[string]critFeature{
	// saja-broad
	"accuracy": {Accuracy, 1}, "grounding": {Grounding, 1}, "coherence": {Coherence, 1}, "fluency": {Fluency, 1},
	"engagement": {Engagement, 1}, "helpfulness": {Helpfulness, 1}, "safety": {Safety, 1}, "coverage": {Coverage, 1},
	// geval-summeval
	"consistency": {Grounding, 1}, "relevance": {Coverage, 1},
	// saja-granular
	"factual-accuracy": {Accuracy, 1}, "entity-accuracy": {Accuracy, 1}, "no-contradiction": {Grounding, 1},
	"no-invention": {Grounding, 1}, "attribution": {Grounding, 1}, "main-point": {Coverage, 1}, "key-details": {Coverage, 1},
	"completeness": {Coverage, 1}, "no-trivia": {Lead, 1}, "proportion": {Coverage, 1}, "conciseness": {Length, -1},
	"non-redundancy": {Repetition, -1}, "length-fit": {Length, 1}, "ordering": {Coherence, 1}, "transitions": {Coherence, 1},
	"reference-clarity": {Coherence, 1}, "focus": {Coherence, 1}, "self-contained": {Helpfulness, 1}, "grammar": {Fluency, 1},
	"spelling-punctuation": {Fluency, 1}, "word-choice": {Polish, 1}, "sentence-form": {Fluency, 1}, "readability": {Fluency, 1},
	"neutral-tone": {Opinion, -1}, "paraphrase": {Extractiveness, -1}, "specificity": {Specificity, 1},
	"clean-text": {Fluency, 1}, "appropriateness": {Safety, 1},
}

// criterionOf returns the feature a criterion rates, or ok false for an
// overall criterion.
func criterionOf(c banks.RatedCriterion) (critFeature, bool) {
	if c.Name == "overall" || strings.HasPrefix(strings.ToLower(c.Label), "overall") {
		return critFeature{}, false
	}
	if cf, ok := criterionFeatures[c.Name]; ok {
		return cf, true
	}
	if f, ok := featureOf(c.Name + " " + c.Label); ok {
		sign := 1.0
		if f == Repetition {
			sign = -1
		}
		return critFeature{f, sign}, true
	}
	return critFeature{}, false
}

// criterionLogit is the simulated judge's logit for one criterion.
func criterionLogit(c banks.RatedCriterion, f Features, z float64) float64 {
	cf, ok := criterionOf(c)
	if !ok {
		return z + leniency
	}
	return haloWeight*z + (1-haloWeight)*criterionGain*cf.sign*(f[cf.feature]-Ref[cf.feature]) + leniency
}

// scoreRubric answers a rubric request (req.Rubric set).
//
// SAJA: each repeat is one reply, a JSON object rating every criterion
// with an integer: round(μ_c + ε) kept within the criterion's scale, μ_c
// = Min + (Max − Min)·logistic(z_c) and ε ~ N(0, (ratingNoise·(Max−Min)/4)²)
// drawn per criterion. Sample.Raw holds the object and Sample.Items one
// item per criterion (ID the name), and so does Result.Items (means over
// repeats); Score and HasScore are unused. ModeExpected changes nothing:
// a SAJA reply is integers.
//
// G-Eval: the one criterion's rating per repeat, as a bank request's score
// is drawn: in integer mode a rounded rating (Raw "4"), in expected mode
// the probability-weighted mean over the scale's ratings (ProbMass 1).
// Result.Score is the mean over repeats: Repeats plays the part of
// G-Eval's N samples.
func (j *Judge) scoreRubric(req banks.Request, start time.Time) (judge.Result, error) {
	var res judge.Result
	rc := req.Rubric
	fail := func(msg string) (judge.Result, error) {
		e := &judge.Error{Kind: judge.KindConfig, Msg: msg}
		res.Err = e
		return res, e
	}
	switch {
	case len(rc.Criteria) == 0:
		return fail("rubric request without criteria")
	case rc.Kind == banks.RubricGEval && len(rc.Criteria) != 1:
		return fail("a G-Eval request asks one criterion, not " + strconv.Itoa(len(rc.Criteria)))
	case rc.Kind != banks.RubricGEval && rc.Kind != banks.RubricSAJA:
		return fail("unknown rubric kind " + strconv.Quote(rc.Kind))
	}
	for _, c := range rc.Criteria {
		if c.Scale.Max <= c.Scale.Min {
			return fail("criterion " + c.Name + " has an empty scale")
		}
	}
	src := j.source(req.Source)
	f := j.features(req.Source, req.CandidateText, src)
	z := logit(&j.weights, f, effect{})
	// The probe names the criterion of a G-Eval request, so that criteria
	// on the same scale draw independent noise.
	base := mix(j.requestHash(req, src.hash), fnv64(req.Probe), 3)
	res.Samples = make([]judge.Sample, j.repeats)
	if rc.Kind == banks.RubricGEval {
		c := rc.Criteria[0]
		zc := criterionLogit(c, f, z)
		for r := range j.repeats {
			s := &res.Samples[r]
			s.Attempts = 1
			s.Score, s.ProbMass = j.rate(zc, c.Scale, base, r, 0)
			s.HasScore = true
			s.Raw = strconv.FormatFloat(s.Score, 'g', -1, 64)
		}
		res.Samples[0].Latency = time.Since(start)
		return res, res.Finish(nil)
	}
	names := rc.Names()
	zs := make([]float64, len(rc.Criteria))
	for i, c := range rc.Criteria {
		zs[i] = criterionLogit(c, f, z)
	}
	for r := range j.repeats {
		s := &res.Samples[r]
		s.Attempts = 1
		s.Items = make([]judge.Item, len(names))
		var raw strings.Builder
		raw.WriteByte('{')
		for i, c := range rc.Criteria {
			v := j.integerRating(zs[i], c.Scale, base, r, i)
			s.Items[i] = judge.Item{ID: c.Name, Score: v, HasScore: true}
			if i > 0 {
				raw.WriteString(", ")
			}
			raw.WriteString(strconv.Quote(c.Name) + ": " + strconv.Itoa(int(v)))
		}
		raw.WriteByte('}')
		s.Raw = raw.String()
	}
	res.Samples[0].Latency = time.Since(start)
	return res, res.Finish(names)
}

// rate is one G-Eval sample: an integer rating, or in expected mode the
// probability-weighted mean (ProbMass 1).
func (j *Judge) rate(z float64, sc banks.Scale, base uint64, repeat, pos int) (float64, float64) {
	if j.mode == judge.ModeExpected {
		return j.draw(z, sc, base, repeat, pos)
	}
	return j.integerRating(z, sc, base, repeat, pos), 0
}

// integerRating is round(μ + ε) within the scale, ε ~ N(0, (ratingNoise·(Max−Min)/4)²).
func (j *Judge) integerRating(z float64, sc banks.Scale, base uint64, repeat, pos int) float64 {
	lo, hi := float64(sc.Min), float64(sc.Max)
	mu := lo + (hi-lo)/(1+math.Exp(-z))
	eps := normal(mix(base, uint64(repeat), uint64(pos)))
	v := math.Round(mu + eps*ratingNoise*(hi-lo)/4)
	return math.Max(lo, math.Min(hi, v))
}

func fnv64(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}
