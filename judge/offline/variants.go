package offline

import (
	"slices"
	"strings"
)

// A variant is a simulated judge with a bias of its own, chosen by the
// config's model ("offline" backend, model "verbose" or "strict"; empty
// is the default simulator). The demo acquires them so that the Compare
// tab has judges whose correction profiles differ (docs/judge.md).
// Only the implicit weights differ; probe responses, noise and order
// effects are the default simulator's.
var variants = map[string]Features{
	// verbose rewards length, fluency and polish and barely looks at
	// whether the candidate is grounded in its source.
	"verbose": with(Weights, map[Feature]float64{
		Length: 3.5, Fluency: 1.6, Polish: 1.2, Coherence: 0.6,
		Grounding: 0.0, Accuracy: 0.0,
	}),
	// strict is strict on accuracy and grounding and indifferent to
	// length and specificity.
	"strict": with(Weights, map[Feature]float64{
		Accuracy: 2.5, Grounding: 2.0, Coherence: 0.8,
		Length: 0.0, Specificity: 0.0, Extractiveness: 0.3, Lead: 0.2,
	}),
}

// with is w with the weights of set replaced.
func with(w Features, set map[Feature]float64) Features {
	for f, v := range set {
		w[f] = v
	}
	return w
}

// Variants names the simulator's variants, sorted ("strict", "verbose").
func Variants() []string {
	names := make([]string, 0, len(variants))
	for n := range variants {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// VariantWeights are the implicit weights of the variant model ("" is the
// default simulator's, Weights); ok is false for an unknown name.
func VariantWeights(model string) (Features, bool) {
	if model == "" {
		return Weights, true
	}
	w, ok := variants[model]
	return w, ok
}

// NameOf is how the simulator of model appears everywhere: "offline
// (simulator)", "offline-verbose (simulator)".
func NameOf(model string) string {
	if model == "" {
		return Name
	}
	return strings.TrimSuffix(Name, " (simulator)") + "-" + model + " (simulator)"
}
