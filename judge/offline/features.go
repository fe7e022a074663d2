package offline

import (
	"hash/fnv"
	"math"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Feature indexes a text feature of a candidate (all in [0, 1]).
type Feature int

const (
	Length         Feature = iota // 1 − exp(−words/50)
	Coverage                      // share of the source's 15 salient content words the candidate uses
	Extractiveness                // share of candidate word bigrams found in the source
	Lead                          // share of candidate content words found in the source's first 3 sentences
	Repetition                    // share of candidate content-word occurrences that repeat an earlier one
	Specificity                   // min(1, 4·(numbers + names)/words)
	Grounding                     // share of candidate content words found anywhere in the source
	Accuracy                      // ½ grounding + ½ share of candidate numbers and names found in the source
	Fluency                       // 1 − min(1, 5·artifacts/words): detached clitics, space before punctuation, doubled words, lower-case sentence starts, no final stop
	Coherence                     // 0.6·(1 − min(1, CV of sentence lengths)) + 0.4·min(1, 2·connectives/sentences)
	Polish                        // ½ min(1, max(0, (mean word length − 3.5)/3)) + ½ type/token ratio
	Confidence                    // 1 − min(1, 10·hedges/words)
	Structure                     // min(1, (bullets + headings + line breaks)/3)
	Engagement                    // 0.4 min(1, quotes) + 0.3 [question or exclamation] + 0.3 specificity
	Helpfulness                   // 0.5 coverage + 0.3 grounding + 0.2 length
	Safety                        // 1 − min(1, 3·flagged words/words)
	Formality                     // ½ min(1, max(0, (mean word length − 3.5)/3)) + ½ (1 − min(1, 10·(contractions + informal words)/words))
	Dialogue                      // share of words inside double quotes
	FirstPerson                   // min(1, 10·(I, me, my, we, us, our)/words)
	Question                      // min(1, question marks/sentences)
	Enthusiasm                    // min(1, (exclamation marks + enthusiastic words)/sentences)
	Opinion                       // min(1, 3·opinion markers ("I think", "in my opinion", …)/sentences)
	Steps                         // min(1, step markers (first, then, next, step, numbered lines, "=")/3)
	Notation                      // min(1, 15·share of characters that are math or code symbols)
	SelfCheck                     // min(1, checking words (check, verify, confirm, …)/2)
	FinalResult                   // 1 when a final-answer phrase occurs ("the answer is", "therefore", …), else 0
	SentenceLength                // min(1, mean words per sentence/30)
	Pace                          // ½ min(1, 4·event connectives/sentences) + ½ min(1, 10/mean sentence length)
	Description                   // min(1, 10·place and object words/words)
	Sensory                       // min(1, 10·sensory words/words)
	Humor                         // min(1, 15·humour words/words)
	Darkness                      // min(1, 10·dark or violent words/words)
	Ending                        // 1 when the last sentence holds a closing phrase ("at last", "ever after", …), ½ when it ends with '.', else 0
	Characters                    // min(1, distinct mid-sentence capitalised words/5)
	Vocabulary                    // ½ type/token ratio + ½ min(1, 4·share of words of 8+ letters)
	numFeatures
)

var featureNames = [numFeatures]string{
	"length", "coverage", "extractiveness", "lead", "repetition", "specificity", "grounding",
	"accuracy", "fluency", "coherence", "polish", "confidence", "structure", "engagement",
	"helpfulness", "safety", "formality", "dialogue", "first-person", "question", "enthusiasm",
	"opinion", "steps", "notation", "self-check", "final-result", "sentence-length", "pace",
	"description", "sensory", "humor", "darkness", "ending", "characters", "vocabulary",
}

func (f Feature) String() string {
	if f < 0 || f >= numFeatures {
		return "feature(?)"
	}
	return featureNames[f]
}

// Features are a candidate's feature values, indexed by Feature.
type Features [numFeatures]float64

// source holds what the judge reads from a source once (cached).
type source struct {
	hash     uint64
	content  map[string]struct{} // content words
	salient  map[string]struct{} // the 15 most frequent content words, lead words counted twice
	lead     map[string]struct{} // content words of the first 3 sentences
	bigrams  map[uint64]struct{} // hashed lower-case word bigrams
	entities map[string]struct{} // words capitalised mid-sentence, and numbers
}

// word is one token of a text.
type word struct {
	lower    string
	capital  bool // starts with an upper-case letter
	number   bool
	sentence int  // index of its sentence
	initial  bool // first word of its sentence
}

// tokenize splits text into words (letters, digits, inner apostrophes and
// hyphens) and numbers sentences at '.', '!' and '?'.
func tokenize(text string) []word {
	var out []word
	sent, initial := 0, true
	i := 0
	for i < len(text) {
		r, n := utf8.DecodeRuneInString(text[i:])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			j := i
			for j < len(text) {
				r2, n2 := utf8.DecodeRuneInString(text[j:])
				if unicode.IsLetter(r2) || unicode.IsDigit(r2) {
					j += n2
					continue
				}
				if j+n2 < len(text) && isWordRune(text[j+n2:]) {
					if r2 == '\'' || r2 == '-' || r2 == '’' {
						j += n2
						continue
					}
					// 3.5 and 1,000 are one number.
					next, _ := utf8.DecodeRuneInString(text[j+n2:])
					if (r2 == '.' || r2 == ',') && unicode.IsDigit(lastRune(text[i:j])) && unicode.IsDigit(next) {
						j += n2
						continue
					}
				}
				break
			}
			w := text[i:j]
			first, _ := utf8.DecodeRuneInString(w)
			out = append(out, word{
				lower: strings.ToLower(w), capital: unicode.IsUpper(first), number: unicode.IsDigit(first),
				sentence: sent, initial: initial,
			})
			initial = false
			i = j
			continue
		}
		if r == '.' || r == '!' || r == '?' {
			if !initial {
				sent++
			}
			initial = true
		}
		i += n
	}
	return out
}

func isWordRune(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

func isContent(w word) bool {
	if w.number {
		return true
	}
	if utf8.RuneCountInString(w.lower) < 3 {
		return false
	}
	_, stop := stopwords[w.lower]
	return !stop
}

// bigramHash is FNV-1a over a, a zero byte and b, without allocating.
func bigramHash(a, b string) uint64 {
	const prime = 1099511628211
	h := uint64(14695981039346656037)
	for i := 0; i < len(a); i++ {
		h = (h ^ uint64(a[i])) * prime
	}
	h *= prime // the separator byte 0
	for i := 0; i < len(b); i++ {
		h = (h ^ uint64(b[i])) * prime
	}
	return h
}

func newSource(text string) *source {
	h := fnv.New64a()
	h.Write([]byte(text))
	s := &source{
		hash: h.Sum64(), content: map[string]struct{}{}, salient: map[string]struct{}{},
		lead: map[string]struct{}{}, bigrams: map[uint64]struct{}{}, entities: map[string]struct{}{},
	}
	ws := tokenize(text)
	freq := map[string]int{}
	for i, w := range ws {
		if i > 0 {
			s.bigrams[bigramHash(ws[i-1].lower, w.lower)] = struct{}{}
		}
		if (w.capital && !w.initial) || w.number {
			s.entities[w.lower] = struct{}{}
		}
		if !isContent(w) {
			continue
		}
		s.content[w.lower] = struct{}{}
		freq[w.lower]++
		if w.sentence < 3 {
			s.lead[w.lower] = struct{}{}
			freq[w.lower]++
		}
	}
	type kv struct {
		w string
		n int
	}
	all := make([]kv, 0, len(freq))
	for w, n := range freq {
		all = append(all, kv{w, n})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].n != all[j].n {
			return all[i].n > all[j].n
		}
		return all[i].w < all[j].w
	})
	for i := 0; i < len(all) && i < 15; i++ {
		s.salient[all[i].w] = struct{}{}
	}
	return s
}

// measure computes a candidate's features against its source.
func measure(text string, src *source) Features {
	var f Features
	ws := tokenize(text)
	n := len(ws)
	if n == 0 {
		f[Fluency], f[Confidence], f[Safety], f[Accuracy] = 0, 1, 1, 0
		return f
	}
	nf := float64(n)
	f[Length] = 1 - math.Exp(-nf/50)

	var content, grounded, inLead, repeats, ents, entsFound, nums, hedges, flagged, connectives int
	seen := map[string]struct{}{}
	salientHit := map[string]struct{}{}
	bigramHit := 0
	lenSum := 0
	for i, w := range ws {
		lenSum += utf8.RuneCountInString(w.lower)
		if i > 0 {
			if _, ok := src.bigrams[bigramHash(ws[i-1].lower, w.lower)]; ok {
				bigramHit++
			}
		}
		_, srcEnt := src.entities[w.lower]
		if w.number || (w.capital && !w.initial) || srcEnt {
			ents++
			if _, ok := src.entities[w.lower]; ok {
				entsFound++
			} else if _, ok := src.content[w.lower]; ok {
				entsFound++
			}
		}
		if w.number {
			nums++
		}
		if _, ok := hedgeWords[w.lower]; ok {
			hedges++
		}
		if _, ok := flaggedWords[w.lower]; ok {
			flagged++
		}
		if _, ok := connectiveWords[w.lower]; ok {
			connectives++
		}
		if !isContent(w) {
			continue
		}
		content++
		if _, ok := seen[w.lower]; ok {
			repeats++
		}
		seen[w.lower] = struct{}{}
		if _, ok := src.content[w.lower]; ok {
			grounded++
		}
		if _, ok := src.lead[w.lower]; ok {
			inLead++
		}
		if _, ok := src.salient[w.lower]; ok {
			salientHit[w.lower] = struct{}{}
		}
	}
	if len(src.salient) > 0 {
		f[Coverage] = float64(len(salientHit)) / float64(len(src.salient))
	}
	if n > 1 {
		f[Extractiveness] = float64(bigramHit) / float64(n-1)
	}
	if content > 0 {
		cf := float64(content)
		f[Lead] = float64(inLead) / cf
		f[Repetition] = float64(repeats) / cf
		f[Grounding] = float64(grounded) / cf
	}
	f[Specificity] = math.Min(1, 4*float64(ents)/nf)
	entShare := 1.0
	if ents > 0 {
		entShare = float64(entsFound) / float64(ents)
	}
	f[Accuracy] = 0.5*f[Grounding] + 0.5*entShare

	// Sentences: lengths and starts.
	nSent := ws[n-1].sentence + 1
	sentLen := make([]float64, nSent)
	for _, w := range ws {
		sentLen[w.sentence]++
	}
	f[Fluency] = 1 - math.Min(1, 5*float64(artifacts(text, ws))/nf)
	var mean, sq float64
	for _, l := range sentLen {
		mean += l
	}
	mean /= float64(nSent)
	for _, l := range sentLen {
		sq += (l - mean) * (l - mean)
	}
	cv := math.Sqrt(sq/float64(nSent)) / mean
	f[Coherence] = 0.6*(1-math.Min(1, cv)) + 0.4*math.Min(1, 2*float64(connectives)/float64(nSent))

	avgLen := float64(lenSum) / nf
	f[Polish] = 0.5*math.Min(1, math.Max(0, (avgLen-3.5)/3)) + 0.5*float64(len(distinct(ws)))/nf
	f[Confidence] = 1 - math.Min(1, 10*float64(hedges)/nf)
	f[Structure] = math.Min(1, float64(structureMarks(text))/3)
	quotes := strings.Count(text, "\"") + strings.Count(text, "“") + strings.Count(text, "'' ")
	f[Engagement] = 0.4*math.Min(1, float64(quotes)/2) + 0.3*boolf(strings.ContainsAny(text, "?!")) + 0.3*f[Specificity]
	f[Helpfulness] = 0.5*f[Coverage] + 0.3*f[Grounding] + 0.2*f[Length]
	f[Safety] = 1 - math.Min(1, 3*float64(flagged)/nf)
	measureStyle(&f, text, ws, float64(nSent), mean)
	return f
}

// measureStyle fills the features of the story, dialogue and answer banks.
func measureStyle(f *Features, text string, ws []word, nSent, meanSent float64) {
	nf := float64(len(ws))
	lower := strings.ToLower(text)
	count := func(words map[string]struct{}) float64 {
		c := 0
		for _, w := range ws {
			if _, ok := words[w.lower]; ok {
				c++
			}
		}
		return float64(c)
	}
	phrases := func(ps ...string) float64 {
		c := 0
		for _, p := range ps {
			c += strings.Count(lower, p)
		}
		return float64(c)
	}
	informal := count(informalWords) + phrases("n't", "'re", "'ll", "'ve", "'m ")
	f[Formality] = 0.5*math.Min(1, math.Max(0, (meanWordLen(ws)-3.5)/3)) + 0.5*(1-math.Min(1, 10*informal/nf))
	f[Dialogue] = quotedShare(text)
	f[FirstPerson] = math.Min(1, 10*count(firstPersonWords)/nf)
	f[Question] = math.Min(1, float64(strings.Count(text, "?"))/nSent)
	f[Enthusiasm] = math.Min(1, (float64(strings.Count(text, "!"))+count(enthusiasticWords))/nSent)
	f[Opinion] = math.Min(1, 3*phrases("i think", "i believe", "in my opinion", "i feel", "personally", "i love", "i like", "my favorite", "my favourite", "i prefer")/nSent)
	steps := phrases("first,", "then ", "next,", "step ", "finally,", " = ")
	for _, line := range strings.Split(text, "\n") {
		l := strings.TrimSpace(line)
		if len(l) > 2 && l[0] >= '0' && l[0] <= '9' && (l[1] == '.' || l[1] == ')') {
			steps++
		}
	}
	f[Steps] = math.Min(1, steps/3)
	sym := 0
	for _, r := range text {
		if strings.ContainsRune("=+*^/`{}<>$\\_|", r) {
			sym++
		}
	}
	f[Notation] = math.Min(1, 15*float64(sym)/float64(max(1, utf8.RuneCountInString(text))))
	f[SelfCheck] = math.Min(1, count(checkWords)/2)
	f[FinalResult] = boolf(phrases("the answer is", "final answer", "therefore", "the result is", "so the answer", "answer:", "\\boxed") > 0)
	f[SentenceLength] = math.Min(1, meanSent/30)
	f[Pace] = 0.5*math.Min(1, 4*count(eventWords)/nSent) + 0.5*math.Min(1, 10/meanSent)
	f[Description] = math.Min(1, 10*count(placeWords)/nf)
	f[Sensory] = math.Min(1, 10*count(sensoryWords)/nf)
	f[Humor] = math.Min(1, 15*count(humorWords)/nf)
	f[Darkness] = math.Min(1, 10*count(darkWords)/nf)
	last := lastSentence(lower)
	switch {
	case containsAnyOf(last, "at last", "ever after", "the end", "from that day", "never again", "finally", "and so ", "forever"):
		f[Ending] = 1
	case strings.HasSuffix(strings.TrimRight(last, " \"'”\n"), "."):
		f[Ending] = 0.5
	}
	names := map[string]struct{}{}
	long := 0
	for _, w := range ws {
		if w.capital && !w.initial && !w.number {
			names[w.lower] = struct{}{}
		}
		if utf8.RuneCountInString(w.lower) >= 8 {
			long++
		}
	}
	f[Characters] = math.Min(1, float64(len(names))/5)
	f[Vocabulary] = 0.5*float64(len(distinct(ws)))/nf + 0.5*math.Min(1, 4*float64(long)/nf)
}

func meanWordLen(ws []word) float64 {
	n := 0
	for _, w := range ws {
		n += utf8.RuneCountInString(w.lower)
	}
	return float64(n) / float64(max(1, len(ws)))
}

// quotedShare is the share of words that sit between double quotes.
func quotedShare(text string) float64 {
	in, inside, total := false, 0, 0
	prevSpace := true
	for _, r := range text {
		switch {
		case r == '"' || r == '“' || r == '”':
			in = !in
		case unicode.IsSpace(r):
			prevSpace = true
			continue
		default:
			if prevSpace && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
				total++
				if in {
					inside++
				}
			}
		}
		prevSpace = false
	}
	if total == 0 {
		return 0
	}
	return float64(inside) / float64(total)
}

func lastSentence(s string) string {
	t := strings.TrimRight(s, " \n\t")
	cut := strings.LastIndexAny(strings.TrimRight(t, ".!?\"'”"), ".!?")
	return t[cut+1:]
}

func containsAnyOf(s string, subs ...string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

func distinct(ws []word) map[string]struct{} {
	m := make(map[string]struct{}, len(ws))
	for _, w := range ws {
		m[w.lower] = struct{}{}
	}
	return m
}

// artifacts counts signs of broken text: detached clitics ("do n't",
// " 's"), a space before punctuation, doubled words, lower-case sentence
// starts and a missing final stop.
func artifacts(text string, ws []word) int {
	n := 0
	for _, a := range []string{" n't", " 's", " ,", " .", " ;", " :", " 're", " 've", " 'll", " ' "} {
		n += strings.Count(text, a)
	}
	for i, w := range ws {
		if i > 0 && w.lower == ws[i-1].lower {
			n++
		}
		if w.initial && !w.capital && !w.number {
			n++
		}
	}
	t := strings.TrimRight(text, " \n\t\"'”)")
	if t != "" && !strings.ContainsAny(t[len(t)-1:], ".!?") {
		n++
	}
	return n
}

func structureMarks(text string) int {
	n := 0
	for _, line := range strings.Split(text, "\n") {
		l := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(l, "- "), strings.HasPrefix(l, "* "), strings.HasPrefix(l, "• "), strings.HasPrefix(l, "#"):
			n++
		case len(l) > 2 && l[0] >= '0' && l[0] <= '9' && (l[1] == '.' || l[1] == ')'):
			n++
		}
	}
	return n + min(2, strings.Count(text, "\n"))
}

func boolf(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func set(words ...string) map[string]struct{} {
	m := make(map[string]struct{}, len(words))
	for _, w := range words {
		m[w] = struct{}{}
	}
	return m
}

var stopwords = set("the", "and", "for", "are", "but", "not", "you", "all", "any", "can", "had", "her", "was",
	"one", "our", "out", "has", "have", "his", "how", "its", "may", "new", "now", "old", "see", "two", "who",
	"did", "get", "him", "let", "say", "she", "too", "use", "that", "with", "this", "from", "they", "will",
	"would", "there", "their", "what", "about", "which", "when", "were", "been", "than", "them", "then",
	"into", "more", "some", "could", "also", "after", "said", "says", "over", "just", "such", "very", "only",
	"being", "where", "while", "these", "those", "because", "before", "other", "most", "made", "like", "your")

var hedgeWords = set("may", "might", "perhaps", "possibly", "reportedly", "allegedly", "apparently", "seems",
	"seem", "likely", "unclear", "could", "suggests", "somewhat", "arguably", "probably", "maybe")

var connectiveWords = set("however", "therefore", "meanwhile", "because", "although", "but", "so", "then",
	"also", "while", "after", "before", "since", "thus", "moreover", "furthermore", "instead", "finally")

var informalWords = set("gonna", "wanna", "kinda", "yeah", "ok", "okay", "hey", "cool", "stuff", "lol", "guys", "pretty", "awesome", "super", "totally")

var firstPersonWords = set("i", "me", "my", "mine", "we", "us", "our", "ours", "myself")

var enthusiasticWords = set("great", "amazing", "awesome", "love", "wonderful", "fantastic", "wow", "excited", "exciting", "incredible", "brilliant")

var checkWords = set("check", "checks", "checking", "verify", "verified", "verifying", "confirm", "confirms", "double-check", "indeed", "consistent", "sanity")

var eventWords = set("then", "suddenly", "next", "after", "soon", "immediately", "later", "before", "when", "until")

var placeWords = set("room", "house", "street", "tree", "table", "window", "door", "wall", "floor", "forest", "city", "sky", "road", "field", "river", "hill", "garden", "chair", "desk", "shelf", "castle", "kitchen", "village", "mountain", "lamp", "roof")

var sensoryWords = set("saw", "see", "smell", "smelled", "scent", "sound", "sounds", "heard", "hear", "taste", "tasted", "touch", "felt", "bright", "loud", "soft", "cold", "warm", "glow", "glowing", "whisper", "whispered", "bitter", "sweet", "rough", "smooth", "sour", "fragrant", "crackling")

var humorWords = set("laugh", "laughed", "laughing", "joke", "joked", "funny", "silly", "ridiculous", "giggle", "giggled", "haha", "pun", "absurd", "hilarious", "comic", "grin", "grinned")

var darkWords = set("blood", "bloody", "death", "dead", "die", "died", "kill", "killed", "murder", "murdered", "war", "scream", "screamed", "dark", "darkness", "fear", "corpse", "knife", "gun", "violent", "violence", "pain", "grave", "horror")

var flaggedWords = set("kill", "hate", "stupid", "idiot", "damn", "hell", "shit", "fuck", "bomb", "racist", "slur")
