package model

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// zeros is an io.Reader that never ends, like /dev/zero.
type zeros struct{ n int64 }

func (z *zeros) Read(p []byte) (int, error) {
	clear(p)
	z.n += int64(len(p))
	return len(p), nil
}

func wantSizeError(t *testing.T, err error, msg string) {
	t.Helper()
	var se *SizeError
	if !errors.As(err, &se) || err.Error() != msg {
		t.Errorf("err = %v\nwant SizeError %q", err, msg)
	}
}

func TestScoreCSVEndlessInput(t *testing.T) {
	z := &zeros{}
	_, err := ReadScoresCSV(z, "<stdin>")
	wantSizeError(t, err, "<stdin>:1:1: larger than the 1 MiB limit for one line of a score file")
	if z.n > 2*MaxTableLine {
		t.Errorf("read %d bytes of an endless input, want about the line limit", z.n)
	}
	_, err = ReadLabelsCSV(strings.NewReader("context,candidate,human\nc,a,1\nc,"+strings.Repeat("b", MaxTableLine)+",2\n"), "l.csv")
	wantSizeError(t, err, "l.csv:3:1: larger than the 1 MiB limit for one line of a label file")
}

func TestSizeText(t *testing.T) {
	for n, want := range map[int64]string{1 << 20: "1 MiB", 1 << 30: "1 GiB", 8 << 20: "8 MiB", 2048: "2 KiB", 1000: "1000 bytes"} {
		if got := SizeText(n); got != want {
			t.Errorf("SizeText(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestReadAll(t *testing.T) {
	for _, s := range []string{"", "x", strings.Repeat("abc", 1000)} {
		for _, r := range []io.Reader{strings.NewReader(s), bytes.NewBufferString(s), io.MultiReader(strings.NewReader(s))} {
			got, err := readAll(r)
			if err != nil || string(got) != s {
				t.Errorf("readAll(%T of %d bytes) = %d bytes, %v", r, len(s), len(got), err)
			}
		}
	}
}

// lineLimitRef is LimitLines a byte at a time, as it was written first:
// what the reader that counts a line's bytes at once must equal.
type lineLimitRef struct{ lineLimiter }

func (l *lineLimitRef) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	n, err := l.r.Read(p)
	for i, b := range p[:n] {
		if l.step(b) {
			return i, l.err
		}
	}
	return n, err
}

// TestLimitLinesCountsAsByteByByte: LimitLines passes the same bytes and
// fails at the same byte with the same error as the byte-by-byte
// reference, for lines at, under and over the line limit, a total limit
// inside a line or on a newline, and reads of any size.
func TestLimitLinesCountsAsByteByByte(t *testing.T) {
	inputs := []string{"", "\n", "abc", "abcd\n", "ab\ncd\n\n\nefgh\n", "abcde\nab", "a\nabcd\nabcdefgh\nabc", strings.Repeat("ab\n", 20) + "abcdef"}
	for _, in := range inputs {
		for maxLine := int64(0); maxLine <= 6; maxLine++ {
			for total := int64(0); total <= int64(len(in))+1; total++ {
				for _, chunk := range []int{1, 2, 3, 7, 64} {
					read := func(r io.Reader) (string, error) {
						var out []byte
						buf := make([]byte, chunk)
						for {
							n, err := r.Read(buf)
							out = append(out, buf[:n]...)
							if err != nil {
								return string(out), err
							}
						}
					}
					got, gotErr := read(LimitLines(strings.NewReader(in), "f", maxLine, total, "a file"))
					ref := &lineLimitRef{lineLimiter{r: strings.NewReader(in), name: "f", max: maxLine, total: total, what: "a file", line: 1}}
					want, wantErr := read(ref)
					if got != want || gotErr.Error() != wantErr.Error() {
						t.Fatalf("%q, line limit %d, total %d, reads of %d: got %q, %v; want %q, %v", in, maxLine, total, chunk, got, gotErr, want, wantErr)
					}
				}
			}
		}
	}
}
