package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/datasets"
	"github.com/prism-eval/prism/model/shareddata"
)

// sameFloat treats two NaNs as equal: NaN is how a missing score is held.
func sameFloat(a, b float64) bool {
	return a == b || (math.IsNaN(a) && math.IsNaN(b))
}

// equalDatasets compares field by field; maps that are empty and nil are
// the same (the store keeps no empty JSON objects).
func equalDatasets(t *testing.T, got, want *model.Dataset) {
	t.Helper()
	if got.Name != want.Name || got.Format != want.Format || got.Task != want.Task || got.Metric != want.Metric {
		t.Fatalf("header = %q %q %q %q, want %q %q %q %q", got.Name, got.Format, got.Task, got.Metric,
			want.Name, want.Format, want.Task, want.Metric)
	}
	if !(len(got.Criteria) == 0 && len(want.Criteria) == 0) && !reflect.DeepEqual(got.Criteria, want.Criteria) {
		t.Fatalf("criteria = %v, want %v", got.Criteria, want.Criteria)
	}
	if len(got.Contexts) != len(want.Contexts) {
		t.Fatalf("%d contexts, want %d", len(got.Contexts), len(want.Contexts))
	}
	for i, wc := range want.Contexts {
		gc := got.Contexts[i]
		if gc.ID != wc.ID || gc.Source != wc.Source || !equalStrMaps(gc.Extra, wc.Extra) {
			t.Fatalf("context %d = %q, want %q (or its source/extra differ)", i, gc.ID, wc.ID)
		}
		if len(gc.Candidates) != len(wc.Candidates) {
			t.Fatalf("context %q: %d candidates, want %d", wc.ID, len(gc.Candidates), len(wc.Candidates))
		}
		for j, wk := range wc.Candidates {
			gk := gc.Candidates[j]
			if gk.ID != wk.ID || gk.Text != wk.Text || !sameFloat(gk.Human, wk.Human) || !equalStrMaps(gk.Extra, wk.Extra) {
				t.Fatalf("context %q candidate %d: got %q %q %v, want %q %q %v", wc.ID, j, gk.ID, gk.Text, gk.Human, wk.ID, wk.Text, wk.Human)
			}
			if len(gk.Scores) != len(wk.Scores) {
				t.Fatalf("candidate %q: scores %v, want %v", wk.ID, gk.Scores, wk.Scores)
			}
			for k, v := range wk.Scores {
				if g, ok := gk.Scores[k]; !ok || !sameFloat(g, v) {
					t.Fatalf("candidate %q score %q = %v, want %v", wk.ID, k, g, v)
				}
			}
		}
	}
}

func equalStrMaps(a, b map[string]string) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}

func TestDatasetRoundTrip(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	want := tinyDataset("tiny")
	if err := s.PutDataset(ctx, want, false); err != nil {
		t.Fatal(err)
	}
	got, err := s.Dataset(ctx, "tiny")
	if err != nil {
		t.Fatal(err)
	}
	equalDatasets(t, got, want)

	infos, err := s.Datasets(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) != 1 || infos[0].Name != "tiny" || infos[0].Contexts != 2 || infos[0].Candidates != 3 || infos[0].Created.IsZero() {
		t.Fatalf("Datasets() = %+v, want one entry tiny with 2 contexts, 3 candidates", infos)
	}
}

// TestDatasetKeepsFileOrder reads contexts and candidates back by their
// stored positions, not by row id or name: positions rewritten in the
// tables to the reverse order come back reversed (the packed layout
// dropped), a context without candidates keeps its place, and another
// dataset's rows do not mix in.
func TestDatasetKeepsFileOrder(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	d := &model.Dataset{Name: "order", Format: "csv", Task: model.TaskNewsSummary, Metric: model.MetricSpearman}
	for c := range 5 {
		cc := model.Context{ID: string(rune('z' - c)), Source: "source " + string(rune('z'-c))}
		for k := range 4 - c%3*2 { // 4, 2, 0, 4, 2 candidates
			cc.Candidates = append(cc.Candidates, model.Candidate{ID: string(rune('a' + (k*3)%4)), Text: cc.ID + "/" + string(rune('a'+(k*3)%4)), Human: float64(k)})
		}
		d.Contexts = append(d.Contexts, cc)
	}
	if err := s.PutDataset(ctx, tinyDataset("other"), false); err != nil {
		t.Fatal(err)
	}
	if err := s.PutDataset(ctx, d, false); err != nil {
		t.Fatal(err)
	}
	if err := s.PutDataset(ctx, tinyDataset("after"), false); err != nil {
		t.Fatal(err)
	}
	got, err := s.Dataset(ctx, "order")
	if err != nil {
		t.Fatal(err)
	}
	equalDatasets(t, got, d)
	if len(got.Contexts[2].Candidates) != 0 {
		t.Fatalf("context %q: %d candidates, want none", got.Contexts[2].ID, len(got.Contexts[2].Candidates))
	}

	// Reverse every position of this dataset in the tables, and drop
	// its packed layout (as in a workspace before schema 11): the
	// readers of the layout read the tables.
	id := `(SELECT id FROM datasets WHERE name = 'order')`
	if _, err := s.w.ExecContext(ctx, `UPDATE datasets SET layout = NULL WHERE name = 'order'`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.ExecContext(ctx, `UPDATE contexts SET pos = 100 - pos WHERE dataset_id = `+id); err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.ExecContext(ctx, `UPDATE candidates SET pos = 100 - pos WHERE context_id IN (SELECT id FROM contexts WHERE dataset_id = `+id+`)`); err != nil {
		t.Fatal(err)
	}
	rev := &model.Dataset{Name: d.Name, Format: d.Format, Task: d.Task, Metric: d.Metric}
	for _, c := range slices.Backward(d.Contexts) {
		c.Candidates = slices.Clone(c.Candidates)
		slices.Reverse(c.Candidates)
		rev.Contexts = append(rev.Contexts, c)
	}
	if got, err = s.Dataset(ctx, "order"); err != nil {
		t.Fatal(err)
	}
	equalDatasets(t, got, rev)
	// Without the texts: the same ids, order and labels, at DatasetAt's
	// revision.
	ids, idsRev, err := s.DatasetIDsAt(ctx, "order")
	if err != nil {
		t.Fatal(err)
	}
	if _, r, err := s.DatasetAt(ctx, "order"); err != nil || r != idsRev {
		t.Fatalf("DatasetIDsAt's revision %d, DatasetAt's %d (%v)", idsRev, r, err)
	}
	textless := &model.Dataset{Name: rev.Name, Format: rev.Format, Task: rev.Task, Metric: rev.Metric}
	for _, c := range rev.Contexts {
		tc := model.Context{ID: c.ID}
		for _, k := range c.Candidates {
			tc.Candidates = append(tc.Candidates, model.Candidate{ID: k.ID, Human: k.Human})
		}
		textless.Contexts = append(textless.Contexts, tc)
	}
	equalDatasets(t, ids, textless)
	// Labels and Scores (through its positions) follow the same order.
	labels, err := s.Labels(ctx, "order")
	if err != nil {
		t.Fatal(err)
	}
	if want := rev.Labels(); !reflect.DeepEqual(labels, want) {
		t.Fatalf("Labels = %v, want %v", labels, want)
	}
	var scores, want []model.ScoreRow
	for _, c := range d.Contexts { // imported in the original order
		for _, k := range c.Candidates {
			scores = append(scores, model.ScoreRow{Context: c.ID, Candidate: k.ID, Probe: "baseline", Score: k.Human})
		}
	}
	for _, c := range rev.Contexts {
		for _, k := range c.Candidates {
			want = append(want, model.ScoreRow{Context: c.ID, Candidate: k.ID, Probe: "baseline", Score: k.Human})
		}
	}
	if _, err := s.ImportScores(ctx, "order", "imp", scores); err != nil {
		t.Fatal(err)
	}
	rows, err := s.Scores(ctx, "order", "imp", "")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rows, want) {
		t.Fatalf("Scores = %v, want %v", rows, want)
	}
	for _, name := range []string{"other", "after"} {
		got, err := s.Dataset(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		equalDatasets(t, got, tinyDataset(name))
	}
}

func TestPutDatasetTwiceNeedsReplace(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	if err := s.PutDataset(ctx, tinyDataset("d"), false); err != nil {
		t.Fatal(err)
	}
	err := s.PutDataset(ctx, tinyDataset("d"), false)
	if !errors.Is(err, ErrExists) {
		t.Fatalf("second PutDataset without replace: err = %v, want ErrExists", err)
	}
	smaller := tinyDataset("d")
	smaller.Contexts = smaller.Contexts[1:]
	if err := s.PutDataset(ctx, smaller, true); err != nil {
		t.Fatal(err)
	}
	got, err := s.Dataset(ctx, "d")
	if err != nil {
		t.Fatal(err)
	}
	equalDatasets(t, got, smaller)
}

func TestPutDatasetRejectsBadInput(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	dupCtx := tinyDataset("dc")
	dupCtx.Contexts[1].ID = dupCtx.Contexts[0].ID
	dupCand := tinyDataset("dk")
	dupCand.Contexts[0].Candidates[1].ID = "b"
	inf := tinyDataset("inf")
	inf.Contexts[0].Candidates[0].Human = math.Inf(1)
	noName := tinyDataset("")
	for _, tc := range []struct {
		d    *model.Dataset
		want string
	}{
		{dupCtx, `context id "c2" appears twice`},
		{dupCand, `candidate id "b" appears twice`},
		{inf, "infinite"},
		{noName, "no name"},
		{nil, "nil"},
	} {
		err := s.PutDataset(ctx, tc.d, false)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("PutDataset: err = %v, want it to mention %q", err, tc.want)
		}
	}
	if infos, _ := s.Datasets(ctx); len(infos) != 0 {
		t.Errorf("after rejected puts the store holds %d datasets, want 0", len(infos))
	}
}

// TestWriteTransactionIsAtomic checks that a failure after some inserts
// leaves nothing behind: the rollback path every Put* relies on.
func TestWriteTransactionIsAtomic(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	boom := errors.New("boom")
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, "INSERT INTO datasets(name, format, task, metric, criteria, created) VALUES ('half','csv','generic','spearman','[]','now')"); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("tx error = %v, want boom", err)
	}
	if _, err := s.Dataset(ctx, "half"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("dataset from a rolled-back transaction is visible (err = %v)", err)
	}
}

func TestDeleteDatasetCascades(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	seedJudgeAndDataset(t, s)
	if err := s.PutResponses(ctx, []Response{answer("c1", "x", "baseline", "0", 3)}); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteDataset(ctx, "tiny"); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"contexts", "candidates", "requests", "responses"} {
		var n int
		if err := s.r.QueryRowContext(ctx, "SELECT count(*) FROM "+table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Errorf("%s holds %d rows after deleting the only dataset", table, n)
		}
	}
}

// TestRealDatasetsRoundTrip stores each real dataset the loaders read
// and reads it back unchanged. Sizes are from each PROVENANCE.md and the
// issue: SummEval 100 x 16, Topical-Chat 60 x 6, JudgeBench 620 pairs.
func TestRealDatasetsRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		format, rel          string
		contexts, candidates int
	}{
		{"summeval", "summeval/data.json", 100, 1600},
		{"topicalchat", "usr_topicalchat/topical_chat.json", 60, 360},
		{"judgebench", "judgebench", 620, 1240},
	} {
		t.Run(tc.format, func(t *testing.T) {
			d, err := datasets.Load(tc.format, shareddata.Path(t, tc.rel))
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			s := openTemp(t)
			if err := s.PutDataset(ctx, d, false); err != nil {
				t.Fatal(err)
			}
			got, err := s.Dataset(ctx, d.Name)
			if err != nil {
				t.Fatal(err)
			}
			equalDatasets(t, got, d)
			infos, err := s.Datasets(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if infos[0].Contexts != tc.contexts || infos[0].Candidates != tc.candidates {
				t.Errorf("stored as %d contexts, %d candidates; want %d, %d", infos[0].Contexts, infos[0].Candidates, tc.contexts, tc.candidates)
			}
		})
	}
}

// TestHANNAFixtureRoundTrip stores the HANNA loader's fixture (the real
// file is not available here): every per-criterion mean and the target
// must survive.
func TestHANNAFixtureRoundTrip(t *testing.T) {
	d, err := datasets.Load("hanna", filepath.Join("..", "datasets", "testdata", "hanna_stories_annotations.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if d.NumCandidates() == 0 || len(d.Criteria) == 0 {
		t.Fatalf("fixture loaded as %d candidates, criteria %v", d.NumCandidates(), d.Criteria)
	}
	ctx := context.Background()
	s := openTemp(t)
	if err := s.PutDataset(ctx, d, false); err != nil {
		t.Fatal(err)
	}
	got, err := s.Dataset(ctx, d.Name)
	if err != nil {
		t.Fatal(err)
	}
	equalDatasets(t, got, d)
}

const fakeKey = "sk-proj-TESTKEY0123456789abcdefXYZ"

func TestPutJudgeStripsSecrets(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	j, err := s.PutJudge(ctx, Judge{
		Name: "gpt", Backend: "openai", Model: "gpt-4o-mini",
		BaseURL: "https://user:" + fakeKey + "@api.example.com/v1?api_key=" + fakeKey + "&region=eu",
		Params: map[string]any{
			"temperature": 0.0, "max_tokens": 256, "api_key": fakeKey,
			"headers": map[string]any{"Authorization": "Bearer " + fakeKey, "X-Trace": "on"},
			"note":    "uses " + fakeKey, // a key under an innocent name
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	wantStripped := []string{"api_key", "base_url.query.api_key", "base_url.userinfo", "headers.Authorization", "note"}
	if strings.Join(j.Stripped, ",") != strings.Join(wantStripped, ",") {
		t.Errorf("Stripped = %v, want %v", j.Stripped, wantStripped)
	}
	got, err := s.Judge(ctx, "gpt")
	if err != nil {
		t.Fatal(err)
	}
	if got.BaseURL != "https://api.example.com/v1?region=eu" {
		t.Errorf("BaseURL = %q", got.BaseURL)
	}
	if got.Params["max_tokens"] != 256.0 || got.Params["temperature"] != 0.0 ||
		got.Params["headers"].(map[string]any)["X-Trace"] != "on" {
		t.Errorf("ordinary params lost: %v", got.Params)
	}
	if _, ok := got.Params["api_key"]; ok {
		t.Error("api_key stored")
	}
	// Same name and config (keys are not part of it) is fine; a change is not.
	if _, err := s.PutJudge(ctx, Judge{Name: "gpt", Backend: "openai", Model: "gpt-4o-mini", BaseURL: got.BaseURL,
		Params: map[string]any{"temperature": 0, "max_tokens": 256, "headers": map[string]any{"X-Trace": "on"}}}); err != nil {
		t.Errorf("re-putting the same judge: %v", err)
	}
	if _, err := s.PutJudge(ctx, Judge{Name: "gpt", Backend: "openai", Model: "gpt-4o"}); !errors.Is(err, ErrExists) {
		t.Errorf("changing a stored judge: err = %v, want ErrExists", err)
	}
}

// TestSecretNeverReachesDisk writes a judge with a key in every place a
// caller might put one, plus responses whose error and raw text carry it,
// then searches the raw bytes of the database and its WAL.
func TestSecretNeverReachesDisk(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "secret.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	const plainKey = "plain-opaque-credential-42" // no recognisable shape: only AddSecret can catch it
	s.AddSecret(plainKey)
	if err := s.PutDataset(ctx, tinyDataset("tiny"), false); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutJudge(ctx, Judge{Name: "j", Backend: "openai", Model: "gpt-x",
		BaseURL: "https://api.example.com/v1?key=" + plainKey,
		Params:  map[string]any{"api_key": fakeKey, "extra": plainKey, "temperature": 0}}); err != nil {
		t.Fatal(err)
	}
	r := failure("c1", "x", "baseline", "0", "http-401")
	r.Err = "401 Unauthorized: Incorrect API key provided: " + fakeKey + " (" + plainKey + ")"
	a := answer("c1", "x", "baseline", "1", 3)
	a.Raw = "echo " + plainKey
	if err := s.PutResponses(ctx, []Response{r, a}); err != nil {
		t.Fatal(err)
	}
	fails, err := s.Failures(ctx, "tiny", "j")
	if err != nil || fails["http-401"] != 1 {
		t.Fatalf("the failure itself must be kept: %v %v", fails, err)
	}
	check := func(stage string) {
		for _, suffix := range []string{"", "-wal"} {
			b, err := os.ReadFile(path + suffix)
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(b) == 0 && suffix == "" {
				t.Fatalf("%s: database file is empty; the test would prove nothing", stage)
			}
			for _, k := range []string{fakeKey, plainKey, "TESTKEY0123456789"} {
				if bytes.Contains(b, []byte(k)) {
					t.Errorf("%s: %s%s contains the secret %q", stage, filepath.Base(path), suffix, k)
				}
			}
		}
	}
	check("before close (WAL)")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	check("after checkpoint")
}

// A registered key inside imported data (a dataset's texts, ids and
// extras; an imported score's run label) never reaches the file, and the
// caller's dataset is left as it was.
func TestImportedDataScrubbed(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ws.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	const key = "plain-opaque-credential-77"
	s.AddSecret(key)
	d := tinyDataset("tiny")
	d.Contexts[1].ID = "c1-" + key
	d.Contexts[1].Candidates[0].Text = "pasted " + key + " here"
	d.Contexts[0].Extra["note"] = key
	d.Contexts[0].Candidates[1].Extra["k"] = key
	if err := s.PutDataset(ctx, d, false); err != nil {
		t.Fatal(err)
	}
	if d.Contexts[1].ID != "c1-"+key {
		t.Fatal("PutDataset changed the caller's dataset")
	}
	rows := []model.ScoreRow{{Context: "c1-" + key, Candidate: "x", Probe: "baseline", Score: 3, Run: "r-" + key, Line: 2}}
	if _, err := s.ImportScores(ctx, "tiny", "imp", rows); err != nil {
		t.Fatal(err)
	}
	got, err := s.Dataset(ctx, "tiny")
	if err != nil {
		t.Fatal(err)
	}
	if c := got.Contexts[1]; c.ID != "c1-[redacted]" || !strings.Contains(c.Candidates[0].Text, "[redacted]") {
		t.Fatalf("stored context %q, text %q: want the key redacted", c.ID, c.Candidates[0].Text)
	}
	s.Close()
	for _, suffix := range []string{"", "-wal"} {
		b, err := os.ReadFile(path + suffix)
		if err == nil && bytes.Contains(b, []byte(key)) {
			t.Errorf("%s%s holds the registered key", filepath.Base(path), suffix)
		}
	}
}

func TestBankSnapshots(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	b := BankSnapshot{Hash: "abc123", Name: "quality", Source: "builtin:quality", Text: "name = \"quality\"\n"}
	if err := s.PutBank(ctx, b); err != nil {
		t.Fatal(err)
	}
	if err := s.PutBank(ctx, b); err != nil {
		t.Fatalf("storing the same snapshot twice: %v", err)
	}
	changed := b
	changed.Text += "# edited\n"
	if err := s.PutBank(ctx, changed); err == nil || !strings.Contains(err.Error(), "different text") {
		t.Fatalf("a different text under one hash: err = %v", err)
	}
	got, err := s.Bank(ctx, "abc123")
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != b.Text || got.Name != b.Name || got.Source != b.Source || got.Created.IsZero() {
		t.Fatalf("Bank = %+v, want %+v", got, b)
	}
	all, err := s.Banks(ctx)
	if err != nil || len(all) != 1 {
		t.Fatalf("Banks = %v, %v", all, err)
	}
	if err := s.PutBank(ctx, BankSnapshot{Text: "x"}); err == nil {
		t.Error("snapshot without hash accepted")
	}
}
