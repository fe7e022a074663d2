package datasets

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/prism-eval/prism/model"
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

// Number cells of a dataset are decimal numbers only.
func TestGenericCellsDecimalOnly(t *testing.T) {
	for _, cell := range []string{"4_5", "0x1p3", "inf", "NaN"} {
		csv := "context,candidate,text,human\nc,k,hello," + cell + "\n"
		_, err := Read(FormatCSV, strings.NewReader(csv), "g.csv")
		if err == nil || !strings.HasPrefix(err.Error(), "g.csv:2:") {
			t.Errorf("CSV human %q: err = %v, want an error at g.csv:2", cell, err)
		}
		jsonl := `{"context":"c","candidate":"k","text":"hello","human":"` + cell + `"}` + "\n"
		_, err = Read(FormatJSONL, strings.NewReader(jsonl), "g.jsonl")
		if err == nil || !strings.HasPrefix(err.Error(), "g.jsonl:1:") {
			t.Errorf("JSONL human %q: err = %v, want an error at g.jsonl:1", cell, err)
		}
	}
}

// A 10 MB header cell gives an error line of a few hundred bytes.
func TestGenericHeaderErrorShort(t *testing.T) {
	big := strings.Repeat("x", 10<<20)
	for _, head := range []string{"context,candidate,human," + big, "context,candidate,text,human,scores." + big + ",scores." + big} {
		_, err := Read(FormatCSV, strings.NewReader(head+"\nc,k,1,2,3\n"), "g.csv")
		if err == nil || len(err.Error()) > 1000 {
			n := 0
			if err != nil {
				n = len(err.Error())
			}
			t.Errorf("header %.30q…: error of %d bytes, want a short one", head, n)
		}
	}
}

// zeros is an io.Reader that never ends, like /dev/zero.
type zeros struct{ n int64 }

func (z *zeros) Read(p []byte) (int, error) {
	clear(p)
	z.n += int64(len(p))
	return len(p), nil
}

func wantSizeError(t *testing.T, err error, msg string) {
	t.Helper()
	var se *model.SizeError
	if !errors.As(err, &se) || err.Error() != msg {
		t.Errorf("err = %v\nwant SizeError %q", err, msg)
	}
}

func TestDatasetTextLimit(t *testing.T) {
	long := strings.Repeat("a", model.MaxText+1)
	jsonl := `{"context": "c", "candidate": "a", "text": "t", "human": 1}` + "\n" +
		`{"context": "c", "candidate": "b", "text": "` + long + `", "human": 2}` + "\n"
	_, err := Read(FormatJSONL, strings.NewReader(jsonl), "g.jsonl")
	wantSizeError(t, err, "g.jsonl:2:1: text: larger than the 1 MiB limit for one text")

	jsonl = `{"context": "c", "candidate": "a", "text": "t", "human": 1, "meta": {"notes": ["` + long + `"]}}` + "\n"
	_, err = Read(FormatJSONL, strings.NewReader(jsonl), "g.jsonl")
	wantSizeError(t, err, "g.jsonl:1:1: meta.notes.0: larger than the 1 MiB limit for one text")

	csv := "context,candidate,text,human\nc,a,t,1\nc,b,\"" + long + "\",2\n"
	_, err = Read(FormatCSV, strings.NewReader(csv), "g.csv")
	wantSizeError(t, err, "g.csv:3:1: text: larger than the 1 MiB limit for one text")

	// At the limit is fine.
	ok := strings.Repeat("a", model.MaxText)
	csv = "context,candidate,text,human\nc,a,t,1\nc,b,\"" + ok + "\",2\n"
	if _, err := Read(FormatCSV, strings.NewReader(csv), "g.csv"); err != nil {
		t.Errorf("a text of exactly MaxText: %v", err)
	}
}

func TestJSONLineLimit(t *testing.T) {
	// Many fields, each under the text limit, on one line over MaxJSONLine.
	var b strings.Builder
	b.WriteString(`{"context": "c", "candidate": "a", "text": "t", "human": 1`)
	part := strings.Repeat("x", model.MaxText/2)
	for i := 0; b.Len() <= model.MaxJSONLine; i++ {
		b.WriteString(`, "f` + strings.Repeat("y", i) + `": "` + part + `"`)
	}
	b.WriteString("}\n")
	_, err := Read(FormatJSONL, strings.NewReader("\n"+b.String()), "g.jsonl")
	wantSizeError(t, err, "g.jsonl:2:1: larger than the 8 MiB limit for one line of a JSON Lines file")
}

func TestDatasetEndlessInput(t *testing.T) {
	defer func(l int64) { datasetFileLimit = l }(datasetFileLimit)
	datasetFileLimit = 4 << 20 // the real 1 GiB would take seconds
	z := &zeros{}
	_, err := Read(FormatJSONL, z, "zero.jsonl")
	wantSizeError(t, err, "zero.jsonl: larger than the 4 MiB limit for a dataset file")
	if z.n > 2*datasetFileLimit {
		t.Errorf("read %d bytes of an endless input, want about the limit", z.n)
	}
	// A file over the limit is refused by its size, before any read.
	path := t.TempDir() + "/big.jsonl"
	if err := os.WriteFile(path, make([]byte, datasetFileLimit+1), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Load(FormatJSONL, path)
	wantSizeError(t, err, path+": larger than the 4 MiB limit for a dataset file")
}

func TestLoadRefusesDevices(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	for _, f := range Formats() {
		_, err := Load(f, "/dev/zero")
		if err == nil || !strings.Contains(err.Error(), "/dev/zero: is a device or socket, not a file") {
			t.Errorf("Load(%s, /dev/zero): %v", f, err)
		}
	}
}
