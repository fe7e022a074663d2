package clikit

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/prism-eval/prism/model"
)

// PrintStudy writes the lines that name a report's study (none for
// scores from files).
func PrintStudy(w io.Writer, s *model.Study) {
	if s == nil {
		return
	}
	for _, l := range s.Lines() {
		fmt.Fprintln(w, l)
	}
}

// WriteJSON writes v as indented JSON, the --json form of every report.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// WriteTrimmed writes s without the blanks tabwriter pads the last cell of
// each line with.
func WriteTrimmed(w io.Writer, s string) error {
	for _, line := range strings.SplitAfter(s, "\n") {
		trimmed := strings.TrimRight(line, " \n")
		if strings.HasSuffix(line, "\n") {
			trimmed += "\n"
		}
		if _, err := io.WriteString(w, trimmed); err != nil {
			return err
		}
	}
	return nil
}

// ReadFile opens path and parses it with read, which names path in errors.
// A device or an oversized file is refused before reading (docs/fit.md).
func ReadFile[T any](path string, read func(io.Reader, string) (T, error)) (T, error) {
	f, err := model.OpenInput(path, model.MaxTableFile, "a score, label or order file")
	if err != nil {
		var zero T
		return zero, err
	}
	defer f.Close()
	return read(f, path)
}

func NewTable(w io.Writer) *tabwriter.Writer { return tabwriter.NewWriter(w, 0, 4, 2, ' ', 0) }

// Num formats a diagnostic, "—" when undefined.
func Num(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "—"
	}
	return strconv.FormatFloat(x, 'f', 3, 64)
}

func Interval(c [2]float64) string {
	if math.IsNaN(c[0]) || math.IsNaN(c[1]) {
		return "—"
	}
	return "[" + Num(c[0]) + ", " + Num(c[1]) + "]"
}
