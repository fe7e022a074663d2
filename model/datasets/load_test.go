package datasets

import (
	"strings"
	"testing"
)

func TestFormats(t *testing.T) {
	want := []string{"csv", "hanna", "helpsteer2", "jsonl", "judgebench", "mtbench", "summeval", "summeval-jsonl", "topicalchat"}
	if got := Formats(); !equalStrings(got, want) {
		t.Errorf("Formats() = %v, want %v", got, want)
	}
	_, err := Read("xml", strings.NewReader(""), "f")
	if err == nil || !strings.Contains(err.Error(), `unknown dataset format "xml"`) {
		t.Errorf("unknown format: %v", err)
	}
	if _, err := Load("xml", "f"); err == nil {
		t.Error("Load of unknown format: no error")
	}
	if _, err := Load(FormatCSV, "testdata/does-not-exist.csv"); err == nil {
		t.Error("Load of a missing file: no error")
	}
}
