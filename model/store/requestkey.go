package store

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
)

// Message is one chat message of a request, as hashed by RequestKey. It has
// the fields of banks.Message, so a banks.Message m converts with
// store.Message(m).
type Message struct {
	Role    string
	Content string
}

// requestKeyVersion is hashed first; bump it if the encoding below changes,
// so old keys can never collide with new ones.
const requestKeyVersion = "prism-request-key-v1"

// RequestKey is the content hash that identifies a judge request: the hex
// SHA-256 of backend, model, the parameters in canonical JSON (object keys
// sorted, as encoding/json writes maps) and each message's role and
// content. Every field is length-prefixed, so no two different inputs share
// an encoding ("ab"+"c" and "a"+"bc" hash differently).
//
// Two requests with the same key send the same bytes to the same model, so
// a stored answer to one answers the other (see CachedAnswer). The repeat
// index is not part of the key; repeats are told apart by the run label.
// It returns an error only when params cannot be encoded as JSON.
func RequestKey(backend, model string, params map[string]any, messages []Message) (string, error) {
	k, err := NewKeyer(backend, model, params)
	if err != nil {
		return "", err
	}
	return k.Key(messages), nil
}

// Keyer computes RequestKey for many requests to one backend, model and
// parameters, encoding those once and reusing its buffers, so that keying
// a study's tens of thousands of requests allocates little more than the
// keys. A Keyer is not safe for concurrent use.
type Keyer struct {
	buf    []byte // the encoding of one request; buf[:prefix] is shared
	prefix int
	h      hash.Hash
	sum    []byte
}

// NewKeyer returns a Keyer for backend, model and params; it fails only
// when params cannot be encoded as JSON.
func NewKeyer(backend, model string, params map[string]any) (*Keyer, error) {
	pj := []byte("{}")
	if len(params) > 0 {
		var err error
		if pj, err = json.Marshal(params); err != nil {
			return nil, fmt.Errorf("request key: params: %w", err)
		}
	}
	k := &Keyer{h: sha256.New(), sum: make([]byte, 0, sha256.Size)}
	for _, f := range []string{requestKeyVersion, backend, model, string(pj)} {
		k.buf = appendField(k.buf, f)
	}
	k.prefix = len(k.buf)
	return k, nil
}

// Key is RequestKey of messages.
func (k *Keyer) Key(messages []Message) string {
	return KeyString(k.Sum(messages))
}

// Sum is the SHA-256 that Key spells in hex: a plan holding many keys
// keeps these 32 bytes instead of a 64-byte string (KeyString spells it).
func (k *Keyer) Sum(messages []Message) [sha256.Size]byte {
	b := binary.AppendUvarint(k.buf[:k.prefix], uint64(len(messages)))
	for _, m := range messages {
		b = appendField(b, m.Role)
		b = appendField(b, m.Content)
	}
	k.buf = b
	k.h.Reset()
	k.h.Write(b)
	k.sum = k.h.Sum(k.sum[:0])
	return [sha256.Size]byte(k.sum)
}

// KeyString is the request key of a Keyer.Sum: its lower-case hex.
func KeyString(sum [sha256.Size]byte) string {
	var out [2 * sha256.Size]byte
	hex.Encode(out[:], sum[:])
	return string(out[:])
}

// appendField appends s, prefixed with its length as a uvarint.
func appendField(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}
