package judge

import (
	"math"
	"strconv"
	"testing"

	"github.com/prism-eval/prism/banks"
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

// FuzzReadRatingLogprobs: never panics; a score is inside the scale with
// positive mass; every error is classified.
func FuzzReadRatingLogprobs(f *testing.F) {
	f.Add("- Coherence:| 4|\n", []byte{0, 8, 16}, 1, 5)
	f.Add("3", []byte{1, 2}, 1, 3)
	f.Add("9|x", []byte{0}, 1, 5)
	f.Add("Coherence (1-5):| 1|0", []byte{3, 1, 4, 1, 5}, 1, 10)
	f.Fuzz(func(t *testing.T, s string, p []byte, lo, hi int) {
		sc := banks.Scale{Min: lo, Max: hi}
		toks := tokensFrom(s, p)
		ex, err := ReadRatingLogprobs(toks, "Coherence", sc)
		if err != nil {
			if KindOf(err) == "" {
				t.Fatalf("unclassified error %v", err)
			}
			return
		}
		if !(ex.Mass > 0) || math.IsNaN(ex.Score) || ex.Score < float64(lo)-1e-9 || ex.Score > float64(hi)+1e-9 {
			t.Fatalf("ReadRatingLogprobs(%q) = %+v on %d–%d", s, ex, lo, hi)
		}
		if len(toks) > 0 {
			if ex, err := ExpectedRating(toks[0].Top, sc); err == nil && (ex.Score < float64(lo)-1e-9 || ex.Score > float64(hi)+1e-9) {
				t.Fatalf("ExpectedRating = %+v on %d–%d", ex, lo, hi)
			}
		}
	})
}
