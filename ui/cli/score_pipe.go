package cli

import (
	"errors"
	"io"

	"github.com/prism-eval/prism/model"
)

// scanBatch is how many rows scanScoresPiped hands over at once, and
// scanBuffers how many batches exist: the reader fills one while the
// caller folds another.
const (
	scanBatch   = 1024
	scanBuffers = 4
)

var errScanStopped = errors.New("score scan stopped")

// scanScoresPiped is model.ScanScoresCSV with fn run on another
// goroutine than the reading: parsing the CSV is most of prism score's
// time, and folding the rows (calib.Applier) then runs beside it on a
// second core. fn sees the rows in file order; the error returned is the
// first in that order, fn's or the read's, as ScanScoresCSV calling fn
// would return it. It returns after the reading goroutine has ended.
func scanScoresPiped(r io.Reader, path string, fn func(*model.ScoreRow) error) error {
	type batch struct {
		rows []model.ScoreRow
		err  error
	}
	out := make(chan batch, scanBuffers)
	free := make(chan []model.ScoreRow, scanBuffers)
	stop := make(chan struct{})
	for range scanBuffers {
		free <- make([]model.ScoreRow, 0, scanBatch)
	}
	go func() {
		defer close(out)
		send := func(b batch) bool {
			select {
			case out <- b:
				return true
			case <-stop:
				return false
			}
		}
		rows := <-free
		err := model.ScanScoresCSV(r, path, func(row model.ScoreRow) error {
			rows = append(rows, row)
			if len(rows) < scanBatch {
				return nil
			}
			if !send(batch{rows: rows}) {
				return errScanStopped
			}
			select {
			case rows = <-free:
				return nil
			case <-stop:
				return errScanStopped
			}
		})
		if errors.Is(err, errScanStopped) || len(rows) > 0 && !send(batch{rows: rows}) {
			return
		}
		if err != nil {
			send(batch{err: err})
		}
	}()
	defer func() {
		close(stop)
		for range out { // until the reader has stopped
		}
	}()
	for b := range out {
		if b.err != nil {
			return b.err
		}
		for i := range b.rows {
			if err := fn(&b.rows[i]); err != nil {
				return err
			}
		}
		free <- b.rows[:0]
	}
	return nil
}
