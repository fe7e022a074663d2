package judge

import (
	"math"
	"strings"
	"testing"

	"github.com/prism-eval/prism/banks"
)

var sajaCrits = []banks.RatedCriterion{
	{Name: "a", Scale: banks.Scale{Min: 1, Max: 5}},
	{Name: "b", Scale: banks.Scale{Min: 0, Max: 10}},
	{Name: "c", Scale: banks.Scale{Min: 1, Max: 3}},
}

// cell is an expected item: a score, or the kind of its error.
type cell struct {
	score float64
	kind  ErrorKind
}

func TestParseSAJA(t *testing.T) {
	ok := func(v float64) cell { return cell{score: v} }
	bad := func(k ErrorKind) cell { return cell{kind: k} }
	cases := []struct {
		name  string
		reply string
		fail  ErrorKind // the whole reply failed
		cells []cell
	}{
		{"canonical", `{"a": 4, "b": 7, "c": 2}`, "", []cell{ok(4), ok(7), ok(2)}},
		{"fenced, extra member", "```json\n{\"a\": 1, \"note\": \"x\", \"b\": 0, \"c\": 3}\n```", "", []cell{ok(1), ok(0), ok(3)}},
		{"in prose, quoted and 2.0", `Sure! {"a": 4, "b": "7", "c": 2.0} Hope this helps.`, "", []cell{ok(4), ok(7), ok(2)}},
		{"exponent", `{"a": 1e0, "b": 0.1e2, "c": 3}`, "", []cell{ok(1), ok(10), ok(3)}},
		{"out of scale and missing", `{"a": 6, "b": 7}`, "", []cell{bad(KindOutOfRange), ok(7), bad(KindUnparseable)}},
		{"below scale", `{"a": 0, "b": -1, "c": 1}`, "", []cell{bad(KindOutOfRange), bad(KindOutOfRange), ok(1)}},
		{"not integers", `{"a": 4.5, "b": null, "c": "x"}`, "", []cell{bad(KindUnparseable), bad(KindUnparseable), bad(KindUnparseable)}},
		{"stated twice", `{"a": 4, "a": 5, "b": 1, "b": 1, "c": 1}`, "", []cell{bad(KindUnparseable), ok(1), ok(1)}},
		{"case matters", `{"A": 4, "b": 1, "c": 1}`, "", []cell{bad(KindUnparseable), ok(1), ok(1)}},
		{"nested object is not read", `{"b": 2, "x": {"a": 3}}`, "", []cell{bad(KindUnparseable), ok(2), bad(KindUnparseable)}},
		{"object naming no criterion", `{"x": 1}`, KindUnparseable, nil},
		{"a bare number", `4`, KindUnparseable, nil},
		{"an array", `[{"a": 1, "b": 1, "c": 1}]`, KindUnparseable, nil},
		{"prose", `Accuracy: 4, b: 3`, KindUnparseable, nil},
		{"refusal", `I cannot rate this summary.`, KindRefusal, nil},
		{"two objects", `{"a": 1} and then {"b": 2}`, KindUnparseable, nil},
		{"broken JSON", `{"a": 4, "b": 7`, KindUnparseable, nil},
		{"empty", ``, KindUnparseable, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			items, err := ParseSAJA(c.reply, sajaCrits)
			if len(items) != len(sajaCrits) {
				t.Fatalf("%d items, want %d", len(items), len(sajaCrits))
			}
			for i, it := range items {
				if it.ID != sajaCrits[i].Name {
					t.Errorf("item %d ID %q", i, it.ID)
				}
			}
			if c.fail != "" {
				if KindOf(err) != c.fail {
					t.Fatalf("error %v, want kind %s", err, c.fail)
				}
				for _, it := range items {
					if it.HasScore || it.Err == nil || it.Err.Kind != c.fail {
						t.Errorf("failed reply left item %+v", it)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("error %v", err)
			}
			for i, want := range c.cells {
				it := items[i]
				switch {
				case want.kind == "" && (!it.HasScore || it.Score != want.score || it.Err != nil):
					t.Errorf("%s = %+v, want %v", it.ID, it, want.score)
				case want.kind != "" && (it.HasScore || it.Score != 0 || it.Err == nil || it.Err.Kind != want.kind):
					t.Errorf("%s = %+v (err %v), want a missing cell of kind %s", it.ID, it, it.Err, want.kind)
				}
			}
		})
	}
	items, _ := ParseSAJA(`{"a": 9, "b": 1, "c": 1}`, sajaCrits)
	if items[0].Err.Value != 9 || !strings.Contains(items[0].Err.Error(), "criterion a") {
		t.Errorf("out-of-range cell %+v should carry 9 and name the criterion", items[0].Err)
	}
}

func TestLocateRating(t *testing.T) {
	cases := []struct {
		text, label string
		want        float64
		lit         string
		kind        ErrorKind
	}{
		{"4", "Coherence", 4, "4", ""},
		{" 4\n", "", 4, "4", ""},
		{"- 4", "Coherence", 4, "4", ""},
		{"**4**", "Coherence", 4, "4", ""},
		{"4 - the summary is clear.", "Coherence", 4, "4", ""},
		{"3.5", "Coherence", 3.5, "3.5", ""},
		{"4/5", "Coherence", 4, "4", ""},
		{"4.", "Coherence", 4, "4", ""},
		{"5 out of 5", "Coherence", 5, "5", ""},
		{"- Coherence: 4", "Coherence", 4, "4", ""},
		{"**Coherence:** 5", "Coherence", 5, "5", ""},
		{"coherence (1-5): 2", "Coherence", 2, "2", ""},
		{"Coherence = 3", "Coherence", 3, "3", ""},
		{"Coherence – 3", "Coherence", 3, "3", ""},
		{"The form.\n- Coherence: 4\n- Coherence: 2", "Coherence", 4, "4", ""},
		{"1-5 scale. Coherence: 3", "Coherence", 3, "3", ""},
		{"Key points: 2", "Key points", 2, "2", ""},
		{"I rate it 4", "Coherence", 0, "", KindUnparseable},
		{"Incoherence: 4", "Coherence", 0, "", KindUnparseable},
		{"4th place", "Coherence", 0, "", KindUnparseable},
		{"Score: 4", "Coherence", 0, "", KindUnparseable},
		{"Coherence is good: 4", "Coherence", 0, "", KindUnparseable},
		{"", "Coherence", 0, "", KindUnparseable},
		{"I cannot assist with that.", "Coherence", 0, "", KindRefusal},
	}
	for _, c := range cases {
		v, sp, err := LocateRating(c.text, c.label)
		if c.kind != "" {
			if KindOf(err) != c.kind {
				t.Errorf("LocateRating(%q) = %v, %v; want kind %s", c.text, v, err, c.kind)
			}
			continue
		}
		if err != nil || v != c.want || c.text[sp.Start:sp.End] != c.lit {
			t.Errorf("LocateRating(%q) = %v at %q, %v; want %v", c.text, v, c.text[sp.Start:sp.End], err, c.want)
		}
	}
}

func TestParseRating(t *testing.T) {
	three := banks.Scale{Min: 1, Max: 3}
	if v, err := ParseRating("2.5", "Fluency", three); err != nil || v != 2.5 {
		t.Errorf("2.5 on 1–3 = %v, %v", v, err)
	}
	for _, s := range []string{"4", "Fluency: 0.5", "-1"} {
		_, err := ParseRating(s, "Fluency", three)
		var e *Error
		if KindOf(err) != KindOutOfRange {
			t.Errorf("ParseRating(%q) = %v, want out of range", s, err)
		} else if e = err.(*Error); e.Value == 0 && s != "0" {
			t.Errorf("out-of-range error %+v lost the value", e)
		}
	}
}

func TestMeanRatings(t *testing.T) {
	five := banks.Scale{Min: 1, Max: 5}
	r, err := MeanRatings([]string{"4", "Coherence: 5", "I think 3", "- 2", "7"}, "Coherence", five)
	// Valid: 4, 5, 2 → 11/3; "I think 3" unparseable, 7 out of range.
	if err != nil || r.Valid != 3 || r.Invalid != 2 || math.Abs(r.Score-11.0/3) > 1e-15 || len(r.Errs) != 2 {
		t.Errorf("MeanRatings = %+v, %v; want 11/3 from 3 valid", r, err)
	}
	if r.Errs[0].Kind != KindUnparseable || r.Errs[1].Kind != KindOutOfRange {
		t.Errorf("invalid replies %v", r.Errs)
	}
	for _, c := range []struct {
		replies []string
		kind    ErrorKind
	}{
		{[]string{"good", "fine"}, KindUnparseable},
		{[]string{"I cannot do that.", "I won't."}, KindRefusal},
		{[]string{"9", "Coherence: 0"}, KindOutOfRange},
		{[]string{"9", "meh"}, KindUnparseable},
		{nil, KindUnparseable},
	} {
		r, err := MeanRatings(c.replies, "Coherence", five)
		if KindOf(err) != c.kind || r.Valid != 0 || r.Score != 0 {
			t.Errorf("MeanRatings(%q) = %+v, %v; want kind %s", c.replies, r, err, c.kind)
		}
	}
}

func top(alts ...any) []TopLogprob {
	var out []TopLogprob
	for i := 0; i+1 < len(alts); i += 2 {
		out = append(out, TopLogprob{Token: alts[i].(string), Logprob: math.Log(alts[i+1].(float64))})
	}
	return out
}

func TestExpectedRating(t *testing.T) {
	five, three := banks.Scale{Min: 1, Max: 5}, banks.Scale{Min: 1, Max: 3}
	cases := []struct {
		name        string
		top         []TopLogprob
		sc          banks.Scale
		score, mass float64
		kind        ErrorKind
	}{
		// (1·.1 + 2·.2 + 3·.3 + 4·.3 + 5·.05) / .95 = 2.85/.95 = 3.
		{"hand", top("1", .1, "2", .2, "3", .3, "4", .3, "5", .05, " the", .05), five, 3, .95, ""},
		// " 4" and "4" merge: P(4) = .6; 6 is off the scale: (4·.6 + 5·.2)/.8 = 4.25.
		{"merge and drop", top("4", .4, " 4", .2, "5", .2, "6", .2), five, 4.25, .8, ""},
		// Fluency 1–3: (2·.5 + 3·.25 + 1·.25)/1 = 2.
		{"fluency", top("2", .5, "3", .25, "1", .25), three, 2, 1, ""},
		{"one token", top("Ġ5", 1.0), five, 5, 1, ""},
		{"no mass", top("The", .9, "6", .1), five, 0, 0, KindNoMass},
		{"only zero", top("0", 1.0), five, 0, 0, KindNoMass},
		{"none", nil, five, 0, 0, KindNoLogprobs},
	}
	for _, c := range cases {
		ex, err := ExpectedRating(c.top, c.sc)
		if c.kind != "" {
			if KindOf(err) != c.kind {
				t.Errorf("%s: error %v, want %s", c.name, err, c.kind)
			}
			continue
		}
		if err != nil || math.Abs(ex.Score-c.score) > 1e-12 || math.Abs(ex.Mass-c.mass) > 1e-12 {
			t.Errorf("%s: %+v, %v; want score %v mass %v", c.name, ex, err, c.score, c.mass)
		}
	}
}

func TestReadRatingLogprobs(t *testing.T) {
	five := banks.Scale{Min: 1, Max: 5}
	form := []TokenLogprob{
		tok("- ", "- ", 1.0), tok("Coherence", "Coherence", 1.0), tok(":", ":", 1.0),
		tok(" 4", " 4", .5, " 3", .25, " 5", .25), tok("\n", "\n", 1.0),
	}
	// (4·.5 + 3·.25 + 5·.25) = 4.
	if ex, err := ReadRatingLogprobs(form, "Coherence", five); err != nil || ex.Score != 4 || ex.Mass != 1 {
		t.Errorf("after the label: %+v, %v", ex, err)
	}
	// A leading rating: 3·.6 + 2·.4 = 2.6.
	lead := []TokenLogprob{tok("3", "3", .6, "2", .4)}
	if ex, err := ReadRatingLogprobs(lead, "Coherence", five); err != nil || math.Abs(ex.Score-2.6) > 1e-12 {
		t.Errorf("leading: %+v, %v", ex, err)
	}
	// The chosen rating is off the scale and so is every alternative.
	off := []TokenLogprob{tok("9", "9", .7, "x", .3)}
	if _, err := ReadRatingLogprobs(off, "Coherence", five); KindOf(err) != KindNoMass {
		t.Errorf("no mass: %v", err)
	}
	words := []TokenLogprob{tok("Good", "Good", 1.0)}
	if _, err := ReadRatingLogprobs(words, "Coherence", five); KindOf(err) != KindUnparseable {
		t.Errorf("no rating: %v", err)
	}
	if _, err := ReadRatingLogprobs(nil, "Coherence", five); KindOf(err) != KindNoLogprobs {
		t.Errorf("no tokens: %v", err)
	}
	bare := []TokenLogprob{{Token: "4", Logprob: 0}}
	if _, err := ReadRatingLogprobs(bare, "Coherence", five); KindOf(err) != KindNoLogprobs {
		t.Errorf("no alternatives: %v", err)
	}
}

func TestGEvalScore(t *testing.T) {
	g, err := banks.BuiltinRubric("geval-summeval")
	if err != nil {
		t.Fatal(err)
	}
	// coherence 4 of 1–5 → .75, consistency 5 → 1, fluency 2 of 1–3 → .5,
	// relevance 3 → .5: mean 2.75/4 = .6875.
	s, err := GEvalScore(g.Criteria, map[string]float64{"coherence": 4, "consistency": 5, "fluency": 2, "relevance": 3})
	if err != nil || s != .6875 {
		t.Errorf("GEvalScore = %v, %v; want .6875", s, err)
	}
	// Means of samples: coherence 3.4 → .6, consistency 1 → 0, fluency 2.5 → .75, relevance 4.2 → .8: 2.15/4.
	s, err = GEvalScore(g.Criteria, map[string]float64{"coherence": 3.4, "consistency": 1, "fluency": 2.5, "relevance": 4.2})
	if err != nil || math.Abs(s-2.15/4) > 1e-15 {
		t.Errorf("GEvalScore = %v, %v; want %v", s, err, 2.15/4)
	}
	_, err = GEvalScore(g.Criteria, map[string]float64{"coherence": 4, "fluency": 2, "relevance": math.NaN()})
	if KindOf(err) != KindUnparseable || !strings.Contains(err.Error(), "consistency, relevance") {
		t.Errorf("missing criteria: %v", err)
	}
	_, err = GEvalScore(g.Criteria, map[string]float64{"coherence": 4, "consistency": 5, "fluency": 4, "relevance": 3})
	if KindOf(err) != KindOutOfRange {
		t.Errorf("fluency 4 of 1–3: %v", err)
	}
	if _, err := GEvalScore(nil, nil); KindOf(err) != KindConfig {
		t.Errorf("no criteria: %v", err)
	}
}

func TestExpectedRatingTolerance(t *testing.T) {
	five := banks.Scale{Min: 1, Max: 5}
	ex, err := ExpectedRating([]TopLogprob{{"4", 3e-7}, {"3", -16}}, five)
	if err != nil || math.Abs(ex.Score-4) > 1e-5 {
		t.Errorf("4 at +3e-7: %+v, %v; want 4", ex, err)
	}
	if _, err := ExpectedRating([]TopLogprob{{"4", -0.1}, {"5", -0.1}}, five); KindOf(err) != KindBadMass {
		t.Errorf("Σp = 1.81: error %v, want bad_mass", err)
	}
}
