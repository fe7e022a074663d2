package clikit

import (
	"encoding/csv"
	"fmt"
	"strings"
)

// ReadCSVHeader reads the header of a CSV file into column indices (names
// trimmed, a UTF-8 byte order mark dropped). A column of need that is
// missing fails with the file and line, and why (missing(col)) in
// parentheses.
func ReadCSVHeader(r *csv.Reader, path string, need []string, missing func(col string, head []string) string) (map[string]int, error) {
	head, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: line 1: header: %w", path, err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))] = i
	}
	for _, n := range need {
		if _, ok := col[n]; !ok {
			return nil, fmt.Errorf("%s: line 1: no %q column (%s)", path, n, missing(n, head))
		}
	}
	return col, nil
}
