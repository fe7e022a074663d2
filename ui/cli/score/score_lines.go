package score

import (
	"io"
	"runtime"
)

// lineChunk is the rows writeLines formats at once.
const lineChunk = 2048

// writeLines writes to w the lines format appends for rows [0, n), in
// order, formatting chunks of lineChunk rows on the machine's cores:
// formatting the shortest exact decimals of 13 numbers a row is most of
// writing the output (docs/performance.md, "Streaming prism score"). At
// most two chunks a core are held at once, in buffers reused from chunk
// to chunk (growing a new one for each was a third of the formatting).
// The first error, of format or of w, is returned; no line after it is
// written.
func writeLines(w io.Writer, n int, format func(b []byte, lo, hi int) ([]byte, error)) error {
	type chunk struct {
		b   []byte
		err error
	}
	window := 2 * runtime.GOMAXPROCS(0)
	inFlight := make(chan chan chunk, window)
	free := make(chan []byte, window+1)
	go func() {
		defer close(inFlight)
		for lo := 0; lo < n; lo += lineChunk {
			c := make(chan chunk, 1)
			inFlight <- c // waits while the window is full
			go func(lo, hi int) {
				var buf []byte
				select {
				case buf = <-free:
				default:
				}
				b, err := format(buf[:0], lo, hi)
				c <- chunk{b, err}
			}(lo, min(n, lo+lineChunk))
		}
	}()
	var err error
	for c := range inFlight {
		r := <-c
		if err == nil {
			if err = r.err; err == nil {
				_, err = w.Write(r.b)
			}
		}
		select {
		case free <- r.b:
		default:
		}
	}
	return err
}
