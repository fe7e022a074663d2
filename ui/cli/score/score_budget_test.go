package score

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/prism-eval/prism/ui/cli/internal/clitest"
)

// TestScoreBudgetSendsPredictedCalls: prism budget --save puts the
// adaptive policy into a calibrator; prism score --budget N follows it
// stage by stage through the engine and the fake server counts exactly
// the requests the report says the policy spent, at most N per
// candidate; a rerun sends nothing and reports the same spending.
func TestScoreBudgetSendsPredictedCalls(t *testing.T) {
	ws, _, _, srv := clitest.ServerStudy(t, 8) // fresh: 8 contexts × 3 candidates
	dir := t.TempDir()
	calAll, calPol := filepath.Join(dir, "all.json"), filepath.Join(dir, "pol.json")
	clitest.MustRun(t, "fit", "--workspace", ws, "--dataset", "train", "--judge", "m", "--bootstrap", "20", "--save", calAll)
	_, errOut := clitest.MustRun(t, "budget", "--workspace", ws, "--dataset", "train", "--judge", "m", "--bootstrap", "20",
		"--calibrator", calAll, "--save", calPol, "--tau", "0.3")
	if !strings.Contains(errOut, "with the adaptive policy (τ 0.3, order ") {
		t.Fatalf("budget --save: %s", errOut)
	}
	// Without a policy, --budget is refused naming the field.
	code, _, errOut := clitest.RunCmd("score", "--calibrator", calAll, "--workspace", ws, "--dataset", "fresh", "--budget", "5")
	if code == 0 || !strings.Contains(errOut, `field "policy"`) {
		t.Errorf("--budget without a policy: exit %d, %s", code, errOut)
	}
	// The dry run sends nothing.
	_, n0 := srv.Counts()
	code, _, errOut = clitest.RunCmd("score", "--calibrator", calPol, "--workspace", ws, "--dataset", "fresh", "--budget", "5", "--dry-run")
	if _, n := srv.Counts(); code != 0 || n != n0 || !strings.Contains(errOut, "at most 5 calls per candidate: at most 120 of the full study's 216 requests") {
		t.Fatalf("dry run: exit %d, sent %d: %s", code, n-n0, errOut)
	}
	out := filepath.Join(dir, "fresh.csv")
	code, stdout, errOut := clitest.RunCmd("score", "--calibrator", calPol, "--workspace", ws, "--dataset", "fresh", "--budget", "5", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, stdout, errOut)
	}
	_, n1 := srv.Counts()
	spent := regexp.MustCompile(`the policy spent (\d+) requests \(([\d.]+) per candidate; the full study 9\); (\d+) sent now, (\d+) stored before; policy count (\d+)`).FindStringSubmatch(stdout)
	if spent == nil {
		t.Fatalf("no spending line:\n%s", stdout)
	}
	req, _ := strconv.Atoi(spent[1])
	now, _ := strconv.Atoi(spent[3])
	count, _ := strconv.Atoi(spent[5])
	if sent := n1 - n0; sent != req || now != req || count != req {
		t.Errorf("the server counted %d requests; the report says %d spent, %d sent, policy count %d", sent, req, now, count)
	}
	if req < 24 || req > 5*24 {
		t.Errorf("%d requests for 24 candidates at most 5 calls each", req)
	}
	t.Logf("budget 5: %d requests for 24 candidates (full study 216)\n%s", req, stdout)
	if data, _ := os.ReadFile(out); strings.Count(string(data), "\nf") != 24 {
		t.Errorf("scored rows:\n%s", data)
	}
	// A rerun sends nothing and reports the same spending.
	code, stdout, errOut = clitest.RunCmd("score", "--calibrator", calPol, "--workspace", ws, "--dataset", "fresh", "--budget", "5", "-o", out)
	if _, n2 := srv.Counts(); code != 0 || n2 != n1 || !strings.Contains(stdout, fmt.Sprintf("the policy spent %d requests", req)) || !strings.Contains(stdout, "0 sent now") {
		t.Errorf("rerun: exit %d, sent %d:\n%s%s", code, n2-n1, stdout, errOut)
	}
}
