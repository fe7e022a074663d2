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
// it, a fit once for both. Ordering the join of contexts and candidates in SQL (ORDER BY c.pos,
// k.pos) sent every row through SQLite's sorter, whose buffers were most
// of the cost (docs/performance.md, "Page faults and the workspace fit");
// the rows are read in table order and put in order here, as Dataset does.

type layoutContext struct {
	id         string
	candidates []layoutCandidate
}

type layoutCandidate struct {
	id    string
	human sql.NullFloat64
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
// Ties of position (which the importer never writes) go by row id.
func datasetLayout(ctx context.Context, q querier, dataset int64) ([]layoutContext, error) {
	type ctxRow struct {
		row, pos int64
		id       string
	}
	var cs []ctxRow
	rows, err := q.QueryContext(ctx, "SELECT id, pos, ext_id FROM contexts WHERE dataset_id = ?", dataset)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var c ctxRow
		if err := rows.Scan(&c.row, &c.pos, &c.id); err != nil {
			return nil, err
		}
		cs = append(cs, c)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	slices.SortFunc(cs, func(a, b ctxRow) int { return cmp.Or(cmp.Compare(a.pos, b.pos), cmp.Compare(a.row, b.row)) })
	at := make(map[int64]int32, len(cs)) // context row id → place
	for i := range cs {
		at[cs[i].row] = int32(i)
	}

	type candRow struct {
		at       int32
		pos, row int64
		c        layoutCandidate
	}
	var ks []candRow
	rows, err = q.QueryContext(ctx, `
		SELECT context_id, pos, id, ext_id, human FROM candidates
		WHERE context_id IN (SELECT id FROM contexts WHERE dataset_id = ?)`, dataset)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var k candRow
		var ctxRowID int64
		if err := rows.Scan(&ctxRowID, &k.pos, &k.row, &k.c.id, &k.c.human); err != nil {
			return nil, err
		}
		k.at = at[ctxRowID]
		ks = append(ks, k)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	slices.SortFunc(ks, func(a, b candRow) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.pos, b.pos), cmp.Compare(a.row, b.row))
	})
	out := make([]layoutContext, len(cs))
	for i := range cs {
		out[i].id = cs[i].id
	}
	for lo := 0; lo < len(ks); {
		hi := lo + 1
		for hi < len(ks) && ks[hi].at == ks[lo].at {
			hi++
		}
		c := &out[ks[lo].at]
		c.candidates = make([]layoutCandidate, hi-lo)
		for i := lo; i < hi; i++ {
			c.candidates[i-lo] = ks[i].c
		}
		lo = hi
	}
	return out, nil
}
