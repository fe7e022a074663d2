package judge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A deeply nested judge config is refused before parsing, naming the file.
func TestLoadConfigDepth(t *testing.T) {
	p := filepath.Join(t.TempDir(), "judge.toml")
	os.WriteFile(p, []byte("model = \"m\"\nx = "+strings.Repeat("[", 8000)+strings.Repeat("]", 8000)), 0o644)
	_, err := LoadConfig(p)
	if err == nil || !strings.HasPrefix(err.Error(), p+":2:") || !strings.Contains(err.Error(), "nested deeper") {
		t.Fatalf("err = %v, want a depth error at %s:2", err, p)
	}
}
