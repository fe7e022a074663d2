package model

import (
	"strings"
	"testing"
)

func TestCheckTOMLDepth(t *testing.T) {
	n := 8000
	deep := map[string]string{
		"inline tables": "x = " + strings.Repeat("{a=", n) + "1" + strings.Repeat("}", n),
		"arrays":        "x = " + strings.Repeat("[", n) + "1" + strings.Repeat("]", n),
		"dotted keys":   strings.Repeat("a.", n) + "a = 1\n",
		"table header":  "[" + strings.Repeat("a.", n) + "a]\n",
		"on line 3":     "a = 1\nb = 2\nc = " + strings.Repeat("[", MaxTOMLDepth+1),
	}
	for name, s := range deep {
		err := CheckTOMLDepth([]byte(s), "bank.toml")
		if err == nil || !strings.HasPrefix(err.Error(), "bank.toml:") || !strings.Contains(err.Error(), "nested deeper") {
			t.Errorf("%s: err = %v, want a depth error naming the file", name, err)
		}
	}
	if err := CheckTOMLDepth([]byte(deep["on line 3"]), "f"); err == nil || !strings.HasPrefix(err.Error(), "f:3:") {
		t.Errorf("err = %v, want line 3", err)
	}
	ok := []string{
		"[[tasks.news-summary.scale.anchors]]\nfrom = 1\nto = 2\nlabel = \"a.b.c[{[{\"\n",
		"x = " + strings.Repeat("[", MaxTOMLDepth) + strings.Repeat("]", MaxTOMLDepth),
		"s = '''" + strings.Repeat("{", 1000) + "'''\n# " + strings.Repeat("[", 1000) + "\nv = 1.5\n",
		"s = \"\\\"" + strings.Repeat("{", 1000) + "\"\n",
		"x = [" + strings.Repeat("{a.b = 1.5}, ", 10000) + "]\n",
	}
	for _, s := range ok {
		if err := CheckTOMLDepth([]byte(s), "f"); err != nil {
			t.Errorf("%.40q…: %v", s, err)
		}
	}
}
