package datasets

import (
	"math"
	"os"
	"strings"
	"testing"

	"github.com/prism-eval/prism/model"
)

// readString parses src with Read and fails the test on error.
func readString(t *testing.T, format, name, src string) *model.Dataset {
	t.Helper()
	d, err := Read(format, strings.NewReader(src), name)
	if err != nil {
		t.Fatalf("Read(%s): %v", format, err)
	}
	return d
}

// errorCase is one malformed input and the start of the error it must give
// (file:line[:col]: field: message, as far as given).
type errorCase struct {
	name, src, want string
}

func checkErrors(t *testing.T, format, file string, cases []errorCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Read(format, strings.NewReader(tc.src), file)
			if err == nil {
				t.Fatalf("no error; got %d contexts", len(d.Contexts))
			}
			if d != nil {
				t.Errorf("dataset returned with the error")
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error %q\nwant prefix %q", err, tc.want)
			}
		})
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

// candidate finds a candidate by context and id.
func candidate(t *testing.T, d *model.Dataset, ctx, id string) model.Candidate {
	t.Helper()
	for _, c := range d.Contexts {
		if c.ID != ctx {
			continue
		}
		for _, x := range c.Candidates {
			if x.ID == id {
				return x
			}
		}
	}
	t.Fatalf("no candidate %s/%s", ctx, id)
	return model.Candidate{}
}

func mustOpen(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}
