package data

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/cli/internal/clitest"
)

func TestBankList(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "none.db")
	code, out, errOut := clitest.RunPrism(t, "bank", "ls", "--workspace", ws)
	if code != 0 {
		t.Fatalf("bank ls: exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	bs := banks.Builtins()
	if len(lines) != 1+len(bs) {
		t.Fatalf("bank ls printed %d lines, want a header and %d banks:\n%s", len(lines), len(bs), out)
	}
	for i, b := range bs {
		f := strings.Fields(lines[i+1])
		if f[0] != b.Name || f[6] != b.Hash()[:12] || f[4] != strconv.Itoa(len(b.Conditions())) {
			t.Errorf("row %q, want name %s, %d conditions, hash %s", lines[i+1], b.Name, len(b.Conditions()), b.Hash()[:12])
		}
	}
	if _, err := os.Stat(ws); err == nil {
		t.Error("bank ls created the workspace file")
	}
}

func TestBankShow(t *testing.T) {
	code, out, errOut := clitest.RunPrism(t, "bank", "show", "quality")
	if code != 0 {
		t.Fatalf("bank show: exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"coverage: how much of the article’s important content the summary includes",
		"coverage:+ w0  When you assign the score, weight how much of the article’s important content the summary includes more heavily than you normally would.",
		"coverage:- w1  Let how much of the article’s important content the summary includes count for less than usual in the score you give.",
		"neutral:fair  Take your time and weigh each candidate fairly.",
		"38 conditions",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("bank show quality lacks %q", want)
		}
	}
}

func TestBankShowRender(t *testing.T) {
	code, out, errOut := clitest.RunPrism(t, "bank", "show", "quality", "--render", "--probe", "coverage:-", "--wording", "0")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	sys := "[system]\nYou are evaluating machine-generated summaries of news articles. When you assign the score, weight how much of the article’s important content the summary includes less heavily than you normally would.\n"
	if !strings.Contains(out, sys) || strings.Count(out, "[system]") != 1 {
		t.Errorf("render output lacks the one Table 1 system message:\n%s", out)
	}
	if !strings.Contains(out, `Respond with only a JSON object: {"score": <int 1–10>}.`) {
		t.Errorf("render output lacks the answer format:\n%s", out)
	}
	// All conditions by default; the listwise form shows both sample candidates.
	_, out, _ = clitest.RunPrism(t, "bank", "show", "story", "--render", "--listwise")
	if n := strings.Count(out, "[system]"); n != 78 {
		t.Errorf("story --render printed %d requests, want 78", n)
	}
	if !strings.Contains(out, "Story 2:\n") {
		t.Error("--listwise output lacks the second candidate")
	}
	// --batch, its former spelling, still works for one release, with
	// one line of note.
	_, old, errOut := clitest.RunPrism(t, "bank", "show", "story", "--render", "--batch")
	if old != out || errOut != "prism bank show: --batch is deprecated, use --listwise\n" {
		t.Errorf("--batch: stderr %q; output the same as --listwise's: %v", errOut, old == out)
	}
	code, _, errOut = clitest.RunPrism(t, "bank", "show", "quality", "--render", "--probe", "length:+")
	if code != 1 || !strings.Contains(errOut, "no condition length:+") {
		t.Errorf("unknown probe: exit %d, %q", code, errOut)
	}
	code, _, errOut = clitest.RunPrism(t, "bank", "show", "quality", "--render", "--task", "story")
	if code != 1 || !strings.Contains(errOut, `no task "story"`) {
		t.Errorf("unknown task: exit %d, %q", code, errOut)
	}
	code, _, _ = clitest.RunPrism(t, "bank", "show", "quality", "--probe", "baseline")
	if code != 2 {
		t.Errorf("--probe without --render: exit %d, want 2", code)
	}
}

// TestBankExportEditValidate follows the documented workflow: export a
// built-in bank, edit a clause, validate, and see a new hash.
func TestBankExportEditValidate(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "mine.toml")
	if code, _, errOut := clitest.RunPrism(t, "bank", "export", "style8", "-o", file); code != 0 {
		t.Fatalf("export: exit %d: %s", code, errOut)
	}
	data, _ := os.ReadFile(file)
	want, _ := banks.BuiltinFile("style8")
	if string(data) != string(want) {
		t.Error("exported file differs from the embedded one")
	}
	if code, _, errOut := clitest.RunPrism(t, "bank", "export", "style8", "-o", file); code != 1 || !strings.Contains(errOut, "--force") {
		t.Errorf("export over an existing file: exit %d, %q", code, errOut)
	}
	_, stdout, _ := clitest.RunPrism(t, "bank", "export", "style8")
	if stdout != string(want) {
		t.Error("export to stdout differs from the embedded file")
	}

	edited := strings.Replace(string(data), "how long the summary is", "how short the summary is", 1)
	os.WriteFile(file, []byte(edited), 0o644)
	code, out, errOut := clitest.RunPrism(t, "bank", "validate", file)
	b8, _ := banks.Builtin("style8")
	if code != 0 || !strings.Contains(out, file+": ok: bank style8, 8 attributes") || strings.Contains(out, b8.Hash()) {
		t.Errorf("validate edited: exit %d, %q %q; want ok with a new hash", code, out, errOut)
	}
	// show reads the file too.
	if _, out, _ := clitest.RunPrism(t, "bank", "show", file); !strings.Contains(out, "length: how short the summary is") {
		t.Errorf("show FILE does not show the edit:\n%s", out)
	}

	broken := filepath.Join(dir, "broken.toml")
	os.WriteFile(broken, []byte(strings.Replace(edited, `clause = "how short the summary is"`, `clause = ""`, 1)), 0o644)
	code, out, errOut = clitest.RunPrism(t, "bank", "validate", file, broken)
	if code != 1 || !strings.Contains(out, file+": ok") || !strings.Contains(errOut, "1 of 2 bank files invalid") ||
		!strings.Contains(errOut, broken+":") || !strings.Contains(errOut, "attributes[0].clause: empty") {
		t.Errorf("validate broken: exit %d\nstdout %q\nstderr %q", code, out, errOut)
	}
	code, _, errOut = clitest.RunPrism(t, "bank", "validate", filepath.Join(dir, "missing.toml"))
	if code != 1 || !strings.Contains(errOut, "missing.toml") {
		t.Errorf("validate missing file: exit %d, %q", code, errOut)
	}
}

func TestBankWorkspace(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "study.db")
	ctx := context.Background()
	s, err := store.Open(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := banks.Builtin("answer")
	b.Name = "answer-edited"
	b.Attributes = b.Attributes[:3]
	text, _ := b.Marshal()
	if err := s.PutBank(ctx, store.BankSnapshot{Hash: b.Hash(), Name: b.Name, Source: "edited.toml", Text: string(text)}); err != nil {
		t.Fatal(err)
	}
	s.Close()

	code, out, errOut := clitest.RunPrism(t, "bank", "ls", "--workspace", ws)
	if code != 0 || !strings.Contains(out, "answer-edited") || !strings.Contains(out, b.Hash()[:12]) {
		t.Errorf("ls with workspace: exit %d %q %q", code, out, errOut)
	}
	code, out, errOut = clitest.RunPrism(t, "bank", "show", b.Hash()[:8], "--workspace", ws)
	if code != 0 || !strings.Contains(out, "attributes (3)") {
		t.Errorf("show by hash prefix: exit %d %q %q", code, out, errOut)
	}
	code, out, _ = clitest.RunPrism(t, "bank", "export", b.Hash()[:8], "--workspace", ws)
	if code != 0 || out != string(text) {
		t.Errorf("export by hash prefix: exit %d", code)
	}
}

func TestBankUsage(t *testing.T) {
	for _, args := range [][]string{{"bank"}, {"bank", "frob"}, {"bank", "show"}, {"bank", "validate"}, {"bank", "export"}, {"bank", "ls", "x"}} {
		if code, _, errOut := clitest.RunPrism(t, args...); code != 2 || !strings.Contains(errOut, "prism bank") {
			t.Errorf("%v: exit %d, %q; want 2 with usage", args, code, errOut)
		}
	}
	if code, _, errOut := clitest.RunPrism(t, "bank", "show", "nosuchbank"); code != 1 || !strings.Contains(errOut, "quality, style8") {
		t.Errorf("unknown bank: exit %d %q", code, errOut)
	}
}
