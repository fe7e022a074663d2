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
	pj := []byte("{}")
	if len(params) > 0 {
		var err error
		if pj, err = json.Marshal(params); err != nil {
			return "", fmt.Errorf("request key: params: %w", err)
		}
	}
	h := sha256.New()
	writeField(h, requestKeyVersion)
	writeField(h, backend)
	writeField(h, model)
	writeField(h, string(pj))
	var n [binary.MaxVarintLen64]byte
	h.Write(n[:binary.PutUvarint(n[:], uint64(len(messages)))])
	for _, m := range messages {
		writeField(h, m.Role)
		writeField(h, m.Content)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func writeField(h hash.Hash, s string) {
	var n [binary.MaxVarintLen64]byte
	h.Write(n[:binary.PutUvarint(n[:], uint64(len(s)))])
	h.Write([]byte(s))
}
