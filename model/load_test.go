package model

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

func TestFormats(t *testing.T) {
	want := []string{"csv", "hanna", "jsonl", "judgebench", "summeval", "summeval-jsonl", "topicalchat"}
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
