package model

import (
	"strings"
	"testing"
)

// Number cells are decimal numbers: Go literal syntax, inf and nan are
// refused with the cell, its line and column.
func TestScoreCellsDecimalOnly(t *testing.T) {
	for _, cell := range []string{"4_5", "0x1p3", "inf", "nan", "1_0"} {
		_, err := ReadScoresCSV(strings.NewReader("context,candidate,probe,score\nc,k,baseline,"+cell+"\n"), "s.csv")
		if err == nil || !strings.Contains(err.Error(), "s.csv:2:") || !strings.Contains(err.Error(), `"`+cell+`"`) {
			t.Errorf("score %q: err = %v, want an error at s.csv:2 quoting the cell", cell, err)
		}
		_, err = ReadLabelsCSV(strings.NewReader("context,candidate,human\nc,k,"+cell+"\n"), "l.csv")
		if err == nil || !strings.Contains(err.Error(), "l.csv:2:") {
			t.Errorf("label %q: err = %v, want an error at l.csv:2", cell, err)
		}
	}
	rows, err := ReadScoresCSV(strings.NewReader("context,candidate,probe,score\nc,k,baseline,-4.5e1\nc,k,attr:+,\n"), "s.csv")
	if err != nil || rows[0].Score != -45 || !rows[1].Missing {
		t.Fatalf("rows %+v, err %v", rows, err)
	}
}

// An error quotes at most a short prefix of the cell it is about.
func TestScoreErrorsShort(t *testing.T) {
	long := strings.Repeat("x", 500<<10)
	inputs := map[string]string{
		"probe":      "context,candidate,probe,score\nc,k," + long + ":+,1\n",
		"score":      "context,candidate,probe,score\nc,k,baseline,1" + long + "\n",
		"dup header": "context,candidate,probe,score," + long + "," + long + "\n",
	}
	for name, in := range inputs {
		_, err := ReadScoresCSV(strings.NewReader(in), "s.csv")
		if err == nil || len(err.Error()) > 400 {
			t.Errorf("%s: error of %d bytes, want a short one", name, len(errText(err)))
		}
	}
	in := "context,candidate,human\nc," + long + ",1\nc," + long + ",2\n"
	if _, err := ReadLabelsCSV(strings.NewReader(in), "l.csv"); err == nil || len(err.Error()) > 400 {
		t.Errorf("duplicate label: error of %d bytes, want a short one", len(errText(err)))
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
