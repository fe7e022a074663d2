package judge

import (
	"testing"

	"github.com/prism-eval/prism/banks"
)

var ten = banks.Scale{Min: 1, Max: 10}

func TestParseScore(t *testing.T) {
	cases := []struct {
		text string
		sc   banks.Scale
		want int
		kind ErrorKind
	}{
		{`{"score": 7}`, ten, 7, ""},
		{`{"score":10}`, ten, 10, ""},
		{`{"score": "7"}`, ten, 7, ""},
		{`{'score': 3}`, ten, 3, ""},
		{`{"score": 7.0}`, ten, 7, ""},
		{"```json\n{\"score\": 8}\n```", ten, 8, ""},
		{"Sure! Here is the rating:\n{\"score\": 4}\nThe summary misses the key point.", ten, 4, ""},
		{`I first thought {"score": 3} but on reflection {"score": 5}`, ten, 5, ""}, // last wins
		{"The summary covers 3 of the 5 points. Score: 6", ten, 6, ""},
		{"Rating = 2", ten, 2, ""},
		{"I'd say 7/10.", ten, 7, ""},
		{"7 out of 10", ten, 7, ""},
		{"Overall it deserves a 9.", ten, 9, ""},
		{"It was 3 points short; I give it 4", ten, 4, ""},
		{`{"score": 0}`, banks.Scale{Min: 0, Max: 4}, 0, ""},
		{`{"score": 100}`, banks.Scale{Min: 0, Max: 100}, 100, ""},
		{`{"score": -2}`, banks.Scale{Min: -3, Max: 3}, -2, ""},
		{`{"score": 11}`, ten, 0, KindOutOfRange},
		{`{"score": 0}`, ten, 0, KindOutOfRange},
		{`{"score": 5}`, banks.Scale{Min: 0, Max: 4}, 0, KindOutOfRange},
		{`{"score": 7.5}`, ten, 0, KindUnparseable},
		{`{"score": "high"}`, ten, 0, KindUnparseable},
		{"The summary is good.", ten, 0, KindUnparseable},
		{"", ten, 0, KindUnparseable},
		{"I'm sorry, but I cannot assist with that request.", ten, 0, KindRefusal},
		{"I can’t evaluate this content.", ten, 0, KindRefusal},
		{"I can't fault it. Score: 9", ten, 9, ""}, // refusal words but a score
	}
	for _, c := range cases {
		got, err := ParseScore(c.text, c.sc)
		if KindOf(err) != c.kind || (c.kind == "" && got != c.want) {
			t.Errorf("ParseScore(%q, %d–%d) = %d, %v; want %d, kind %q", c.text, c.sc.Min, c.sc.Max, got, err, c.want, c.kind)
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
		want []float64 // NaN-free; -1 = not found
	}{
		{`{"scores": {"c2": 4, "c9": 8, "c7": 6}}`, []float64{6, 4, 8}},
		{`[{"id": "c9", "score": 1}, {"id": "c7", "score": 2}, {"id": "c2", "score": 3}]`, []float64{2, 3, 1}},
		{`{"Summary 1": 5, "Summary 2": 6, "Summary 3": 7}`, []float64{5, 6, 7}},
		{`{"c7": 5, "c2": 6}`, []float64{5, 6, -1}},
		{`{"c7": 5, "c7": 9, "c2": 1, "c9": 2}`, []float64{9, 1, 2}},
	}
	for _, c := range cases {
		got := LocateBatch(c.text, ids)
		for i, l := range got {
			if (c.want[i] < 0) == l.Found || (l.Found && l.Value != c.want[i]) {
				t.Errorf("LocateBatch(%q)[%d] = %+v, want %v", c.text, i, l, c.want[i])
			}
		}
	}
}

func TestParseBatchClassifies(t *testing.T) {
	items := ParseBatch(`{"scores": {"1": 3, "2": 12}}`, []string{"1", "2", "3"}, []string{"a", "b", "c"}, ten)
	if !items[0].HasScore || items[0].Score != 3 || items[0].ID != "a" {
		t.Errorf("a: %+v", items[0])
	}
	if items[1].Err == nil || items[1].Err.Kind != KindOutOfRange || items[1].Err.Value != 12 {
		t.Errorf("b: %+v", items[1])
	}
	if items[2].Err == nil || items[2].Err.Kind != KindUnparseable {
		t.Errorf("c: %+v", items[2])
	}
}
