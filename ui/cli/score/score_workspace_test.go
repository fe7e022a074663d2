package score

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/model/shareddata"
	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
	"github.com/prism-eval/prism/ui/cli/internal/clitest"
)

// prism score on a workspace dataset sends exactly the calibrator's
// conditions (baseline and its probe wordings; no other attribute, no
// neutral clause) once per candidate and run, and a rerun sends nothing.
func TestScoreWorkspaceSendsOnlyCalibratorProbes(t *testing.T) {
	ws, cal, _, srv := clitest.ServerStudy(t, 5)
	c := clitest.ReadCalibrator(t, cal)
	if !slices.Equal(c.Probes(), []string{"baseline", "coverage:+", "coverage:-"}) || c.Judge == nil || c.Judge.Backend != "openai" || c.Judge.Model != "m" {
		t.Fatalf("calibrator probes %v, judge %+v", c.Probes(), c.Judge)
	}
	before, n0 := srv.Counts()
	out := filepath.Join(t.TempDir(), "fresh.csv")
	code, stdout, errOut := clitest.RunCmd("score", "--calibrator", cal, "--workspace", ws, "--dataset", "fresh", "-o", out, "--concurrency", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, stdout, errOut)
	}
	after, n1 := srv.Counts()
	sent := map[string]int{}
	for p, v := range after {
		if d := v - before[p]; d != 0 {
			sent[p] = d
		}
	}
	// 15 candidates × (1 baseline + 2 wordings × 2 signs) × 1 run.
	want := map[string]int{"baseline": 15, "coverage:+": 30, "coverage:-": 30}
	if n1-n0 != 75 || len(sent) != len(want) || sent["baseline"] != 15 || sent["coverage:+"] != 30 || sent["coverage:-"] != 30 {
		t.Errorf("sent %d requests per probe %v, want 75: %v", n1-n0, sent, want)
	}
	if !strings.Contains(stdout, "(5 of its 10 conditions: 3 probes baseline coverage:+ coverage:-") || !strings.Contains(stdout, "0 answered, 0 from cache, 75 to send") {
		t.Errorf("estimate:\n%s", stdout)
	}
	first, _ := os.ReadFile(out)
	if got := parseScoredCSV(t, string(first)); len(got.rows) != 15 || got.head[len(got.head)-1] != "term:coverage" {
		t.Errorf("%d rows, header %v", len(got.rows), got.head)
	}
	// A rerun sends nothing and writes the same scores.
	code, stdout, errOut = clitest.RunCmd("score", "--calibrator", cal, "--workspace", ws, "--dataset", "fresh", "-o", out)
	if code != 0 {
		t.Fatalf("rerun: exit %d: %s", code, errOut)
	}
	if _, n2 := srv.Counts(); n2 != n1 || !strings.Contains(stdout, "75 answered, 0 from cache, 0 to send") {
		t.Errorf("rerun sent %d requests:\n%s", n2-n1, stdout)
	}
	second, _ := os.ReadFile(out)
	if !bytes.Equal(first, second) {
		t.Error("the rerun wrote other scores")
	}
	// An -o FILE ending in .jsonl selects JSON Lines.
	jl := filepath.Join(t.TempDir(), "fresh.jsonl")
	if code, _, errOut := clitest.RunCmd("score", "--calibrator", cal, "--workspace", ws, "--dataset", "fresh", "-o", jl); code != 0 {
		t.Fatalf("-o .jsonl: exit %d: %s", code, errOut)
	}
	if data, _ := os.ReadFile(jl); !bytes.HasPrefix(data, []byte(`{"header":{`)) || bytes.Count(data, []byte("\n")) != 16 {
		t.Errorf("-o fresh.jsonl:\n%s", data)
	}
	// --dry-run prints the estimate of another dataset and sends nothing.
	code, stdout, errOut = clitest.RunCmd("score", "--calibrator", cal, "--workspace", ws, "--dataset", "train", "--dry-run")
	if _, n3 := srv.Counts(); code != 0 || n3 != n1 || stdout != "" || !strings.Contains(errOut, "120 answered, 0 from cache, 0 to send") {
		t.Errorf("dry run on the training data: exit %d, sent %d:\n%s%s", code, n3-n1, stdout, errOut)
	}
	// Another model is refused, naming the field.
	code, _, errOut = clitest.RunCmd("score", "--calibrator", cal, "--workspace", ws, "--dataset", "fresh", "--model", "m2", "--dry-run")
	if code != 1 || !strings.Contains(errOut, "model: m (calibrator) vs m2") {
		t.Errorf("--model m2: exit %d, stderr %q", code, errOut)
	}
}

// An interrupted prism score (ctrl+c) stores what was answered; the rerun
// sends only the rest: no answered request twice, beyond the few in
// flight at the interrupt.
func TestScoreResumesAfterInterrupt(t *testing.T) {
	ws, cal, _, srv := clitest.ServerStudy(t, 20) // 60 candidates × 5 conditions = 300 requests
	_, n0 := srv.Counts()
	ctx, cancel := context.WithCancel(context.Background())
	srv.Mu.Lock()
	srv.After, srv.AfterN = make(chan struct{}), n0+100
	after := srv.After
	srv.Mu.Unlock()
	go func() {
		<-after
		cancel()
	}()
	args := []string{"score", "--calibrator", cal, "--workspace", ws, "--dataset", "fresh", "--concurrency", "2", "-o", filepath.Join(t.TempDir(), "x.csv")}
	var out, errb bytes.Buffer
	code := clikit.RunMain(ctx, args, &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "rerun the same command to resume") || !strings.Contains(errb.String(), "prism score --calibrator") {
		t.Fatalf("interrupted: exit %d\n%s", code, errb.String())
	}
	_, n1 := srv.Counts()
	code, stdout, errOut := clitest.RunCmd(args...)
	if code != 0 {
		t.Fatalf("resume: exit %d: %s", code, errOut)
	}
	_, n2 := srv.Counts()
	srv.Mu.Lock()
	twice := 0
	for _, v := range srv.PerID {
		if v > 1 {
			twice++
		}
	}
	distinct := len(srv.PerID)
	srv.Mu.Unlock()
	t.Logf("interrupt after %d requests; the resume sent %d; %d requests sent twice", n1-n0, n2-n1, twice)
	if distinct != 240+300 {
		t.Errorf("%d distinct requests answered, want 540 (240 training + 300 scoring)", distinct)
	}
	// Up to --concurrency (2) answers can be in flight at the interrupt.
	if twice > 2 || n2-n0 > 300+2 {
		t.Errorf("%d requests sent twice, %d sent in all for 300: more than the 2 in flight", twice, n2-n0)
	}
	if !strings.Contains(stdout, "to send") {
		t.Errorf("resume output:\n%s", stdout)
	}
}

// The crash test of prism score, as TestRunSurvivesSIGKILL for prism run:
// a prism score child is SIGKILLed mid-run and rerun. Every answer
// committed before the kill is never requested again, no more than the
// --concurrency requests in flight are sent twice, and the rerun writes
// every candidate's score.
func TestScoreSurvivesSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	srv := clitest.NewPrismServer(t, 4*time.Millisecond)
	ws, cal := clitest.ServerStudyAt(t, 60, srv.URL) // fresh: 180 candidates × 5 conditions = 900 requests
	dir := t.TempDir()
	out := filepath.Join(dir, "scored.csv")
	args := []string{"score", "--calibrator", cal, "--workspace", ws, "--dataset", "fresh", "--concurrency", "4", "-o", out}
	child := func(log string) *exec.Cmd {
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), "PRISM_TEST_AS_MAIN=1")
		f, err := os.Create(filepath.Join(dir, log))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		cmd.Stdout, cmd.Stderr = f, f
		return cmd
	}
	trained := len(srv.Snapshot())
	if trained != 240 {
		t.Fatalf("training: %d requests answered, want 240", trained)
	}
	clitest.KillAt(t, child("first.log"), srv.At(trained+300), filepath.Join(dir, "first.log"), "prism score ended before 300 answers")
	srv.Idle()
	answeredAtKill := srv.Snapshot()
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("-o %s exists after the kill: %v", out, err)
	}
	st, err := store.Open(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	committed, err := st.Scores(context.Background(), "fresh", "m", "")
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(committed) == 0 || len(committed) >= 900 {
		t.Fatalf("%d answers committed at the kill; the test wants a kill mid-run", len(committed))
	}
	if err := child("second.log").Run(); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "second.log"))
		t.Fatalf("rerun: %v\n%s", err, log)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if got := parseScoredCSV(t, string(data)); len(got.rows) != 180 {
		t.Fatalf("the rerun scored %d candidates, want 180", len(got.rows))
	}

	// Map stored coordinates to server identities through the same plan.
	st, err = store.Open(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	d, err := st.Dataset(context.Background(), "fresh")
	if err != nil {
		t.Fatal(err)
	}
	c := clitest.ReadCalibrator(t, cal)
	b, err := c.ParsedBank()
	if err != nil {
		t.Fatal(err)
	}
	cfg := study.ConfigOf(c.Judge)
	plan, err := engine.NewPlan(context.Background(), st, engine.Spec{Dataset: d, Bank: b, JudgeName: "m", Config: cfg, Repeats: 1, Probes: c.Probes()})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Items) != 900 || plan.Estimate.Answered != 900 {
		t.Fatalf("after the rerun the store holds %d of %d answers", plan.Estimate.Answered, len(plan.Items))
	}
	idOf := map[string]string{}
	for i, it := range plan.Items {
		req, err := plan.Request(i)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := engine.ChatBody(cfg, req, int(it.Run))
		idOf[plan.Row(&it).Context+"|"+plan.Row(&it).Candidate+"|"+plan.Row(&it).Probe+"|"+plan.Row(&it).Wording] = clitest.RequestIdentity(body)
	}
	final := srv.Snapshot()
	for _, row := range committed {
		id := idOf[row.Context+"|"+row.Candidate+"|"+row.Probe+"|"+row.Wording]
		if id == "" || final[id] != answeredAtKill[id] {
			t.Errorf("%s/%s %s: committed before the kill, yet answered again (%d → %d)", row.Context, row.Candidate, row.Probe, answeredAtKill[id], final[id])
		}
	}
	resent := 0
	for _, id := range idOf {
		if final[id] == 0 {
			t.Errorf("request %s never answered by the server, yet stored", id[:8])
		}
		if final[id] > 1 {
			resent++
		}
	}
	t.Logf("kill after %d scoring answers: %d committed; the rerun re-sent %d", len(answeredAtKill)-trained, len(committed), resent)
	if resent > 4 {
		t.Errorf("%d requests re-sent after the kill, more than the 4 in flight (--concurrency 4)", resent)
	}
}

// On the real SummEval with the offline judge: a calibrator on three
// attributes plans exactly baseline + its 12 probe wordings per candidate
// (no neutral clause, no other attribute), and applied to its own
// training data its transfer check's Vanilla agreement is prism fit's
// Vanilla mean exactly, marked in-sample.
func TestScoreSummEval(t *testing.T) {
	path := shareddata.Path(t, "summeval/data.json")
	if testing.Short() || clitest.RaceEnabled {
		t.Skip("60,800 requests and a full fit: not in -short or -race runs")
	}
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws.db")
	clitest.MustRun(t, "data", "import", "summeval", path, "--name", "summeval", "--workspace", ws)
	clitest.MustRun(t, "run", "--workspace", ws, "--bank", "quality")
	cal := filepath.Join(dir, "cal.json")
	out, _ := clitest.MustRun(t, "fit", "--workspace", ws, "--attributes", "coverage,coherence,fluency", "--bootstrap", "200", "--json", "--save", cal)
	var rep calib.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	header, rows, errOut := jsonlOutput(t, "--calibrator", cal, "--workspace", ws)
	wall := time.Since(start)
	tr := header["transfer"].(map[string]any)
	base := tr["baseline"].(map[string]any)["mean"].(float64)
	corr := tr["corrected"].(map[string]any)["mean"].(float64)
	t.Logf("SummEval: fit Vanilla %.6f, PRISM (nested CV) %.4f; score: baseline %.6f, corrected (in-sample) %.4f; scoring 1,600 stored candidates took %v",
		rep.Methods.Vanilla.Mean, rep.Methods.PRISM.Mean, base, corr, wall)
	if base != rep.Methods.Vanilla.Mean || len(rows) != 1600 {
		t.Errorf("transfer baseline %v, fit Vanilla %v (want equal); %d rows", base, rep.Methods.Vanilla.Mean, len(rows))
	}
	for _, want := range []string{"1600 of 1600 scored candidates were training candidates of the calibrator: the corrected agreement below is in-sample",
		"(13 of its 38 conditions: 7 probes", "20800 answered, 0 from cache, 0 to send"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	// Under another judge name the calibrator's conditions are acquired
	// again (from the cache: the messages are the same): per probe,
	// exactly candidates × wordings.
	clitest.MustRun(t, "score", "--calibrator", cal, "--workspace", ws, "--judge", "again", "-o", filepath.Join(dir, "again.csv"))
	st, err := store.OpenReadOnly(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	stored, err := st.Scores(context.Background(), "summeval", "again", "")
	if err != nil {
		t.Fatal(err)
	}
	perProbe := map[string]int{}
	for _, r := range stored {
		perProbe[r.Probe]++
	}
	want := map[string]int{"baseline": 1600}
	for _, a := range []string{"coverage", "coherence", "fluency"} {
		want[a+":+"], want[a+":-"] = 3200, 3200
	}
	if len(perProbe) != len(want) {
		t.Errorf("stored per probe %v, want %v", perProbe, want)
	}
	for p, n := range want {
		if perProbe[p] != n {
			t.Errorf("probe %s: %d answers stored, want %d", p, perProbe[p], n)
		}
	}
}

// TestScoreImportedScores checks a calibrator fitted on imported scores
// (a judge without a bank): prism score on a workspace dataset scores that
// judge's stored answers and sends nothing, and says so.
func TestScoreImportedScores(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "study.db")
	in := filepath.Join(dir, "in.csv")
	// Scores recorded elsewhere: the offline judge's, exported from
	// another workspace.
	other := filepath.Join(dir, "other.db")
	clitest.MustRun(t, "data", "import", "demo", "--workspace", other)
	clitest.MustRun(t, "run", "--workspace", other, "--bank", "style7")
	clitest.MustRun(t, "export", "scores", "--workspace", other, "-o", in)
	clitest.MustRun(t, "data", "import", "demo", "--workspace", ws)
	clitest.MustRun(t, "import", "scores", "--dataset", "demo", "--judge", "external", in, "--workspace", ws)
	cal := filepath.Join(dir, "cal.json")
	clitest.MustRun(t, "fit", "--workspace", ws, "--judge", "external", "--bootstrap", "20", "--save", cal)
	out, errOut := clitest.MustRun(t, "score", "--workspace", ws, "--calibrator", cal, "--dataset", "demo")
	if !strings.Contains(errOut, "fitted on imported scores (no probe bank): scoring the stored answers of judge external on dataset demo; nothing is sent") {
		t.Errorf("stderr:\n%s", errOut)
	}
	// The demo has 12 contexts × 5 candidates: one row each, after the header.
	if n := strings.Count(out, "\n") - 1; n != 60 {
		t.Errorf("%d candidate rows, want 60:\n%s", n, out)
	}
	if !strings.Contains(errOut, "60 of 60 scored candidates were training candidates") {
		t.Errorf("in-sample not said:\n%s", errOut)
	}
}
