package banks

import (
	"strings"
	"testing"
	"time"
)

// A deeply nested bank is refused before the TOML parser sees it (8,000
// nested inline tables once took seconds and gigabytes), with the file,
// line and column.
func TestParseRefusesDeepNesting(t *testing.T) {
	n := 8000
	for name, data := range map[string]string{
		"inline tables": "name = \"x\"\nx = " + strings.Repeat("{a=", n) + "1" + strings.Repeat("}", n),
		"dotted keys":   "name = \"x\"\n" + strings.Repeat("a.", n) + "a = 1\n",
	} {
		start := time.Now()
		_, err := Parse([]byte(data), "deep.toml")
		if err == nil || !strings.Contains(err.Error(), "deep.toml:2:") || !strings.Contains(err.Error(), "nested deeper") {
			t.Errorf("%s: err = %v, want a depth error at deep.toml:2", name, err)
		}
		t.Logf("%s: %v", name, time.Since(start))
	}
}
