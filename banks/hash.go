package banks

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"io"
	"sort"
)

// hashVersion opens every canonical encoding, so that a change of the
// encoding can never make two different banks collide.
const hashVersion = "prism-bank-hash-v1"

// Hash returns the hex SHA-256 of a canonical encoding of the whole bank:
// every field of the bank, its templates, attributes, neutral clauses,
// context probes and tasks (sorted by kind), each string length-prefixed so
// that field boundaries are unambiguous. Two banks have the same hash
// exactly when they are equal, which is exactly when Marshal writes the
// same text; so any change of wording gives a new hash, while comments,
// formatting and key order in a bank file do not change it. The metadata
// (Name, Description, Source) is included so that one hash always names one
// stored snapshot text.
func (b *Bank) Hash() string {
	w := hashWriter{h: sha256.New()}
	w.str(hashVersion)
	w.strs(b.Name, b.Description, b.Source)
	w.list(b.Templates.Plus)
	w.list(b.Templates.Minus)
	w.int(len(b.Attributes))
	for _, a := range b.Attributes {
		w.strs(a.Name, a.Clause, a.Source)
		w.list(a.Plus)
		w.list(a.Minus)
	}
	w.int(len(b.Neutrals))
	for _, n := range b.Neutrals {
		w.strs(n.Name, n.Text, n.Source)
	}
	w.int(len(b.ContextProbes))
	for _, p := range b.ContextProbes {
		w.strs(p.Name, p.Text, p.Source)
	}
	w.int(len(b.Tasks))
	for _, k := range b.TaskNames() {
		t := b.Tasks[k]
		w.strs(k, t.System, t.SourceLabel, t.CandidateLabel, t.TaskLabel, t.Prompt, t.BatchPrompt, t.ScaleText, t.Answer, t.BatchAnswer)
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
			w.strs(e.Field, e.Label)
		}
	}
	b.hashLevels(&w)
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
	io.WriteString(w.h, s)
}

func (w *hashWriter) strs(ss ...string) {
	for _, s := range ss {
		w.str(s)
	}
}

// list writes a counted list, so nil and empty hash alike.
func (w *hashWriter) list(ss []string) {
	w.int(len(ss))
	w.strs(ss...)
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

func newHash() hash.Hash { return sha256.New() }

func (w *hashWriter) sum() string { return hex.EncodeToString(w.h.Sum(nil)) }

// scale writes a scale: its ends and its anchors.
func (w *hashWriter) scale(s Scale) {
	w.int(s.Min)
	w.int(s.Max)
	w.int(len(s.Anchors))
	for _, a := range s.Anchors {
		w.int(a.From)
		w.int(a.To)
		w.str(a.Label)
	}
}

// sortedKeys returns a map's keys, sorted.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
