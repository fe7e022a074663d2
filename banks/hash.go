package banks

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"sort"
	"strings"
)

// hashVersion opens every canonical form, so that a change of the form can
// never make two different wordings collide.
const hashVersion = "prism-bank-hash-v1"

// Hash returns the hex SHA-256 of a canonical form of everything in the
// bank that reaches a judge or names a probe: each attribute's name, clause
// and fully rendered + and − wordings (templates expanded), the neutral and
// context-probe names and texts, and every task (all texts, the scale and
// the extras), tasks sorted by kind. Every string is length-prefixed, so
// field boundaries are unambiguous. Any change of wording gives a new hash;
// file formatting, comments, key order and the metadata fields Name,
// Description and Source do not, nor does writing an attribute's wordings
// out explicitly instead of through identical templates.
func (b *Bank) Hash() string {
	w := hashWriter{h: sha256.New()}
	w.str(hashVersion)
	w.str("attributes")
	w.int(len(b.Attributes))
	for _, a := range b.Attributes {
		w.str(a.Name)
		w.str(a.Clause)
		for _, plus := range []bool{true, false} {
			src := a.Minus
			if plus {
				src = a.Plus
			}
			if len(src) == 0 {
				src = b.Templates.Minus
				if plus {
					src = b.Templates.Plus
				}
			}
			w.int(len(src))
			for _, s := range src {
				w.str(strings.ReplaceAll(s, PlaceholderClause, a.Clause))
			}
		}
	}
	w.str("neutrals")
	w.int(len(b.Neutrals))
	for _, n := range b.Neutrals {
		w.str(n.Name)
		w.str(n.Text)
	}
	w.str("context")
	w.int(len(b.ContextProbes))
	for _, p := range b.ContextProbes {
		w.str(p.Name)
		w.str(p.Text)
	}
	w.str("tasks")
	w.int(len(b.Tasks))
	for _, k := range b.TaskNames() {
		t := b.Tasks[k]
		for _, s := range []string{k, t.System, t.SourceLabel, t.CandidateLabel, t.TaskLabel, t.Prompt, t.BatchPrompt, t.ScaleText, t.Answer, t.BatchAnswer} {
			w.str(s)
		}
		w.int(t.Scale.Min)
		w.int(t.Scale.Max)
		w.int(len(t.Scale.Anchors))
		for _, a := range t.Scale.Anchors {
			w.int(a.From)
			w.int(a.To)
			w.str(a.Label)
		}
		w.int(len(t.Extras))
		for _, e := range t.Extras {
			w.str(e.Field)
			w.str(e.Label)
		}
	}
	return hex.EncodeToString(w.h.Sum(nil))
}

type hashWriter struct {
	h   hash.Hash
	buf [binary.MaxVarintLen64]byte
}

func (w *hashWriter) int(i int) {
	n := binary.PutVarint(w.buf[:], int64(i))
	w.h.Write(w.buf[:n])
}

func (w *hashWriter) str(s string) {
	w.int(len(s))
	w.h.Write([]byte(s))
}

// TaskNames returns the bank's task kinds, sorted.
func (b *Bank) TaskNames() []string {
	out := make([]string, 0, len(b.Tasks))
	for k := range b.Tasks {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
