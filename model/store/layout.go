package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"slices"
)

// A dataset's layout: its contexts and candidates by id in file order,
// with the candidates' human targets. Labels and Scores' positions read
// it, a fit once for both.
//
// Both it and Dataset read contexts and candidates in table order and put
// them in file order in Go (inFileOrder): ordering the join in SQL
// (ORDER BY c.pos, k.pos) sent every row through SQLite's sorter, with
// each context's source beside every candidate in Dataset's case, and the
// sorter spilled to temporary files (docs/performance.md, "Reading a
// dataset", "Page faults and the workspace fit").

type layoutContext struct {
	id         string
	candidates []layoutCandidate
}

type layoutCandidate struct {
	id    string
	human sql.NullFloat64
}

// placed is a context or candidate row as read, with what places it in
// the file: its position and row id, and a candidate's context's row id.
type placed[T any] struct {
	ctx, pos, row int64
	v             T
}

// inFileOrder returns the contexts of cs by position and gives each,
// through set, its candidates of ks by position; ties of position (which
// the importer never writes) go by row id. Every candidate's context must
// be among cs.
func inFileOrder[C, K any](cs []placed[C], ks []placed[K], set func(*C, []K)) []C {
	slices.SortFunc(cs, func(a, b placed[C]) int { return cmp.Or(cmp.Compare(a.pos, b.pos), cmp.Compare(a.row, b.row)) })
	at := make(map[int64]int, len(cs)) // context row id → place
	for i := range cs {
		at[cs[i].row] = i
	}
	slices.SortFunc(ks, func(a, b placed[K]) int {
		return cmp.Or(cmp.Compare(at[a.ctx], at[b.ctx]), cmp.Compare(a.pos, b.pos), cmp.Compare(a.row, b.row))
	})
	out := make([]C, len(cs))
	for i := range cs {
		out[i] = cs[i].v
	}
	for lo := 0; lo < len(ks); {
		hi := lo + 1
		for hi < len(ks) && ks[hi].ctx == ks[lo].ctx {
			hi++
		}
		vs := make([]K, hi-lo)
		for i := lo; i < hi; i++ {
			vs[i-lo] = ks[i].v
		}
		set(&out[at[ks[lo].ctx]], vs)
		lo = hi
	}
	return out
}

// layoutOf reads the layout of the named dataset; ok is false when the
// workspace has no such dataset.
func (s *Store) layoutOf(ctx context.Context, dataset string) (layout []layoutContext, ok bool, err error) {
	var id int64
	err = s.r.QueryRowContext(ctx, "SELECT id FROM datasets WHERE name = ?", dataset).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	layout, err = datasetLayout(ctx, s.r, id)
	return layout, err == nil, err
}

// datasetLayout reads the layout of the dataset with row id dataset.
func datasetLayout(ctx context.Context, q querier, dataset int64) ([]layoutContext, error) {
	var cs []placed[layoutContext]
	rows, err := q.QueryContext(ctx, "SELECT id, pos, ext_id FROM contexts WHERE dataset_id = ?", dataset)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var c placed[layoutContext]
		if err := rows.Scan(&c.row, &c.pos, &c.v.id); err != nil {
			return nil, err
		}
		cs = append(cs, c)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()

	var ks []placed[layoutCandidate]
	rows, err = q.QueryContext(ctx, `
		SELECT context_id, pos, id, ext_id, human FROM candidates
		WHERE context_id IN (SELECT id FROM contexts WHERE dataset_id = ?)`, dataset)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var k placed[layoutCandidate]
		if err := rows.Scan(&k.ctx, &k.pos, &k.row, &k.v.id, &k.v.human); err != nil {
			return nil, err
		}
		ks = append(ks, k)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return inFileOrder(cs, ks, func(c *layoutContext, ks []layoutCandidate) { c.candidates = ks }), nil
}
