package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// migration is one schema step: applying it takes the file to version.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations are the embedded schema steps in version order. File names
// are NNNN_what.sql; versions must run 1, 2, 3, … without gaps, which
// loadMigrations checks so a misnamed file fails every test at once.
var migrations = loadMigrations()

func loadMigrations() []migration {
	names, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		panic(err)
	}
	sort.Strings(names)
	var ms []migration
	for i, n := range names {
		base := strings.TrimPrefix(n, "migrations/")
		num, _, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v != i+1 {
			panic(fmt.Sprintf("store: migration %s: want version %d as NNNN_name.sql", n, i+1))
		}
		b, err := migrationFS.ReadFile(n)
		if err != nil {
			panic(err)
		}
		ms = append(ms, migration{version: v, name: base, sql: string(b)})
	}
	return ms
}

// migrationSteps are the Go parts of migrations, run after the version's
// SQL in the same transaction: what SQL cannot compute.
var migrationSteps = map[int]func(context.Context, *sql.Tx) error{
	5:  fillAnswers,
	11: fillLayouts,
}

// fillAnswers sets study_requests.answer (version 5) from each request's
// answer in responses where the migration's SQL left it NULL: the score's
// shortest exact decimal (answerText), which SQL's own float-to-text
// conversion does not promise.
func fillAnswers(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, `
		SELECT p.request_id, p.score FROM responses p JOIN study_requests q ON q.id = p.request_id
		WHERE p.ok = 1 AND q.answer IS NULL ORDER BY p.request_id`)
	if err != nil {
		return err
	}
	type answer struct {
		id   int64
		text string
	}
	var as []answer
	for rows.Next() {
		var id int64
		var score sql.NullFloat64
		if err := rows.Scan(&id, &score); err != nil {
			rows.Close()
			return err
		}
		as = append(as, answer{id, answerText(score)})
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return err
	}
	set, err := tx.PrepareContext(ctx, "UPDATE study_requests SET answer = ? WHERE id = ?")
	if err != nil {
		return err
	}
	defer set.Close()
	for _, a := range as {
		if _, err := set.ExecContext(ctx, a.text, a.id); err != nil {
			return err
		}
	}
	return nil
}

// SchemaVersion is the schema version this build writes.
func SchemaVersion() int { return len(migrations) }

// schemaVersion reads PRAGMA user_version, where the schema version lives.
func schemaVersion(ctx context.Context, db interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (int, error) {
	var v int
	err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v)
	return v, err
}

// Version reports the schema version of the open workspace.
func (s *Store) Version(ctx context.Context) (int, error) {
	return schemaVersion(ctx, s.w)
}

// migrate applies every migration above the file's version up to upto,
// each in its own transaction together with the user_version bump, so an
// interrupted upgrade leaves the file at the last complete version.
func migrate(ctx context.Context, db *sql.DB, upto int) error {
	cur, err := schemaVersion(ctx, db)
	if err != nil {
		return fmt.Errorf("reading schema version: %w", err)
	}
	if cur > len(migrations) {
		return fmt.Errorf("schema version %d is newer than this prism understands (%d); upgrade prism", cur, len(migrations))
	}
	if upto <= cur {
		return nil
	}
	// A migration that rebuilds a table or an index sorts all of it; with
	// the writer's temp_store=MEMORY (dsn) SQLite would hold that sort in
	// memory, so migrations sort through temporary files as by default.
	if _, err := db.ExecContext(ctx, "PRAGMA temp_store = FILE"); err != nil {
		return err
	}
	defer db.ExecContext(context.WithoutCancel(ctx), "PRAGMA temp_store = MEMORY")
	for _, m := range migrations[cur:upto] {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, m.sql); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
		if step := migrationSteps[m.version]; step != nil {
			if err := step(ctx, tx); err != nil {
				tx.Rollback()
				return fmt.Errorf("migration %s: %w", m.name, err)
			}
		}
		// PRAGMA takes no bound parameters; the version is an int we own.
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", m.version)); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
	}
	return nil
}
