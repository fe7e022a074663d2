package model

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Comparison is a label of the pairwise kind: in Context, a human
// preferred candidate Winner to candidate Loser (docs/protocol.md §6). A
// dataset evaluated on individual judgments (MT-Bench's, paper §A.5)
// holds one per non-tie judgment; the same pair may appear more than once,
// in either order.
type Comparison struct {
	Context, Winner, Loser string
	Line                   int // 1-based line in the source file (0 when not from a file)
}

// ExtraComparisons is the Context.Extra key under which a dataset keeps
// its comparisons: a JSON array of {"winner", "loser"} objects (other
// fields, such as "judge", are kept and not read).
const ExtraComparisons = "comparisons"

// ReadComparisonsCSV reads comparison labels: a header with at least
// context,winner,loser, then one row per comparison. Errors name the
// file, line, column and field: an empty id, or a winner equal to its
// loser.
func ReadComparisonsCSV(r io.Reader, file string) ([]Comparison, error) {
	t, err := openCSV(r, file, "a comparison file", []string{"context", "winner", "loser"})
	if err != nil {
		return nil, err
	}
	var out blocks[Comparison]
	for {
		rec, line, err := t.next()
		if err == io.EOF {
			return out.slice(), nil
		}
		if err != nil {
			return nil, err
		}
		c := Comparison{Line: line}
		for _, f := range []struct {
			name string
			dst  *string
		}{{"context", &c.Context}, {"winner", &c.Winner}, {"loser", &c.Loser}} {
			if *f.dst = strings.Clone(t.field(rec, f.name)); *f.dst == "" {
				return nil, fmt.Errorf("%s: field %q is empty", t.at(f.name), f.name)
			}
		}
		if c.Winner == c.Loser {
			return nil, fmt.Errorf("%s: field \"loser\": %s is also the winner; a comparison is of two candidates", t.at("loser"), Quote(c.Loser))
		}
		out.add(c)
	}
}

// Comparisons returns the comparison labels the dataset keeps
// (Context.Extra[ExtraComparisons]), context by context in file order;
// nil when no context keeps any. A malformed entry is an error naming the
// dataset, context and entry.
func (d *Dataset) Comparisons() ([]Comparison, error) {
	var out []Comparison
	for _, c := range d.Contexts {
		js, ok := c.Extra[ExtraComparisons]
		if !ok {
			continue
		}
		var list []struct {
			Winner *string `json:"winner"`
			Loser  *string `json:"loser"`
		}
		if err := json.Unmarshal([]byte(js), &list); err != nil {
			return nil, fmt.Errorf("dataset %s: context %s: extra field %q: %v", Quote(d.Name), Quote(c.ID), ExtraComparisons, err)
		}
		for i, e := range list {
			if e.Winner == nil || e.Loser == nil || *e.Winner == "" || *e.Loser == "" || *e.Winner == *e.Loser {
				return nil, fmt.Errorf("dataset %s: context %s: extra field %q: entry %d: want two different non-empty \"winner\" and \"loser\" ids", Quote(d.Name), Quote(c.ID), ExtraComparisons, i)
			}
			out = append(out, Comparison{Context: c.ID, Winner: *e.Winner, Loser: *e.Loser})
		}
	}
	return out, nil
}
