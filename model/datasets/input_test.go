package datasets

import (
	"strings"
	"testing"
)

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
