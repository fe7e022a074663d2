package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
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

// Schema version 7 keeps the request-key index in a table of its own,
// request_keys, filled in bulk rather than by every fold of a run
// (migrations/0007, docs/store.md "Request keys"): the rows up to
// request_keys_state.through are indexed, the rows above it are the tail
// that a look-up scans by row id.

// keysVersion is the first schema version with request_keys.
const keysVersion = 7

// separateKeys reports whether the open workspace keeps its key index in
// request_keys. A read-only open of a version 5 or 6 workspace still has
// the index study_requests_key, and its look-ups use that.
func (s *Store) separateKeys() bool { return s.version >= keysVersion }

const (
	// sqlKeysBehind: whether a request row is above through.
	sqlKeysBehind = `SELECT coalesce((SELECT max(id) FROM study_requests), 0) > (SELECT through FROM request_keys_state)`
	// sqlIndexTail enters the tail's keys in key order, so the insert
	// walks request_keys once and writes each of its pages once.
	sqlIndexTail = `
		INSERT OR IGNORE INTO request_keys(prefix, run, id)
		SELECT substr(CAST(key AS BLOB), 1, 8), run, id FROM study_requests
		WHERE id > (SELECT through FROM request_keys_state)
		ORDER BY 1, 2, 3`
	sqlKeysThrough = `UPDATE request_keys_state SET through = (SELECT coalesce(max(id), 0) FROM study_requests)`
)

// indexKeys enters the keys of the tail (the request rows above
// request_keys_state.through) in request_keys, in one transaction. The
// look-ups by key call it first: a tail is what the runs since the last
// look-up wrote, and scanning it would cost each look-up of a chunk of
// keys a pass over all of it. A read-only store writes nothing (its
// look-ups scan the tail), and a read-only open of a version 5 or 6
// workspace has no tail (its look-ups use study_requests_key).
func (s *Store) indexKeys(ctx context.Context) error {
	if s.readOnly || !s.separateKeys() {
		return nil
	}
	var behind bool
	if err := s.r.QueryRowContext(ctx, sqlKeysBehind).Scan(&behind); err != nil {
		return err
	}
	if !behind {
		return nil
	}
	// The insert sorts the whole tail; as a migration does (migrate),
	// it sorts through temporary files rather than the writer's memory:
	// for a tail of 608,000 rows 1.3 s and 18 MB, against 1.6 s and
	// 51 MB in memory.
	if _, err := s.w.ExecContext(ctx, "PRAGMA temp_store = FILE"); err != nil {
		return err
	}
	defer s.w.ExecContext(context.WithoutCancel(ctx), "PRAGMA temp_store = MEMORY")
	return s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, sqlIndexTail); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, sqlKeysThrough)
		return err
	})
}

// RequestsByKey returns every recorded request with this key and run label
// (one per coordinates it was recorded at), answered or not.
func (s *Store) RequestsByKey(ctx context.Context, key, run string) ([]Request, error) {
	if err := s.indexKeys(ctx); err != nil {
		return nil, fmt.Errorf("indexing request keys: %w", err)
	}
	rows, err := s.r.QueryContext(ctx, `
		SELECT r.key, j.name, d.name, r.context, r.candidate, r.bank_hash, r.probe, r.wording, r.run
		FROM `+s.keyTable()+` k
		JOIN requests r ON r.id = k.id
		JOIN judges j ON j.id = r.judge_id
		JOIN datasets d ON d.id = r.dataset_id
		WHERE `+s.keyMatch(1)+` AND k.run = ?
		ORDER BY r.id`, append(s.keyArgs([]string{key}), run)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Request
	for rows.Next() {
		var q Request
		if err := rows.Scan(&q.Key, &q.Judge, &q.Dataset, &q.Context, &q.Candidate, &q.BankHash, &q.Probe, &q.Wording, &q.Run); err != nil {
			return nil, err
		}
		out = append(out, q)
	}
	return out, rows.Err()
}
