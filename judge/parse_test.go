package judge

import (
	"errors"
	"strconv"
	"testing"

	"github.com/prism-eval/prism/banks"
)

var ten = banks.Scale{Min: 1, Max: 10}

// TestParseScore: replies as real judges and hostile servers send them.
// Only the requested JSON object, or a reply that is nothing but a
// (labelled) number, scores; a refusal, hedge or chatty answer never does,
// whatever number it ends in. value is the score, or the Error's Value.
func TestParseScore(t *testing.T) {
	cases := []struct {
		text  string
		sc    banks.Scale
		kind  ErrorKind
		value float64
	}{
		// Refusals that contain or end in a number.
		{"I cannot rate this summary on a scale of 1 to 10.", ten, KindRefusal, 0},
		{"I must decline to rate this content. (Policy 4)", ten, KindRefusal, 0},
		{"As an AI, I can't provide a score out of 10.", ten, KindRefusal, 0},
		{"I'm sorry, but I won't score this. Error code 3", ten, KindRefusal, 0},
		{"I’m unable to evaluate this summary without the 2 source documents.", ten, KindRefusal, 0},
		{"I'm not comfortable rating a text that describes violence against 3 people.", ten, KindRefusal, 0},
		{"This request was flagged under our usage policy, rule 7.", ten, KindRefusal, 0},
		{"I can't score this.\nScore: 10", ten, KindRefusal, 0},
		{"I'm sorry, but I cannot assist with that request.", ten, KindRefusal, 0},
		{"I can’t evaluate this content.", ten, KindRefusal, 0},
		{`{"score": null, "reason": "I cannot rate this content."}`, ten, KindRefusal, 0},
		// Hedges.
		{"It's somewhere between 6 and 8.", ten, KindUnparseable, 0},
		{"Maybe a 7?", ten, KindUnparseable, 0},
		{"I'd say 7 or 8", ten, KindUnparseable, 0},
		{"6-7", ten, KindUnparseable, 0},
		{"Score: 7 (maybe 8)", ten, KindUnparseable, 0},
		{"I first thought {\"score\": 3} but on reflection {\"score\": 5}", ten, KindUnparseable, 0}, // ambiguous
		{`{"score": 3, "score": 5}`, ten, KindUnparseable, 0},
		// Chatty answers and forms that are not the requested one.
		{"This summary is good. I give it a 7 because it covers 3 points.", ten, KindUnparseable, 0},
		{"The summary covers 3 of the 5 points. Score: 6", ten, KindUnparseable, 0},
		{"Overall it deserves a 9.", ten, KindUnparseable, 0},
		{"It was 3 points short; I give it 4", ten, KindUnparseable, 0},
		{"I'd say 7/10.", ten, KindUnparseable, 0},
		{"7/10", ten, KindUnparseable, 0},
		{"7 out of 10", ten, KindUnparseable, 0},
		{"Rating = 2", ten, KindUnparseable, 0},
		{"Score: seven", ten, KindUnparseable, 0},
		{"10.", ten, KindUnparseable, 0},
		{"The summary is good.", ten, KindUnparseable, 0},
		{"", ten, KindUnparseable, 0},
		{`{'score': 3}`, ten, KindUnparseable, 0},    // not JSON
		{`{"score": 07}`, ten, KindUnparseable, 0},   // not JSON
		{`{"score": +3}`, ten, KindUnparseable, 0},   // not JSON
		{`{"score": "07"}`, ten, KindUnparseable, 0}, // not a JSON number
		{`{"score": " 7"}`, ten, KindUnparseable, 0},
		{`{"score": "high"}`, ten, KindUnparseable, 0},
		{`{"score": [7]}`, ten, KindUnparseable, 0},
		{`{"result": {"score": 7}}`, ten, KindUnparseable, 0}, // only top-level members count
		{`{"score": 7`, ten, KindUnparseable, 0},              // cut off
		{`{"score": 1e400}`, ten, KindUnparseable, 0},
		// The requested form and its documented variants.
		{`{"score": 7}`, ten, "", 7},
		{`{"score":10}`, ten, "", 10},
		{`{"score":1e1}`, ten, "", 10},
		{`{"score": 0.7e1}`, ten, "", 7},
		{`{"score": 70E-1}`, ten, "", 7},
		{`{"score": 7.0}`, ten, "", 7},
		{`{"score": "7"}`, ten, "", 7},
		{`  {"score": 7}` + "\n", ten, "", 7},
		{`{"score": 7, "reason": "clear and faithful"}`, ten, "", 7},
		{`{"reasoning": "It covers 3 of the 5 points.", "score": 6}`, ten, "", 6},
		{"```json\n{\"score\": 8}\n```", ten, "", 8},
		{"```\n{\"score\": 8}\n```", ten, "", 8},
		{"Sure! {\"score\": 7}", ten, "", 7},
		{"Here is my rating.\n```json\n{\"score\": \"8\"}\n```\nHope this helps.", ten, "", 8},
		{"Sure! {\"score\": 7, \"detail\": {\"score\": 3}}", ten, "", 7}, // nested ignored
		{`{"score": 7} {"score": 7.0}`, ten, "", 7},                      // repeated, same value
		{"I can't fault it. {\"score\": 9}", ten, "", 9},                 // refusal words, requested format
		{`{"score": 2, "reason": "I cannot find the main point."}`, ten, "", 2},
		{"7", ten, "", 7},
		{"7\n", ten, "", 7},
		{"  **7**  ", ten, "", 7},
		{"Score: 7", ten, "", 7},
		{"**Score:** 9", ten, "", 9},
		{"score:3", ten, "", 3},
		{`{"score": 0}`, banks.Scale{Min: 0, Max: 4}, "", 0},
		{`{"score": -0}`, banks.Scale{Min: 0, Max: 4}, "", 0},
		{`{"score": 100}`, banks.Scale{Min: 0, Max: 100}, "", 100},
		{`{"score": -2}`, banks.Scale{Min: -3, Max: 3}, "", -2},
		// A number of the wrong kind.
		{`{"score": 7.5}`, ten, KindUnparseable, 7.5},
		{"7.5", ten, KindUnparseable, 7.5},
		{`{"score": 7.0000000000000000001}`, ten, KindUnparseable, 7}, // not an integer, though it rounds to 7.0
		{`{"score": 1e-400}`, ten, KindUnparseable, 0},
		{`{"score": 11}`, ten, KindOutOfRange, 11},
		{"Score: 11", ten, KindOutOfRange, 11},
		{`{"score": 0}`, ten, KindOutOfRange, 0},
		{`{"score": 1e308}`, ten, KindOutOfRange, 1e308},
		{`{"score": 5}`, banks.Scale{Min: 0, Max: 4}, KindOutOfRange, 5},
	}
	for _, c := range cases {
		got, err := ParseScore(c.text, c.sc)
		var value float64
		if e, ok := err.(*Error); ok {
			value = e.Value
		} else if err == nil {
			value = float64(got)
		}
		if KindOf(err) != c.kind || value != c.value {
			t.Errorf("ParseScore(%q, %d–%d) = %d, %v (value %g); want kind %q, value %g", c.text, c.sc.Min, c.sc.Max, got, err, value, c.kind, c.value)
		}
	}
}

func TestParseScoreMessages(t *testing.T) {
	for text, want := range map[string]string{
		`{"score": 7.5}`:                 "judge: unparseable: score 7.5 is not an integer",
		`{"score": 0.75e1}`:              "judge: unparseable: score 0.75e1 is not an integer",
		`{"score": 1e400}`:               "judge: unparseable: score 1e400 is beyond the range of a number",
		`{"score": "high"}`:              `judge: unparseable: the score "high" is not a number`,
		`{"score": 3} then {"score": 5}`: "judge: unparseable: the reply states different scores (3 and 5)",
	} {
		if _, err := ParseScore(text, ten); err == nil || err.Error() != want {
			t.Errorf("ParseScore(%q): %v, want %q", text, err, want)
		}
	}
}

// TestLocateScoreSpan: the span covers the number's characters, which the
// logprob reader looks up among the tokens.
func TestLocateScoreSpan(t *testing.T) {
	for text, want := range map[string]string{
		`{"score": 7}`:                        "7",
		`{"score": "8"}`:                      "8",
		"Sure! {\"score\": 1e1}":              "1e1",
		"  **Score:** 9\n":                    "9",
		"-2":                                  "-2",
		`{"score": 4} and again {"score": 4}`: "4",
	} {
		_, sp, err := LocateScore(text)
		if err != nil || text[sp.Start:sp.End] != want {
			t.Errorf("LocateScore(%q) span %+v (%v), want %q", text, sp, err, want)
		}
	}
	// The last of repeated statements, where a model settles.
	text := `{"score": 4} and again {"score": 4}`
	if _, sp, _ := LocateScore(text); sp.Start != len(text)-2 {
		t.Errorf("span %+v, want the last 4", sp)
	}
}

func TestIntegral(t *testing.T) {
	for lit, want := range map[string]bool{
		"7": true, "-7": true, "0": true, "-0": true, "7.0": true, "1e1": true, "0.7e1": true, "70e-1": true,
		"1.50e1": true, "100e-2": true, "0.0e-5": true, "1e99999999999999999999": true,
		"7.5": false, "0.75e1": false, "1e-1": false, "7.0000000000000000001": false, "1e-99999999999999999999": false,
	} {
		if integral(lit) != want {
			t.Errorf("integral(%q) = %v", lit, !want)
		}
	}
}

func TestOutOfRangeCarriesValue(t *testing.T) {
	_, err := ParseScore(`{"score": 42}`, ten)
	e, ok := err.(*Error)
	if !ok || e.Kind != KindOutOfRange || e.Value != 42 {
		t.Fatalf("got %#v", err)
	}
	if want := "judge: out_of_range: score 42 outside the scale 1–10"; e.Error() != want {
		t.Errorf("message %q, want %q", e.Error(), want)
	}
}

func TestLocateBatch(t *testing.T) {
	ids := []string{"c7", "c2", "c9"}
	cases := []struct {
		text string
		want []float64 // -1 = not found
	}{
		{`{"scores": {"c2": 4, "c9": 8, "c7": 6}}`, []float64{6, 4, 8}},
		{"```json\n{\"scores\": {\"c2\": 4, \"c9\": 8, \"c7\": 6}}\n```", []float64{6, 4, 8}},
		{`Here you go: {"scores": {"c2": 4, "c9": 8, "c7": 6}} Thanks.`, []float64{6, 4, 8}},
		{`{"scores": {"c7": 1e1, "c2": "5", "c9": 0.7e1}}`, []float64{10, 5, 7}},
		{`{"scores": {"c7": 7.5, "c2": "high", "c9": null}}`, []float64{7.5, -1, -1}},
		{`[{"id": "c9", "score": 1}, {"id": "c7", "score": 2}, {"id": "c2", "score": 3}]`, []float64{2, 3, 1}},
		{`{"scores": [{"candidate": "c9", "score": 1}, {"label": "c7", "score": "2"}]}`, []float64{2, -1, 1}},
		{`{"Summary 1": 5, "Summary 2": 6, "Summary 3": 7}`, []float64{5, 6, 7}},
		{`{"c7": 5, "c2": 6}`, []float64{5, 6, -1}},
		{`{"c7": 5, "c7": 9, "c2": 1, "c9": 2}`, []float64{-1, 1, 2}}, // c7 stated twice, differently
		{`{"c7": 5, "c7": 5.0, "c2": 1, "c9": 2}`, []float64{5, 1, 2}},
		{`{"scores": {"c7": 1}} {"scores": {"c7": 2}}`, []float64{-1, -1, -1}}, // ambiguous
		{`{"c7": 1} {"c2": 2}`, []float64{-1, -1, -1}},                         // two maps, neither is the scores member
		{"Summary 1: 5, Summary 2: 6, Summary 3: 7", []float64{-1, -1, -1}},    // prose
		{"c7 gets 5, c2 gets 6 and c9 gets 7.", []float64{-1, -1, -1}},
		{`{'c7': 5}`, []float64{-1, -1, -1}},
		{`{"scores": {"c7": 5, "c2": 6`, []float64{-1, -1, -1}}, // cut off
	}
	for _, c := range cases {
		got := LocateBatch(c.text, ids)
		for i, l := range got {
			if (c.want[i] < 0) == l.Found || (l.Found && l.Value != c.want[i]) {
				t.Errorf("LocateBatch(%q)[%d] = %+v, want %v", c.text, i, l, c.want[i])
			}
			if l.Found {
				if v, err := strconv.ParseFloat(c.text[l.Span.Start:l.Span.End], 64); err != nil || v != l.Value {
					t.Errorf("LocateBatch(%q)[%d]: span %q is not the value %v", c.text, i, c.text[l.Span.Start:l.Span.End], l.Value)
				}
			}
		}
	}
}

func TestParseBatchClassifies(t *testing.T) {
	keys, ids := []string{"1", "2", "3", "4", "5"}, []string{"a", "b", "c", "d", "e"}
	items := ParseBatch(`{"scores": {"1": 3, "2": 12, "4": 0.7e1, "5": 7.5}}`, keys, ids, ten)
	want := []struct {
		kind  ErrorKind
		value float64
	}{{"", 3}, {KindOutOfRange, 12}, {KindUnparseable, 0}, {"", 7}, {KindUnparseable, 7.5}}
	for i, it := range items {
		var kind ErrorKind
		value := it.Score
		if it.Err != nil {
			kind, value = it.Err.Kind, it.Err.Value
		}
		if it.ID != ids[i] || it.HasScore != (kind == "") || kind != want[i].kind || value != want[i].value {
			t.Errorf("%s: %+v (err %v), want kind %q value %v", ids[i], it, it.Err, want[i].kind, want[i].value)
		}
	}
	// A refusal that lists numbers scores no candidate.
	for _, it := range ParseBatch("I cannot compare these. Summary 1: 7, Summary 2: 5", keys[:2], ids[:2], ten) {
		if it.HasScore || it.Err.Kind != KindRefusal {
			t.Errorf("refusal: %+v", it)
		}
	}
}

// TestCanonicalMatchesGeneralPath: the fast path for {"score": N} gives
// exactly what the general JSON path gives, and declines everything else.
func TestCanonicalMatchesGeneralPath(t *testing.T) {
	for _, text := range []string{
		`{"score": 7}`, `{"score":10}`, " \n{ \"score\" :\t-3 }\n", `{"score": 0}`, `{"score": 123456789}`,
		`{"score": 07}`, `{"score": 1234567890}`, `{"score": 7.0}`, `{"score": 1e1}`, `{"score": 7} x`,
		`{"score": 7,}`, `{"score": "7"}`, `{"Score": 7}`, `{"score": -}`, `{"score": 7`, `{}`, ``,
	} {
		lit, v, sp, ok := canonical(text)
		// The general path, with the fast path out of the way.
		var gLit string
		var gV float64
		var gSp Span
		var gErr error
		func() {
			n := 0
			for _, o := range topObjects(text) {
				for k, key := range o.keys {
					if key == "score" {
						if l, s, ok := o.vals[k].number(text); ok && n == 0 {
							gLit, gSp = l, s
							gV, _ = strconv.ParseFloat(l, 64)
							n++
						}
					}
				}
			}
			if n == 0 {
				gErr = errNoScore
			}
		}()
		if !ok {
			continue // declined: the general path decides
		}
		if gErr != nil || lit != gLit || v != gV || sp != gSp {
			t.Errorf("%q: fast path %q %v %v, general path %q %v %v (%v)", text, lit, v, sp, gLit, gV, gSp, gErr)
		}
	}
	for _, text := range []string{`{"score": 07}`, `{"score": 1234567890}`, `{"score": 7.0}`, `{"score": 1e1}`, `{"score": 7} x`, `{"score": "7"}`} {
		if _, _, _, ok := canonical(text); ok {
			t.Errorf("%q: the fast path took a reply it must leave to the general path", text)
		}
	}
}

var errNoScore = errors.New("no score")
