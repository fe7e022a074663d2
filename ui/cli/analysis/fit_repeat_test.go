package analysis

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prism-eval/prism/calib"
)

// TestFitRepeatCV: prism fit --repeat-cv 3 prints the first permutation's
// report as --seed alone does, then the summary under a line naming the
// permutations and seeds; its JSON's repeat_cv holds permutation k's
// method means as --seed 42+k gives them, bitwise. --repeat-cv 1 adds
// nothing.
func TestFitRepeatCV(t *testing.T) {
	scores, labels := writeFitFiles(t, 10)
	base := []string{"--scores", scores, "--labels", labels, "--bootstrap", "200"}
	run := func(extra ...string) string {
		t.Helper()
		code, out, errs := runFitCmd(append(append([]string{}, base...), extra...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", extra, code, errs)
		}
		return out
	}
	plain := run()
	if one := run("--repeat-cv", "1"); one != plain {
		t.Errorf("--repeat-cv 1 changed the report:\n%s\nwant\n%s", one, plain)
	}
	if js := run("--json", "--repeat-cv", "1"); strings.Contains(js, "repeat_cv") {
		t.Error("--repeat-cv 1: JSON has repeat_cv")
	}
	text := run("--repeat-cv", "3")
	head := "\nrepeated CV: 3 fold permutations (seeds 42…44)"
	i := strings.Index(text, head)
	if i < 0 {
		t.Fatalf("no %q in:\n%s", head, text)
	}
	for _, s := range []string{"CI > 0", "CI < 0", "/3"} {
		if !strings.Contains(text[i:], s) {
			t.Errorf("summary lacks %q:\n%s", s, text[i:])
		}
	}
	var r calib.Report
	if err := json.Unmarshal([]byte(run("--json", "--repeat-cv", "3")), &r); err != nil {
		t.Fatal(err)
	}
	for k, seed := range []string{"42", "43", "44"} {
		var rk calib.Report
		if err := json.Unmarshal([]byte(run("--json", "--seed", seed)), &rk); err != nil {
			t.Fatal(err)
		}
		for _, m := range []calib.Method{calib.Vanilla, calib.PRISM, calib.AlphaPRISM, calib.Half} {
			got, want := r.RepeatCV.Methods[m.String()].Means[k], rk.Methods.Get(m).Mean
			if math.Float64bits(got) != math.Float64bits(want) {
				t.Errorf("%s permutation %d: %v, --seed %s: %v", m, k, got, seed, want)
			}
		}
	}
}

// TestFitRepeatCVErrors: K < 1, --order and --protocol confirm are usage
// errors.
func TestFitRepeatCVErrors(t *testing.T) {
	scores, labels := writeFitFiles(t, 6)
	order := filepath.Join(t.TempDir(), "order.txt")
	os.WriteFile(order, []byte("doc00\n"), 0o644)
	for _, tc := range []struct {
		extra  []string
		substr string
	}{
		{[]string{"--repeat-cv", "0"}, "want at least 1"},
		{[]string{"--repeat-cv", "2", "--order", order}, "not with --order"},
		{[]string{"--repeat-cv", "2", "--protocol", "confirm", "--benchmark", "b"}, "not with --protocol confirm"},
	} {
		code, _, errs := runFitCmd(append([]string{"--scores", scores, "--labels", labels}, tc.extra...)...)
		if code != 2 || !strings.Contains(errs, tc.substr) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.extra, code, errs, tc.substr)
		}
	}
}
