package openai

import (
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"time"
)

// A reply body read by h1Transport, and the release of its connection.

// h1Body is a reply's body: the connection goes back to the pool when the
// body was read to its end with nothing after it, and is closed
// otherwise.
type h1Body struct {
	t     *h1Transport
	c     *h1Conn
	ctx   context.Context
	rc    io.ReadCloser
	close bool // the connection is not to be reused
	done  bool
}

func (b *h1Body) Read(p []byte) (int, error) {
	if b.done {
		return 0, errors.New("http: read on closed response body")
	}
	n, err := b.rc.Read(p)
	if err == io.EOF {
		b.finish(!b.close && b.c.br.Buffered() == 0)
	} else if err != nil {
		b.finish(false)
		err = h1CtxErr(b.ctx, err)
	}
	return n, err
}

// h1CtxErr is ctx's error when ctx has ended or its deadline, set on the
// connection, has passed (the connection's timer can fire before the
// context's: the caller must see the context ended), else err.
func h1CtxErr(ctx context.Context, err error) error {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
			<-ctx.Done() // at most the timer's delay away
		}
	}
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	return err
}

// finish releases the connection, to the pool when reuse says so and the
// context did not end while it was in use.
func (b *h1Body) finish(reuse bool) {
	if b.done {
		return
	}
	b.done = true
	if b.ctx.Err() != nil {
		reuse = false // the context ended: its deadline may be in the past
	}
	if reuse {
		if err := b.c.c.SetDeadline(time.Time{}); err == nil {
			b.t.put(b.c)
			return
		}
	}
	b.c.close()
}

// Close closes the connection unless the body was read to its end.
func (b *h1Body) Close() error {
	b.finish(false)
	return nil
}

// h1Gzip decodes a gzip reply net/http's way: the decoder is made at the
// first read, so a body that is never read is never decoded.
type h1Gzip struct {
	body *h1Body
	zr   *gzip.Reader
	err  error
}

func (g *h1Gzip) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	if g.zr == nil {
		g.zr, g.err = gzip.NewReader(g.body)
		if g.err != nil {
			return 0, g.err
		}
	}
	n, err := g.zr.Read(p)
	if err == io.EOF {
		// net/http's gzip reader ends at the stream's end; the body's
		// own end releases the connection.
		var one [1]byte
		if m, rerr := g.body.Read(one[:]); m != 0 || rerr != io.EOF {
			g.body.finish(false)
		}
	}
	return n, err
}

func (g *h1Gzip) Close() error { return g.body.Close() }
