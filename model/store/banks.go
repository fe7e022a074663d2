package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// BankSnapshot is the exact text of a probe bank as it was used. The store
// treats it as opaque: Hash is the bank's content hash (banks.Bank.Hash)
// and Text its file form (banks.Bank.Marshal).
type BankSnapshot struct {
	Hash    string
	Name    string
	Source  string // "builtin:NAME" or the file it was read from
	Text    string
	Created time.Time
}

// RubricSourcePrefix opens the Source of a rubric's snapshot
// ("rubric:builtin:saja-broad", "rubric:FILE"): rubric studies
// (docs/rubrics.md) store their rubric in the banks table, under the
// rubric's hash, as a bank study stores its bank.
const RubricSourcePrefix = "rubric:"

// IsRubricSource reports whether a snapshot source is a rubric's.
func IsRubricSource(source string) bool { return strings.HasPrefix(source, RubricSourcePrefix) }

// IsRubric reports whether the snapshot is a rubric's.
func (b BankSnapshot) IsRubric() bool { return IsRubricSource(b.Source) }

// PutBank stores a snapshot. Storing the same hash again is a no-op when
// the text is the same and an error when it differs, since one hash must
// name one wording.
func (s *Store) PutBank(ctx context.Context, b BankSnapshot) error {
	if b.Hash == "" {
		return errors.New("bank snapshot has no hash")
	}
	if b.Text == "" {
		return fmt.Errorf("bank %s: snapshot has no text", b.Hash)
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		var text string
		err := tx.QueryRowContext(ctx, "SELECT text FROM banks WHERE hash = ?", b.Hash).Scan(&text)
		switch {
		case err == nil && text == b.Text:
			return nil
		case err == nil:
			return fmt.Errorf("bank %s: a different text is already stored under this hash", b.Hash)
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
		_, err = tx.ExecContext(ctx, "INSERT INTO banks(hash, name, source, text, created) VALUES (?, ?, ?, ?, ?)",
			b.Hash, b.Name, b.Source, b.Text, formatTime(time.Now()))
		return err
	})
}

// Bank returns the snapshot with that hash, or an error wrapping
// ErrNotFound.
func (s *Store) Bank(ctx context.Context, hash string) (BankSnapshot, error) {
	b := BankSnapshot{Hash: hash}
	var created string
	err := s.r.QueryRowContext(ctx, "SELECT name, source, text, created FROM banks WHERE hash = ?", hash).
		Scan(&b.Name, &b.Source, &b.Text, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return b, fmt.Errorf("bank %s: %w", hash, ErrNotFound)
	}
	b.Created = parseTime(created)
	return b, err
}

// Banks lists every stored snapshot, oldest first.
func (s *Store) Banks(ctx context.Context) ([]BankSnapshot, error) {
	rows, err := s.r.QueryContext(ctx, "SELECT hash, name, source, text, created FROM banks ORDER BY created, hash")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []BankSnapshot
	for rows.Next() {
		var b BankSnapshot
		var created string
		if err := rows.Scan(&b.Hash, &b.Name, &b.Source, &b.Text, &created); err != nil {
			return nil, err
		}
		b.Created = parseTime(created)
		out = append(out, b)
	}
	return out, rows.Err()
}
