package model

import (
	"strings"
	"testing"
)

func TestReadComparisonsCSV(t *testing.T) {
	cs, err := ReadComparisonsCSV(strings.NewReader("context,winner,loser,judge\n81/1,gpt-4,alpaca-13b,e1\n81/1, gpt-4 ,alpaca-13b,e2\n"), "c.csv")
	if err != nil {
		t.Fatal(err)
	}
	want := []Comparison{{"81/1", "gpt-4", "alpaca-13b", 2}, {"81/1", "gpt-4", "alpaca-13b", 3}}
	if len(cs) != 2 || cs[0] != want[0] || cs[1] != want[1] {
		t.Errorf("got %v, want %v", cs, want)
	}
	for _, tc := range []struct{ in, want string }{
		{"context,winner\n", `c.csv:1:1: missing column "loser"`},
		{"context,winner,loser\n81/1,,b\n", `c.csv:2:6: field "winner" is empty`},
		{"context,winner,loser\n81/1,a,b\n81/1,b,b\n", `c.csv:3:8: field "loser": "b" is also the winner`},
		{"context,winner,loser\n81/1,a\n", `c.csv:2:`},
	} {
		_, err := ReadComparisonsCSV(strings.NewReader(tc.in), "c.csv")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.in, err, tc.want)
		}
	}
}

func TestDatasetComparisons(t *testing.T) {
	d := &Dataset{Name: "mt", Contexts: []Context{
		{ID: "81/1", Extra: map[string]string{ExtraComparisons: `[{"winner":"a","loser":"b","judge":"x"},{"winner":"b","loser":"a"}]`}},
		{ID: "81/2"},
		{ID: "82/1", Extra: map[string]string{ExtraComparisons: `[]`}},
	}}
	cs, err := d.Comparisons()
	if err != nil || len(cs) != 2 || cs[1] != (Comparison{Context: "81/1", Winner: "b", Loser: "a"}) {
		t.Errorf("Comparisons = %v, %v", cs, err)
	}
	d.Contexts[2].Extra[ExtraComparisons] = `[{"winner":"a"}]`
	if _, err := d.Comparisons(); err == nil || !strings.Contains(err.Error(), `context "82/1": extra field "comparisons": entry 0`) {
		t.Errorf("malformed: %v", err)
	}
	d.Contexts[2].Extra[ExtraComparisons] = `{`
	if _, err := d.Comparisons(); err == nil || !strings.Contains(err.Error(), `context "82/1"`) {
		t.Errorf("not JSON: %v", err)
	}
}
