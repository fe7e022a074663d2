package judge

import (
	"math"
	"strconv"
	"testing"
)

// FuzzParseSAJA: ParseSAJA never panics and returns one item per
// criterion; a failed reply marks every item with its error; otherwise
// each item is either an integer inside its criterion's scale or a missing
// cell with an error, never both and never a silent zero.
func FuzzParseSAJA(f *testing.F) {
	for _, s := range []string{`{"a": 4, "b": 7, "c": 2}`, "```json\n{\"a\": \"1\", \"b\": 0}\n```", `ok {"a": 6, "c": 2.0}`,
		`{"a": 4.5, "b": null}`, `{"a": 1, "a": 2}`, `{"x": 1}`, `4`, `I cannot.`, `{"a": 1} {"b": 2}`, `{"a": 1e400}`, `{"b": -0}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		items, err := ParseSAJA(text, sajaCrits)
		if len(items) != len(sajaCrits) {
			t.Fatalf("%d items", len(items))
		}
		if err != nil {
			switch KindOf(err) {
			case KindUnparseable, KindRefusal:
			default:
				t.Fatalf("reply error of kind %q: %v", KindOf(err), err)
			}
			for _, it := range items {
				if it.HasScore || it.Err == nil {
					t.Fatalf("failed reply left item %+v", it)
				}
			}
			return
		}
		for i, it := range items {
			sc := sajaCrits[i].Scale
			if it.ID != sajaCrits[i].Name {
				t.Fatalf("item %d named %q", i, it.ID)
			}
			if it.HasScore == (it.Err != nil) {
				t.Fatalf("item %+v is both or neither scored and failed", it)
			}
			if it.HasScore && (it.Score != math.Trunc(it.Score) || it.Score < float64(sc.Min) || it.Score > float64(sc.Max)) {
				t.Fatalf("item %s = %v outside %d–%d or not an integer", it.ID, it.Score, sc.Min, sc.Max)
			}
			if !it.HasScore {
				if it.Score != 0 {
					t.Fatalf("missing cell with score %v", it.Score)
				}
				if k := it.Err.Kind; k != KindUnparseable && k != KindOutOfRange {
					t.Fatalf("cell error of kind %q", k)
				}
			}
		}
	})
}

// FuzzLocateRating: LocateRating never panics; a rating it finds is the
// number its span covers in the reply.
func FuzzLocateRating(f *testing.F) {
	for _, s := range []string{"4", "- Coherence: 4", "**Coherence:** 5", "coherence (1-5): 2", "1-5", "İCoherence: 3", "Coherence:", "4th"} {
		f.Add(s, "Coherence")
	}
	f.Fuzz(func(t *testing.T, text, label string) {
		v, sp, err := LocateRating(text, label)
		if err != nil {
			if k := KindOf(err); k != KindUnparseable && k != KindRefusal {
				t.Fatalf("error of kind %q", k)
			}
			return
		}
		if sp.Start < 0 || sp.End > len(text) || sp.Start >= sp.End {
			t.Fatalf("span %+v outside %q", sp, text)
		}
		if g, err := strconv.ParseFloat(text[sp.Start:sp.End], 64); err != nil || g != v {
			t.Fatalf("LocateRating(%q) = %v but the span holds %q", text, v, text[sp.Start:sp.End])
		}
	})
}
