package analysis

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

// writeFitFiles writes a small deterministic study: nctx contexts × 5
// candidates, attributes "len" and "tone" and a context probe; humans
// follow the tone quality the baseline underweights, so PRISM can help.
func writeFitFiles(t *testing.T, nctx int) (scores, labels string) {
	t.Helper()
	dir := t.TempDir()
	var s, l strings.Builder
	s.WriteString("context,candidate,probe,score,run,wording\n")
	l.WriteString("context,candidate,human\n")
	for g := 0; g < nctx; g++ {
		for i := 0; i < 5; i++ {
			// Deterministic pseudo-random qualities.
			a := math.Sin(float64(7*g+3*i+1) * 1.7)
			b := math.Cos(float64(5*g+11*i+2) * 2.3)
			s0 := 3 + a + 0.1*b
			ctx, cand := fmt.Sprintf("doc%02d", g), fmt.Sprintf("sys%d", i)
			fmt.Fprintf(&l, "%s,%s,%.6f\n", ctx, cand, a+b)
			fmt.Fprintf(&s, "%s,%s,baseline,%.6f,1,0\n", ctx, cand, s0)
			fmt.Fprintf(&s, "%s,%s,baseline,%.6f,2,0\n", ctx, cand, s0+0.01)
			fmt.Fprintf(&s, "%s,%s,len:+,%.6f,1,0\n", ctx, cand, s0+0.3*a)
			fmt.Fprintf(&s, "%s,%s,len:-,%.6f,1,0\n", ctx, cand, s0-0.3*a)
			fmt.Fprintf(&s, "%s,%s,tone:+,%.6f,1,0\n", ctx, cand, s0+0.5*b)
			fmt.Fprintf(&s, "%s,%s,tone:-,%.6f,1,1\n", ctx, cand, s0-0.4*b)
			fmt.Fprintf(&s, "%s,%s,neutral:calm,%.6f,1,0\n", ctx, cand, s0)
			if !(g == 0 && i == 0) { // one missing cell, imputed
				fmt.Fprintf(&s, "%s,%s,ctx:expert,%.6f,1,0\n", ctx, cand, s0+0.05*a)
			}
		}
	}
	scores, labels = filepath.Join(dir, "S.csv"), filepath.Join(dir, "L.csv")
	if err := os.WriteFile(scores, []byte(s.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(labels, []byte(l.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return scores, labels
}

func runFitCmd(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = clikit.RunMain(context.Background(), append([]string{"fit"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

func TestFitJSON(t *testing.T) {
	scores, labels := writeFitFiles(t, 12)
	code, out, errs := runFitCmd("--scores", scores, "--labels", labels, "--json", "--bootstrap", "300")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep map[string]any
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"n_contexts", "n_candidates", "columns", "imputed", "methods", "folds", "profiles", "sweep", "order", "metric", "seed", "bootstrap", "gamma_grid", "attributes"} {
		if _, ok := rep[k]; !ok {
			t.Errorf("JSON lacks key %q", k)
		}
	}
	if rep["n_contexts"] != 12.0 || rep["n_candidates"] != 60.0 {
		t.Errorf("n_contexts %v, n_candidates %v", rep["n_contexts"], rep["n_candidates"])
	}
	cols := fmt.Sprint(rep["columns"])
	if cols != "[len:+ len:- tone:+ tone:- ctx:expert]" {
		t.Errorf("columns %s", cols)
	}
	imp := rep["imputed"].(map[string]any)
	if imp["ctx:expert"] != 1.0 || imp["baseline"] != 0.0 {
		t.Errorf("imputed %v", imp)
	}
	methods := rep["methods"].(map[string]any)
	for _, m := range []string{"vanilla", "prism", "alpha_prism", "half"} {
		mr, ok := methods[m].(map[string]any)
		if !ok {
			t.Fatalf("methods.%s missing", m)
		}
		ci := mr["ci"].([]any)
		mean := mr["mean"].(float64)
		if len(ci) != 2 || ci[0].(float64) > mean || mean > ci[1].(float64) {
			t.Errorf("%s: mean %v ci %v", m, mean, ci)
		}
		if len(mr["per_context"].(map[string]any)) != 12 {
			t.Errorf("%s: per_context %v", m, mr["per_context"])
		}
		_, hasDiff := mr["diff_vs_vanilla"]
		if hasDiff != (m != "vanilla") {
			t.Errorf("%s: diff_vs_vanilla present = %v", m, hasDiff)
		}
	}
	prism := methods["prism"].(map[string]any)
	if d := prism["diff_vs_vanilla"].(map[string]any); d["mean"].(float64) <= 0 {
		t.Errorf("PRISM does not beat Vanilla on data built for it: %v", d)
	}
	folds := rep["folds"].([]any)
	f0 := folds[0].(map[string]any)
	if len(folds) != 5 || f0["fold"] != 1.0 || len(f0["test_contexts"].([]any)) != 3 {
		t.Errorf("folds %v", f0)
	}
	half := f0["half"].(map[string]any)
	if b := half["beta"].(map[string]any); len(b) != 2 || b["tone"] == nil {
		t.Errorf("half β keyed by attribute: %v", b)
	}
	if b := f0["prism"].(map[string]any)["beta"].(map[string]any); len(b) != 5 || b["ctx:expert"] == nil {
		t.Errorf("prism β keyed by column: %v", b)
	}
	prof := rep["profiles"].(map[string]any)["tone"].(map[string]any)["a"].(map[string]any)
	for _, k := range []string{"mean", "min", "max", "folds", "sign_stable"} {
		if _, ok := prof[k]; !ok {
			t.Errorf("profiles.tone.a lacks %q", k)
		}
	}
	if len(rep["sweep"].(map[string]any)) != 7 {
		t.Errorf("sweep %v", rep["sweep"])
	}

	// Same inputs, same bytes; another seed changes the order.
	_, again, _ := runFitCmd("--scores", scores, "--labels", labels, "--json", "--bootstrap", "300")
	if again != out {
		t.Error("two runs differ")
	}
	_, other, _ := runFitCmd("--scores", scores, "--labels", labels, "--json", "--bootstrap", "300", "--seed", "7")
	if other == out {
		t.Error("--seed 7 gives the same report as 42")
	}
}

func TestFitHumanOutput(t *testing.T) {
	scores, labels := writeFitFiles(t, 10)
	order := filepath.Join(t.TempDir(), "order.txt")
	var ids []string
	for g := 9; g >= 0; g-- {
		ids = append(ids, fmt.Sprintf("doc%02d", g))
	}
	os.WriteFile(order, []byte(strings.Join(ids, "\n")+"\n"), 0o644)
	code, out, errs := runFitCmd("--scores", scores, "--labels", labels, "--order", order, "--metric", "pairwise", "--bootstrap", "200")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, s := range []string{"metric pairwise", "Vanilla", "α-PRISM", "Half-difference", "Δ vs Vanilla", "fold 5", "γ sweep", "selected", "attribute", "tone", "sign-stable", "ctx:expert 1"} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
}

func TestFitErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	scores, labels := writeFitFiles(t, 6)
	goodS, _ := os.ReadFile(scores)
	goodL, _ := os.ReadFile(labels)
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		substr []string
	}{
		{"no flags", nil, 2, []string{"--scores"}},
		{"unknown flag", []string{"--bogus"}, 2, []string{"bogus"}},
		{"bad metric", []string{"--scores", scores, "--labels", labels, "--metric", "kendall"}, 2, []string{"kendall"}},
		{"missing column", []string{"--scores", write("s1.csv", "context,candidate,score\nd,a,1\n"), "--labels", labels}, 1,
			[]string{"s1.csv:1", `"probe"`}},
		{"non-numeric score", []string{"--scores", write("s2.csv", "context,candidate,probe,score\nd,a,baseline,1\nd,a,x:+,high\n"), "--labels", labels}, 1,
			[]string{"s2.csv:3", `"score"`, "high"}},
		{"one sign", []string{"--scores", write("s3.csv", string(goodS)+"doc00,sys0,pace:+,3,1,0\n"), "--labels", labels}, 1,
			[]string{"s3.csv:", `"probe"`, `"pace"`}},
		{"no baseline", []string{"--scores", write("s4.csv", "context,candidate,probe,score\nd,a,x:+,1\nd,a,x:-,1\n"), "--labels", labels}, 1,
			[]string{"s4.csv", "baseline"}},
		{"duplicate label", []string{"--scores", scores, "--labels", write("l1.csv", string(goodL)+"doc01,sys2,3\n")}, 1,
			[]string{"l1.csv:32", "duplicate", "line 9"}},
		{"unscored label", []string{"--scores", scores, "--labels", write("l2.csv", string(goodL)+"doc01,sys9,3\n")}, 1,
			[]string{"l2.csv:32", `"sys9"`, "no scores"}},
		{"too few contexts", []string{"--scores", scores, "--labels", write("l3.csv", strings.Join(strings.Split(string(goodL), "\n")[:21], "\n")+"\n")}, 1,
			[]string{"l3.csv", "only 4 contexts", "at least 5"}},
		{"missing file", []string{"--scores", filepath.Join(dir, "nope.csv"), "--labels", labels}, 1, []string{"nope.csv"}},
	} {
		code, _, errs := runFitCmd(tc.args...)
		if code != tc.code {
			t.Errorf("%s: exit %d, want %d (%s)", tc.name, code, tc.code, errs)
		}
		for _, s := range tc.substr {
			if !strings.Contains(errs, s) {
				t.Errorf("%s: stderr %q lacks %q", tc.name, errs, s)
			}
		}
	}
}

func TestFitWarnings(t *testing.T) {
	scores, labels := writeFitFiles(t, 7)
	l, _ := os.ReadFile(labels)
	lines := strings.Split(strings.TrimSpace(string(l)), "\n")
	// Drop four labels of doc06 (one left: context skipped) and one of doc05
	// (its scores ignored).
	var kept []string
	for _, line := range lines {
		if strings.HasPrefix(line, "doc06,") && !strings.HasPrefix(line, "doc06,sys0") || strings.HasPrefix(line, "doc05,sys4") {
			continue
		}
		kept = append(kept, line)
	}
	os.WriteFile(labels, []byte(strings.Join(kept, "\n")+"\n"), 0o644)
	code, _, errs := runFitCmd("--scores", scores, "--labels", labels, "--bootstrap", "50")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// 5 unlabelled candidates × 8 rows each.
	for _, s := range []string{"warning", "ignored 40 score rows of 5 candidates", "skipped 1 contexts", "doc06"} {
		if !strings.Contains(errs, s) {
			t.Errorf("stderr %q lacks %q", errs, s)
		}
	}
}

func TestFitTaylorFlag(t *testing.T) {
	scores, labels := writeFitFiles(t, 10)
	code, out, errs := runFitCmd("--scores", scores, "--labels", labels, "--taylor", "--bootstrap", "100")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if strings.Count(out, "Diagonal Taylor") != 3 { // comparison, γ per fold, sweep
		t.Errorf("output:\n%s", out)
	}
	_, js, _ := runFitCmd("--scores", scores, "--labels", labels, "--taylor", "--bootstrap", "100", "--json")
	var rep struct {
		Methods map[string]json.RawMessage
		Folds   []map[string]json.RawMessage
	}
	if err := json.Unmarshal([]byte(js), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Methods["taylor"] == nil || rep.Folds[0]["taylor"] == nil {
		t.Errorf("JSON lacks taylor: %s", js[:200])
	}
}

func TestFitGlobal(t *testing.T) {
	scores, labels := writeFitFiles(t, 12)
	code, out, errs := runFitCmd("--scores", scores, "--labels", labels, "--global", "--bootstrap", "100")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "global mode: 60 candidates as one group") || !strings.Contains(out, "PRISM") {
		t.Errorf("output:\n%s", out)
	}
	code, _, errs = runFitCmd("--scores", scores, "--labels", labels, "--global", "--metric", "pairwise")
	if code != 1 || !strings.Contains(errs, "spearman") {
		t.Errorf("global pairwise: exit %d, %s", code, errs)
	}
}

// --figures from score files writes the report and the profile and sweep
// figures, and says on stderr that there is no signal figure; not with
// --protocol confirm.
func TestFitFiguresFromFiles(t *testing.T) {
	scores, labels := writeFitFiles(t, 12)
	dir := filepath.Join(t.TempDir(), "figs")
	code, out, errs := runFitCmd("--scores", scores, "--labels", labels, "--bootstrap", "100", "--json", "--figures", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !json.Valid([]byte(out)) {
		t.Errorf("stdout is not the JSON report alone: %.200s", out)
	}
	var wrote []string
	for _, name := range []string{"report.json", "report.csv", "profiles.csv", "profiles.png", "profiles.svg", "sweep.png", "sweep.svg"} {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); err != nil {
			t.Error(err)
		}
		wrote = append(wrote, "prism fit: wrote "+p)
	}
	want := strings.Join(wrote, "\n") + "\nprism fit: no signal figure: the scores come from files, not a workspace study\n"
	if errs != want {
		t.Errorf("stderr:\n%s\nwant\n%s", errs, want)
	}
	code, _, errs = runFitCmd("--scores", scores, "--labels", labels, "--protocol", "confirm", "--benchmark", "x", "--figures", dir)
	if code != 2 || !strings.Contains(errs, "not with --protocol confirm") {
		t.Errorf("--protocol confirm --figures: exit %d, %s", code, errs)
	}
}
