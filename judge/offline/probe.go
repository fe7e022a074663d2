package offline

import "strings"

// effect is what an added instruction does to the simulated judge.
type effect struct {
	terms []term // empty: the instruction changes nothing (neutral or unknown)
	extra *extra // a worded control's or joint instruction's extra response (graded.go)
}

// term reweights one feature: Δz = strength·gain·(f − ref), plus the
// shared parts described in Judge's doc.
type term struct {
	feature  Feature
	sign     int     // +1 more weight, −1 less weight
	strength float64 // 0.5 slightly, 1, 2 much
}

// featureKeywords map words of an attribute clause to the feature it names.
// Order matters: the first feature whose keyword occurs wins, so the
// specific phrases come before the generic ones.
var featureKeywords = []struct {
	feature  Feature
	keywords []string
}{
	{Extractiveness, []string{"own wording", "reuses", "wording of", "of the question", "extractive", "verbatim", "copies", "copied", "paraphras"}},
	{Repetition, []string{"restates", "repeat", "repetit", "redundan"}},
	{Sensory, []string{"sensory", "sights", "sounds", "smells"}},
	{Description, []string{"places and objects", "describes places", "setting"}},
	{Dialogue, []string{"characters say", "through what", "dialogue", "direct speech"}},
	{Characters, []string{"named characters", "characters the", "how many characters"}},
	{Specificity, []string{"names, numbers", "concrete", "specific", "figures", "details", "detail"}},
	{SentenceLength, []string{"sentences are", "sentence length", "long sentences"}},
	{Lead, []string{"opening", "lead", "first paragraph", "beginning of the"}},
	{Grounding, []string{"supported by", "grounded", "faithful", "consisten", "hallucinat", "knowledge"}},
	{Accuracy, []string{"factual", "accura", "correct", "true", "truthful"}},
	{Structure, []string{"visible structure", "lists", "headings", "bullet", "formatting", "markdown"}},
	{Notation, []string{"notation", "code", "formula", "equation"}},
	{SelfCheck, []string{"checks its", "verif", "double-check", "own intermediate results"}},
	{Steps, []string{"steps", "step-by-step", "working", "reasoning"}},
	{FinalResult, []string{"final result", "final answer", "single answer", "states a single"}},
	{Coherence, []string{"organis", "organiz", "flows", "coheren", "logical", "follows from", "maintains context"}},
	{Fluency, []string{"grammar", "spelling", "fluen", "word choice", "natural", "readab", "punctuation"}},
	{Vocabulary, []string{"vocabulary", "uncommon", "varied words", "rare words"}},
	{Formality, []string{"formal"}},
	{Polish, []string{"polish", "eloquen", "sophisticat", "complex", "style"}},
	{Confidence, []string{"assertive", "hedg", "confiden", "certain"}},
	{Enthusiasm, []string{"enthusias", "excited", "energetic", "cheerful"}},
	{Opinion, []string{"opinion", "own views", "personal view"}},
	{Question, []string{"question"}},
	{FirstPerson, []string{"first person", "first-person"}},
	{Humor, []string{"humor", "humour", "funny", "comic", "joke"}},
	{Darkness, []string{"dark", "violent", "violence", "grim", "disturbing"}},
	{Ending, []string{"ending", "comes to an end", "resolution", "conclusion"}},
	{Pace, []string{"quickly", "pace", "one event follows", "events follow"}},
	{Engagement, []string{"engag", "interesting", "entertain", "creativ", "original", "surpris", "empath", "emotion", "vivid"}},
	{Safety, []string{"harmful", "inappropriate", "safe", "toxic", "offensive"}},
	{Helpfulness, []string{"serve a reader", "helpful", "useful", "in place of", "answers", "relevan"}},
	{Coverage, []string{"important content", "cover", "includes", "key points", "main points", "complete", "salient"}},
	{Length, []string{"long", "length", "short", "concise", "brief", "verbose", "wordy"}},
}

// contextKeywords give the one-sided context probes an effect: writing
// for a kind of reader shifts the weights the way such a reader would.
var contextKeywords = []struct {
	keywords []string
	terms    []term
}{
	{[]string{"expert", "specialist", "professional"}, []term{{Specificity, +1, 1}, {Accuracy, +1, 1}}},
	{[]string{"general reader", "layperson", "lay reader", "beginner", "child", "newcomer", "non-expert"}, []term{{Fluency, +1, 1}, {Coherence, +1, 1}, {Specificity, -1, 1}}},
	{[]string{"busy", "skim", "quick", "hurry"}, []term{{Length, -1, 1}, {Coverage, +1, 1}}},
	{[]string{"editor", "publish"}, []term{{Polish, +1, 1}, {Fluency, +1, 1}}},
}

// parseInstruction reads an added system instruction. A weight probe
// ("weight CLAUSE more heavily…", "Let CLAUSE count for less…") names one
// feature, a sign and a strength; a reader-oriented instruction maps to
// context terms; anything else (neutral controls, "exactly as heavily as
// you normally would", unknown wording) has no effect.
func parseInstruction(instr string) effect {
	s := strings.ToLower(strings.Join(strings.Fields(instr), " "))
	if s == "" {
		return effect{}
	}
	if e, ok := parseGraded(s); ok {
		return e
	}
	sign := 0
	for _, p := range []string{"more heavily", "count for more", "more weight", "more than usual", "more than you normally", "more importance", "more emphasis"} {
		if strings.Contains(s, p) {
			sign = +1
		}
	}
	for _, p := range []string{"less heavily", "count for less", "less weight", "less than usual", "less than you normally", "less importance", "less emphasis"} {
		if strings.Contains(s, p) {
			if sign == +1 {
				return effect{} // contradictory: treat as unknown
			}
			sign = -1
		}
	}
	if sign != 0 {
		f, ok := featureOf(s)
		if !ok {
			return effect{}
		}
		strength := 1.0
		switch {
		case containsAny(s, "slightly", "a little", "a bit", "somewhat", "marginally"):
			strength = 0.5
		case containsAny(s, "much more", "much less", "far more", "far less", "a lot more", "a lot less", "considerably", "significantly", "substantially", "greatly"):
			strength = 2
		}
		return effect{terms: []term{{f, sign, strength}}}
	}
	for _, ck := range contextKeywords {
		if containsAny(s, ck.keywords...) {
			return effect{terms: ck.terms}
		}
	}
	return effect{}
}

// featureOf returns the feature an attribute clause names.
func featureOf(clause string) (Feature, bool) {
	s := strings.ToLower(clause)
	for _, fk := range featureKeywords {
		if containsAny(s, fk.keywords...) {
			return fk.feature, true
		}
	}
	return 0, false
}

func containsAny(s string, subs ...string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}
