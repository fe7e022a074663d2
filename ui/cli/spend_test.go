package cli

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
	"github.com/prism-eval/prism/ui/cli/internal/clitest"
)

// countServer is an OpenAI-compatible server on loopback that answers
// every request with a score and counts the requests it received.
type countServer struct {
	*httptest.Server
	n atomic.Int64
}

func newCountServer(t *testing.T) *countServer {
	s := &countServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.n.Add(1)
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, clitest.Completion(`{"score": 5}`))
	}))
	t.Cleanup(s.Close)
	return s
}

// withConfirm makes the confirmation question see a terminal (or not)
// that answers answer, for one test.
func withConfirm(t *testing.T, terminal bool, answer string) {
	old := clikit.ConfirmIO
	clikit.ConfirmIO.In, clikit.ConfirmIO.Terminal = strings.NewReader(answer), func() bool { return terminal }
	t.Cleanup(func() { clikit.ConfirmIO = old })
}

// acquiringCommands are the commands that send judge requests, each with
// the arguments that acquire a priced study (gpt-4o-mini in the built-in
// price table) of the tiny workspace through srv.
func acquiringCommands(ws, url string) map[string][]string {
	judge := []string{"--workspace", ws, "--backend", "openai", "--model", "gpt-4o-mini", "--base-url", url + "/v1",
		"--response-format", "none", "--retries", "0"}
	with := func(cmd ...string) []string { return append(cmd, judge...) }
	return map[string][]string{
		"run":                  with("run", "--bank", "quality"),
		"screen":               with("screen", "--bank", "quality"),
		"diagnose joint":       with("diagnose", "joint"),
		"diagnose wording":     with("diagnose", "wording"),
		"diagnose resolution":  with("diagnose", "resolution", "--bank", "quality"),
		"run --listwise":       with("run", "--bank", "quality", "--listwise", "--orders", "2"),
		"run --rubric g-eval":  with("run", "--rubric", "geval-summeval"),
		"diagnose resolution+": with("diagnose", "resolution", "--bank", "quality", "--json"),
	}
}

// Every acquiring command has --dry-run (the estimate, nothing sent) and
// refuses, sending nothing, an estimate over --max-requests or --max-cost.
func TestSpendFlagsEveryCommandSendsNothing(t *testing.T) {
	ws := clitest.TinyWorkspace(t)
	srv := newCountServer(t)
	withConfirm(t, false, "")
	for name, args := range acquiringCommands(ws, srv.URL) {
		cases := []struct {
			flags []string
			code  int
			want  string
		}{
			{[]string{"--dry-run"}, 0, "dry run: nothing sent"},
			{[]string{"--dry-run", "--max-requests", "1"}, 0, "a run would be refused:"},
			{[]string{"--max-requests", "1"}, 1, "exceed --max-requests 1; nothing was sent"},
			{[]string{"--max-cost", "0.000001"}, 1, "exceeds --max-cost $1e-06; nothing was sent"},
		}
		for _, tc := range cases {
			code, out, errOut := clitest.RunCmd(append(append([]string{}, args...), tc.flags...)...)
			if code != tc.code || !strings.Contains(out+errOut, tc.want) {
				t.Errorf("%s %v: exit %d, want %d and %q:\n%s%s", name, tc.flags, code, tc.code, tc.want, out, errOut)
			}
			if !strings.Contains(out+errOut, "estimate: ") {
				t.Errorf("%s %v: no estimate printed:\n%s%s", name, tc.flags, out, errOut)
			}
		}
	}
	if n := srv.n.Load(); n != 0 {
		t.Errorf("the server received %d requests, want 0", n)
	}
}

// A run within --max-requests and --max-cost goes ahead; one request
// fewer than it sends is refused with nothing sent.
func TestSpendFlagsWithinLimitsSends(t *testing.T) {
	ws := clitest.TinyWorkspace(t)
	srv := newCountServer(t)
	withConfirm(t, false, "")
	args := acquiringCommands(ws, srv.URL)["run"]
	args = append(args, "--probes", "baseline") // 4 candidates × 1 condition
	if code, _, errOut := clitest.RunCmd(append(args, "--max-requests", "3")...); code != 1 || !strings.Contains(errOut, "4 requests to send exceed --max-requests 3") || srv.n.Load() != 0 {
		t.Fatalf("--max-requests 3: exit %d, sent %d: %s", code, srv.n.Load(), errOut)
	}
	if code, out, errOut := clitest.RunCmd(append(args, "--max-requests", "4", "--max-cost", "1")...); code != 0 || srv.n.Load() != 4 {
		t.Fatalf("within the limits: exit %d, sent %d, want 4:\n%s%s", code, srv.n.Load(), out, errOut)
	}
	// Nothing left to send: --max-requests 0 does not stand in the way.
	if code, _, errOut := clitest.RunCmd(append(args, "--max-requests", "0")...); code != 0 || srv.n.Load() != 4 {
		t.Fatalf("a finished study under --max-requests 0: exit %d, sent %d: %s", code, srv.n.Load(), errOut)
	}
	if code, _, errOut := clitest.RunCmd(append(args, "--max-requests", "-1")...); code != 2 || !strings.Contains(errOut, "want a whole number ≥ 0") {
		t.Errorf("--max-requests -1: exit %d: %s", code, errOut)
	}
}

// An unpriced model cannot be shown to stay under --max-cost: refused,
// with the hint to pass a price table; with one, the run goes ahead.
func TestSpendMaxCostUnknownPrice(t *testing.T) {
	ws := clitest.TinyWorkspace(t)
	srv := newCountServer(t)
	withConfirm(t, false, "")
	args := append(clitest.ServerArgs(ws, srv.URL, "--probes", "baseline"), "--max-cost", "1")
	code, _, errOut := clitest.RunCmd(args...)
	if code != 1 || !strings.Contains(errOut, `the cost is unknown (no price for "m"; pass --prices FILE)`) || srv.n.Load() != 0 {
		t.Fatalf("unpriced --max-cost: exit %d, sent %d: %s", code, srv.n.Load(), errOut)
	}
	prices := filepath.Join(t.TempDir(), "prices.toml")
	if err := os.WriteFile(prices, []byte("[m]\ninput = 1.0\noutput = 2.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := clitest.RunCmd(append(args, "--prices", prices)...); code != 0 || srv.n.Load() != 4 {
		t.Fatalf("priced --max-cost 1: exit %d, sent %d: %s", code, srv.n.Load(), errOut)
	}
}

// prism score (the calibrator's probes, and its --budget stages) honours
// the same flags before anything is sent.
func TestSpendFlagsScore(t *testing.T) {
	ws, cal, _, srv := clitest.ServerStudy(t, 4)
	withConfirm(t, false, "")
	dir := t.TempDir()
	calPol := filepath.Join(dir, "pol.json")
	clitest.MustRun(t, "budget", "--workspace", ws, "--dataset", "train", "--judge", "m", "--bootstrap", "20",
		"--calibrator", cal, "--save", calPol, "--tau", "0.3")
	_, n0 := srv.Counts()
	base := []string{"score", "--workspace", ws, "--dataset", "fresh"}
	for _, extra := range [][]string{{"--calibrator", cal}, {"--calibrator", calPol, "--budget", "3"}} {
		args := append(append([]string{}, base...), extra...)
		for _, tc := range []struct {
			flags []string
			want  string
		}{
			{[]string{"--dry-run"}, "dry run: nothing sent"},
			{[]string{"--max-requests", "1"}, "exceed --max-requests 1; nothing was sent"},
			{[]string{"--max-cost", "5"}, `the cost is unknown (no price for "m"`},
		} {
			code, out, errOut := clitest.RunCmd(append(append([]string{}, args...), tc.flags...)...)
			if _, n := srv.Counts(); n != n0 || !strings.Contains(out+errOut, tc.want) || (code == 0) != (tc.flags[0] == "--dry-run") {
				t.Errorf("%v %v: exit %d, sent %d, want %q:\n%s%s", extra, tc.flags, code, n-n0, tc.want, out, errOut)
			}
		}
	}
	// Within the limits, the calibrator's 4 × 3 candidates × 5 conditions go.
	code, out, errOut := clitest.RunCmd(append(base, "--calibrator", cal, "--max-requests", "60", "-o", filepath.Join(dir, "s.csv"))...)
	if _, n := srv.Counts(); code != 0 || n-n0 != 60 {
		t.Errorf("within --max-requests 60: exit %d, sent %d:\n%s%s", code, n-n0, out, errOut)
	}
	// The spend flags are workspace flags: not for --scores.
	code, _, errOut = clitest.RunCmd("score", "--calibrator", cal, "--scores", "x.csv", "--max-cost", "1")
	if code != 2 || !strings.Contains(errOut, "--max-cost: workspace flags") {
		t.Errorf("--scores with --max-cost: exit %d: %s", code, errOut)
	}
}

// The question: asked only on a terminal, for a priced backend, above
// --confirm-above, without --yes; "y" sends, anything else refuses.
func TestSpendConfirm(t *testing.T) {
	priced := engine.Estimate{Send: 100, Cost: 12.5, Priced: true, PriceModel: "gpt-4o"}
	cases := []struct {
		name     string
		terminal bool
		backend  string
		e        engine.Estimate
		flags    []string
		answer   string
		asked    bool
		send     bool
	}{
		{"yes on a terminal", true, "openai", priced, nil, "y\n", true, true},
		{"YES", true, "openai", priced, nil, " YES \n", true, true},
		{"no", true, "openai", priced, nil, "n\n", true, false},
		{"empty answer", true, "openai", priced, nil, "\n", true, false},
		{"end of input", true, "openai", priced, nil, "", true, false},
		{"no terminal", false, "openai", priced, nil, "", false, true},
		{"--yes", true, "openai", priced, []string{"--yes"}, "", false, true},
		{"below the default $5", true, "openai", engine.Estimate{Send: 100, Cost: 4.99, Priced: true}, nil, "", false, true},
		{"--confirm-above 1", true, "openai", engine.Estimate{Send: 100, Cost: 4.99, Priced: true}, []string{"--confirm-above", "1"}, "n\n", true, false},
		{"unpriced model", true, "openai", engine.Estimate{Send: 100, PriceModel: "m"}, nil, "", false, true},
		{"offline", true, "offline", priced, []string{"--confirm-above", "0"}, "", false, true},
		{"nothing to send", true, "openai", engine.Estimate{Cost: 12.5, Priced: true}, nil, "", false, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			withConfirm(t, tc.terminal, tc.answer)
			fs := clikit.NewFlags("prism test", "usage")
			sf := clikit.AddSpendFlags(fs)
			if _, _, err := fs.ParseArgs(tc.flags, io.Discard); err != nil {
				t.Fatal(err)
			}
			var info, stderr bytes.Buffer
			send, err := sf.Check(tc.e, tc.backend, &info, &stderr)
			if asked := strings.Contains(stderr.String(), "? [y/N]"); asked != tc.asked {
				t.Errorf("asked %v, want %v: %q", asked, tc.asked, stderr.String())
			}
			if send != tc.send || (err != nil) == tc.send {
				t.Errorf("send %v, err %v; want send %v", send, err, tc.send)
			}
			if err != nil && !strings.Contains(err.Error(), "not confirmed: nothing was sent") {
				t.Errorf("refusal: %v", err)
			}
		})
	}
}

// End to end: prism run on a terminal with a priced study above
// --confirm-above asks; "n" sends nothing, "y" sends the study.
func TestSpendConfirmRun(t *testing.T) {
	ws := clitest.TinyWorkspace(t)
	srv := newCountServer(t)
	args := append(acquiringCommands(ws, srv.URL)["run"], "--probes", "baseline", "--confirm-above", "0")
	withConfirm(t, true, "n\n")
	code, _, errOut := clitest.RunCmd(args...)
	if code != 1 || !strings.Contains(errOut, "send 4 requests, estimated cost $0.00 (above --confirm-above $0.00)? [y/N]") || srv.n.Load() != 0 {
		t.Fatalf("answered n: exit %d, sent %d: %s", code, srv.n.Load(), errOut)
	}
	withConfirm(t, true, "y\n")
	if code, _, errOut := clitest.RunCmd(args...); code != 0 || srv.n.Load() != 4 {
		t.Fatalf("answered y: exit %d, sent %d: %s", code, srv.n.Load(), errOut)
	}
}
