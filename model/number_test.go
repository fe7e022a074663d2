package model

import (
	"errors"
	"testing"
)

func TestParseDecimal(t *testing.T) {
	for s, want := range map[string]float64{
		"4": 4, "4.5": 4.5, "-3": -3, "+2": 2, ".5": 0.5, "5.": 5, "1e3": 1000, "1E-2": 0.01, "-0.5e+1": -5, "007": 7,
	} {
		got, err := ParseDecimal(s)
		if err != nil || got != want {
			t.Errorf("ParseDecimal(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	// Go literal syntax strconv.ParseFloat takes, and words.
	for _, s := range []string{"4_5", "1_000.5", "0x1p3", "0x_1p3", "inf", "+Inf", "-infinity", "nan", "NaN",
		"", "-", ".", "e5", "1e", "1e+", "1.2.3", " 4", "4 ", "4,5", "½", "1e999"} {
		if v, err := ParseDecimal(s); err == nil {
			t.Errorf("ParseDecimal(%q) = %v, want an error", s, v)
		}
	}
	if _, err := ParseDecimal("0x1p3"); !errors.Is(err, ErrNotDecimal) {
		t.Errorf("0x1p3: err = %v, want ErrNotDecimal", err)
	}
}
