package datasets

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/prism-eval/prism/model"
)

// FormatHelpSteer2 reads HelpSteer2 as published on the Hugging Face Hub
// (nvidia/HelpSteer2): one record per response with prompt, response and
// the five attributes helpfulness, correctness, coherence, complexity and
// verbosity, each rated 0–4; JSON Lines (validation.jsonl.gz as
// downloaded, or unzipped) or the Hub's Parquet conversion.
const FormatHelpSteer2 = "helpsteer2"

// helpSteer2Attributes are the rated attributes, in the dataset card's
// order; the first is the target.
var helpSteer2Attributes = []string{"helpfulness", "correctness", "coherence", "complexity", "verbosity"}

// readHelpSteer2 builds the dataset: context = prompt (ID: the first 16
// hex digits of the SHA-256 of its text, Source: the text), candidates =
// its responses numbered r1, r2, … in file order, Text = the response;
// every attribute is a criterion score and Human = helpfulness (the fit's
// --target picks another). Two responses per prompt make the within-context
// comparison a pair: the metric is pairwise, which leaves human ties out.
func readHelpSteer2(loc *locator) (*model.Dataset, error) {
	if bytes.HasPrefix(loc.data, []byte{0x1f, 0x8b}) {
		var err error
		if loc, err = gunzipLocator(loc); err != nil {
			return nil, err
		}
	}
	b := newBuilder(baseName(loc.name), FormatHelpSteer2, model.TaskAnswer, model.MetricPairwise)
	for _, a := range helpSteer2Attributes {
		b.criterion(a)
	}
	add := func(r mappedRecord, _ string) error { return helpSteer2Record(b, r) }
	if err := eachJSONLOrParquet(loc, add); err != nil {
		return nil, err
	}
	if len(b.d.Contexts) == 0 {
		return nil, &ParseError{File: loc.name, Msg: "no records"}
	}
	return b.d, nil
}

// gunzipLocator is loc's data decompressed (validation.jsonl.gz as
// downloaded), under the dataset file limit; errors name the file. Lines
// and columns of later errors are the decompressed file's.
func gunzipLocator(loc *locator) (*locator, error) {
	zr, err := gzip.NewReader(bytes.NewReader(loc.data))
	if err != nil {
		return nil, &ParseError{File: loc.name, Msg: "gzip: " + err.Error()}
	}
	data, err := model.ReadLimited(zr, datasetFileLimit, loc.name, "a dataset file (decompressed)")
	if err != nil {
		if model.IsSizeError(err) {
			return nil, &ParseError{File: loc.name, Msg: err.Error()}
		}
		return nil, &ParseError{File: loc.name, Msg: "gzip: " + err.Error()}
	}
	return newLocator(loc.name, data), nil
}

// helpSteer2Record adds one response to its prompt's context.
func helpSteer2Record(b *builder, r mappedRecord) error {
	prompt, err := helpSteer2Text(r, "prompt")
	if err != nil {
		return err
	}
	response, err := helpSteer2Text(r, "response")
	if err != nil {
		return err
	}
	k := model.Candidate{Text: response, Scores: map[string]float64{}}
	for _, a := range helpSteer2Attributes {
		v, missing, err := mappedNumber(r, a, "rating")
		switch {
		case err != nil:
			return err
		case missing:
			return r.fail(lookup(r.node, a), a, "missing (every attribute is rated 0–4)")
		case v < 0 || v > 4:
			return r.fail(lookup(r.node, a), a, "%s is outside the 0–4 scale", model.Quote(lookup(r.node, a).text))
		}
		k.Scores[a] = v
	}
	k.Human = k.Scores[helpSteer2Attributes[0]]
	sum := sha256.Sum256([]byte(prompt))
	ci, added := b.context(hex.EncodeToString(sum[:8]))
	if added {
		b.d.Contexts[ci].Source = prompt
	}
	k.ID = "r" + itoa(len(b.d.Contexts[ci].Candidates)+1)
	b.addCandidate(ci, k)
	return nil
}

// helpSteer2Text reads a required non-empty string field.
func helpSteer2Text(r mappedRecord, field string) (string, error) {
	v := lookup(r.node, field)
	switch {
	case v == nil || v.kind == jNull:
		return "", r.fail(r.node, field, "missing")
	case v.kind != jString:
		return "", r.fail(v, field, "want a string, got %s", v.kind)
	case v.text == "":
		return "", r.fail(v, field, "empty")
	}
	return v.text, nil
}

// FormatMTBench reads MT-Bench's human judgments as published on the
// Hugging Face Hub (lmsys/mt_bench_human_judgments, split "human"): one
// record per expert comparison with question_id, model_a, model_b,
// winner (model_a, model_b, tie, tie (bothbad)), judge, turn and the two
// conversations ([{"content", "role"}, ...]), as JSON Lines or Parquet.
const FormatMTBench = "mtbench"

// mtComparison is one non-tie human comparison, winner first.
type mtComparison struct {
	Winner string `json:"winner"`
	Loser  string `json:"loser"`
	Judge  string `json:"judge,omitempty"`
}

// mtTally counts a candidate's human comparisons.
type mtTally struct{ wins, ties, n int }

// readMTBench builds the dataset: context = question × turn ("81/2"),
// candidates = the models compared on it, text = the model's reply at
// that turn, source = the user's turns up to it. The target is the
// candidate's human win rate, (wins + ties/2) / comparisons; the
// individual non-tie comparisons are kept in the context's
// Extra["comparisons"] (JSON, winner first).
func readMTBench(loc *locator) (*model.Dataset, error) {
	b := newBuilder(baseName(loc.name), FormatMTBench, model.TaskAnswer, model.MetricPairwise)
	tally := map[[2]string]*mtTally{}
	comps := map[string][]mtComparison{}
	add := func(r mappedRecord, where string) error {
		return mtRecord(b, r, tally, comps)
	}
	if err := eachJSONLOrParquet(loc, add); err != nil {
		return nil, err
	}
	if len(b.d.Contexts) == 0 {
		return nil, &ParseError{File: loc.name, Msg: "no judgments"}
	}
	for ci := range b.d.Contexts {
		c := &b.d.Contexts[ci]
		for ki := range c.Candidates {
			k := &c.Candidates[ki]
			t := tally[[2]string{c.ID, k.ID}]
			k.Human = (float64(t.wins) + float64(t.ties)/2) / float64(t.n)
			setExtra(&k.Extra, "comparisons", itoa(t.n))
			setExtra(&k.Extra, "wins", itoa(t.wins))
			setExtra(&k.Extra, "ties", itoa(t.ties))
		}
		js, _ := json.Marshal(comps[c.ID])
		if comps[c.ID] == nil {
			js = []byte("[]")
		}
		setExtra(&c.Extra, model.ExtraComparisons, string(js))
	}
	return b.d, nil
}

// mtRecord adds one judgment: its context, both candidates and the tally.
func mtRecord(b *builder, r mappedRecord, tally map[[2]string]*mtTally, comps map[string][]mtComparison) error {
	j, err := readMTJudgment(r)
	if err != nil {
		return err
	}
	ci, _ := b.context(j.ctxID)
	for i, side := range []string{"a", "b"} {
		user, reply, err := mtTurn(r, "conversation_"+side, j.turn)
		if err != nil {
			return err
		}
		if b.d.Contexts[ci].Source == "" {
			b.d.Contexts[ci].Source = user
		}
		if !b.hasCandidate(ci, j.models[i]) {
			b.addCandidate(ci, model.Candidate{ID: j.models[i], Text: reply})
			tally[[2]string{j.ctxID, j.models[i]}] = &mtTally{}
		}
	}
	ta, tb := tally[[2]string{j.ctxID, j.models[0]}], tally[[2]string{j.ctxID, j.models[1]}]
	ta.n++
	tb.n++
	switch {
	case j.winner == "model_a":
		ta.wins++
		comps[j.ctxID] = append(comps[j.ctxID], mtComparison{j.models[0], j.models[1], j.judge})
	case j.winner == "model_b":
		tb.wins++
		comps[j.ctxID] = append(comps[j.ctxID], mtComparison{j.models[1], j.models[0], j.judge})
	case strings.HasPrefix(j.winner, "tie"):
		ta.ties++
		tb.ties++
	default:
		return r.fail(lookup(r.node, "winner"), "winner", "want model_a, model_b, tie or tie (bothbad), got %s", model.Quote(j.winner))
	}
	return nil
}

// mtJudgment is what one record says: the question's turn (the context
// QUESTION/TURN), the two models, the winner and the judge.
type mtJudgment struct {
	ctxID         string
	turn          int
	models        [2]string
	winner, judge string
}

func readMTJudgment(r mappedRecord) (mtJudgment, error) {
	var j mtJudgment
	q, err := mappedID(r, "question_id", "question_id")
	if err != nil {
		return j, err
	}
	turnText, err := mappedID(r, "turn", "turn")
	if err != nil {
		return j, err
	}
	switch turnText {
	case "1", "2":
		j.turn = int(turnText[0] - '0')
	default:
		return j, r.fail(lookup(r.node, "turn"), "turn", "want 1 or 2, got %s", model.Quote(turnText))
	}
	j.ctxID = q + "/" + turnText
	for i, side := range []string{"a", "b"} {
		if j.models[i], err = mappedID(r, "model_"+side, "model_"+side); err != nil {
			return j, err
		}
	}
	if j.models[0] == j.models[1] {
		return j, r.fail(r.node, "model_b", "the same model as model_a (%s)", model.Quote(j.models[0]))
	}
	if j.winner, err = mappedText(r, "winner", "winner"); err != nil {
		return j, err
	}
	j.judge, _ = mappedText(r, "judge", "judge")
	return j, nil
}

// mtTurn reads a conversation's user turns up to turn (the source) and
// the assistant's reply at that turn.
func mtTurn(r mappedRecord, field string, turn int) (user, reply string, err error) {
	conv := lookup(r.node, field)
	if conv == nil || conv.kind != jArray {
		return "", "", r.fail(r.node, field, "missing or not a list of messages")
	}
	var users []string
	replies := 0
	for i, m := range conv.items {
		role, content := m.get("role"), m.get("content")
		if role == nil || content == nil || role.kind != jString || content.kind != jString {
			return "", "", r.fail(m, sprintf("%s.%d", field, i), "want {\"role\", \"content\"} strings")
		}
		switch role.text {
		case "user":
			if len(users) < turn {
				users = append(users, content.text)
			}
		case "assistant":
			if replies++; replies == turn {
				reply = content.text
			}
		}
	}
	if len(users) < turn || replies < turn {
		return "", "", r.fail(conv, field, "has no turn %d", turn)
	}
	if turn == 1 {
		return users[0], reply, nil
	}
	return "Turn 1: " + users[0] + "\n\nTurn 2: " + users[1], reply, nil
}
