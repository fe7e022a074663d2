package store

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/prism-eval/prism/model"
)

func TestRequestKeyReference(t *testing.T) {
	// Reference values computed independently with Python's hashlib over
	// the documented encoding: sha256 of uvarint-length-prefixed fields
	// "prism-request-key-v1", backend, model, params JSON, then the message
	// count as a uvarint and each role and content length-prefixed.
	for _, tc := range []struct {
		backend, model string
		params         map[string]any
		msgs           []Message
		want           string
	}{
		{"openai", "gpt-4o-mini", map[string]any{"temperature": 0, "max_tokens": 256},
			[]Message{{"system", "You are a judge."}, {"user", "Score it."}},
			"5545623c0735b4cf06bbe60abd3277670df52eccb1498e4233d96e657671471f"},
		{"offline", "", nil, nil,
			"ee6d5a61531518d7ac820bb94cf1af8b1bc25081da412c522a78fa05df0fa2c2"},
	} {
		got, err := RequestKey(tc.backend, tc.model, tc.params, tc.msgs)
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("RequestKey(%s, %s) = %s, want %s", tc.backend, tc.model, got, tc.want)
		}
	}
}

func TestRequestKeyDistinguishes(t *testing.T) {
	base := func() (string, string, map[string]any, []Message) {
		return "openai", "m", map[string]any{"temperature": 0.0}, []Message{{"system", "ab"}, {"user", "c"}}
	}
	b, m, p, msgs := base()
	ref, err := RequestKey(b, m, p, msgs)
	if err != nil {
		t.Fatal(err)
	}
	variants := map[string]func() (string, string, map[string]any, []Message){
		"backend": func() (string, string, map[string]any, []Message) { _, m, p, x := base(); return "vllm", m, p, x },
		"model":   func() (string, string, map[string]any, []Message) { b, _, p, x := base(); return b, "m2", p, x },
		"params": func() (string, string, map[string]any, []Message) {
			b, m, _, x := base()
			return b, m, map[string]any{"temperature": 0.7}, x
		},
		"role": func() (string, string, map[string]any, []Message) {
			b, m, p, _ := base()
			return b, m, p, []Message{{"user", "ab"}, {"user", "c"}}
		},
		"resplit": func() (string, string, map[string]any, []Message) {
			b, m, p, _ := base()
			return b, m, p, []Message{{"system", "a"}, {"user", "bc"}}
		},
		"moved field": func() (string, string, map[string]any, []Message) { b, _, p, x := base(); return b + "m", "", p, x },
		"extra msg": func() (string, string, map[string]any, []Message) {
			b, m, p, x := base()
			return b, m, p, append(x, Message{})
		},
	}
	for name, v := range variants {
		b, m, p, msgs := v()
		got, err := RequestKey(b, m, p, msgs)
		if err != nil {
			t.Fatal(err)
		}
		if got == ref {
			t.Errorf("changing %s left the key unchanged", name)
		}
	}
	// Map order cannot matter: encoding/json sorts keys.
	k1, _ := RequestKey("x", "y", map[string]any{"a": 1, "b": 2, "c": map[string]any{"z": 1, "y": 2}}, nil)
	k2, _ := RequestKey("x", "y", map[string]any{"c": map[string]any{"y": 2, "z": 1}, "b": 2, "a": 1}, nil)
	if k1 != k2 {
		t.Error("the key depends on map iteration order")
	}
	if _, err := RequestKey("x", "y", map[string]any{"t": math.NaN()}, nil); err == nil {
		t.Error("NaN parameter: want an error, JSON cannot hold it")
	}
}

func ExampleRequestKey() {
	key, err := RequestKey("openai", "gpt-4o-mini", map[string]any{"temperature": 0, "max_tokens": 256},
		[]Message{{Role: "system", Content: "You are a judge."}, {Role: "user", Content: "Score it."}})
	if err != nil {
		panic(err)
	}
	fmt.Println(key)
	// Output: 5545623c0735b4cf06bbe60abd3277670df52eccb1498e4233d96e657671471f
}

// One Keyer keys a sequence of requests, longer and shorter, exactly as
// RequestKey keys each alone: its reused buffer never leaks one request
// into the next.
func TestKeyerReuse(t *testing.T) {
	params := map[string]any{"temperature": 0}
	k, err := NewKeyer("openai", "m", params)
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("source text ", 500)
	for i, msgs := range [][]Message{
		{{"system", "You are a judge."}, {"user", long}},
		{{"system", "short"}},
		nil,
		{{"system", "You are a judge. Weigh accuracy."}, {"user", long[:100]}},
		{{"system", "short"}},
	} {
		want, err := RequestKey("openai", "m", params, msgs)
		if err != nil {
			t.Fatal(err)
		}
		if got := k.Key(msgs); got != want {
			t.Errorf("request %d: Keyer %s, RequestKey %s", i, got, want)
		}
	}
	if _, err := NewKeyer("openai", "m", map[string]any{"f": func() {}}); err == nil {
		t.Error("params that JSON cannot encode gave no error")
	}
}

// Keying a request of a few kilobytes allocates only the key.
func BenchmarkKeyer(b *testing.B) {
	k, err := NewKeyer("offline", "", nil)
	if err != nil {
		b.Fatal(err)
	}
	msgs := []Message{{"system", "You are a judge. Weigh accuracy more heavily."}, {"user", strings.Repeat("source text ", 300)}}
	b.ReportAllocs()
	for b.Loop() {
		keySink = k.Key(msgs)
	}
}

var keySink string

// checkRequestKeys checks request_keys against study_requests: every row
// up to through has its entry, and every entry is a row's, at or below
// through. It returns through.
func checkRequestKeys(t *testing.T, s *Store) int64 {
	t.Helper()
	if !s.separateKeys() {
		t.Fatalf("schema version %d has no request_keys", s.version)
	}
	var through, missing, stray, above int64
	for _, c := range []struct {
		q   string
		dst *int64
	}{
		{`SELECT through FROM request_keys_state`, &through},
		{`SELECT count(*) FROM study_requests q
		  WHERE q.id <= (SELECT through FROM request_keys_state) AND NOT EXISTS (
		    SELECT 1 FROM request_keys x WHERE x.prefix = substr(CAST(q.key AS BLOB), 1, 8) AND x.run = q.run AND x.id = q.id)`, &missing},
		{`SELECT count(*) FROM request_keys x WHERE NOT EXISTS (
		    SELECT 1 FROM study_requests q WHERE q.id = x.id AND substr(CAST(q.key AS BLOB), 1, 8) = x.prefix AND q.run = x.run)`, &stray},
		{`SELECT count(*) FROM request_keys WHERE id > (SELECT through FROM request_keys_state)`, &above},
	} {
		if err := s.r.QueryRow(c.q).Scan(c.dst); err != nil {
			t.Fatal(err)
		}
	}
	if missing != 0 || stray != 0 || above != 0 {
		t.Errorf("request_keys (through %d): %d rows up to through without an entry, %d entries without their row, %d entries above through",
			through, missing, stray, above)
	}
	return through
}

// maxRequestID is the highest study_requests id (0: none).
func maxRequestID(t *testing.T, s *Store) int64 {
	t.Helper()
	var id int64
	if err := s.r.QueryRow(`SELECT coalesce(max(id), 0) FROM study_requests`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

// findsAll checks that st's three look-ups by key find every response of
// rs under its run label, with its score, and no response of gone.
func findsAll(t *testing.T, st *Store, rs, gone []Response) {
	t.Helper()
	ctx := context.Background()
	var want [][2]string
	var keys []string
	for _, r := range append(append([]Response(nil), rs...), gone...) {
		want = append(want, [2]string{r.Key, r.Run})
		keys = append(keys, r.Key)
	}
	cached, err := st.CachedAnswers(ctx, want)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := st.AnsweredRuns(ctx, keys)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		got, ok := cached[[2]string{r.Key, r.Run}]
		if !ok || got.Score != r.Score || got.Context != r.Context || got.Dataset != r.Dataset {
			t.Errorf("CachedAnswers %s/%s/%s run %s: %+v, %v", r.Dataset, r.Context, r.Probe, r.Run, got, ok)
		}
		if len(runs[r.Key]) == 0 {
			t.Errorf("AnsweredRuns %s/%s/%s: none", r.Dataset, r.Context, r.Probe)
		}
		reqs, err := st.RequestsByKey(ctx, r.Key, r.Run)
		if err != nil {
			t.Fatal(err)
		}
		if len(reqs) != 1 || reqs[0].Dataset != r.Dataset || reqs[0].Context != r.Context {
			t.Errorf("RequestsByKey %s/%s/%s: %+v", r.Dataset, r.Context, r.Probe, reqs)
		}
	}
	for _, r := range gone {
		if got, ok := cached[[2]string{r.Key, r.Run}]; ok {
			t.Errorf("CachedAnswers found a deleted request: %+v", got)
		}
		if len(runs[r.Key]) != 0 {
			t.Errorf("AnsweredRuns found a deleted request %s/%s/%s: %v", r.Dataset, r.Context, r.Probe, runs[r.Key])
		}
	}
}

// onDataset is rs moved to dataset ds, with keys of their own.
func onDataset(rs []Response, ds string) []Response {
	out := make([]Response, len(rs))
	for i, r := range rs {
		r.Dataset = ds
		r.Key = keyOf(r.Context+"@"+ds, r.Candidate, r.Probe)
		out[i] = r
	}
	return out
}

// TestRequestKeysTail: a run's writes leave the key index alone (its rows
// are the tail); look-ups find the tail's requests whether or not they
// index it; a read-only store scans the tail and writes nothing; a
// writable one indexes it, after which request_keys is exact.
func TestRequestKeysTail(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	seedJudgeAndDataset(t, s)
	path := s.Path()
	first := []Response{answer("c1", "x", "baseline", "0", 3), answer("c2", "a", "baseline", "0", 4), answer("c2", "b", "ATTR:+", "1", 2.5)}
	if err := s.PutResponses(ctx, first); err != nil {
		t.Fatal(err)
	}
	if through := checkRequestKeys(t, s); through != 0 {
		t.Fatalf("writing answers indexed their keys (through %d)", through)
	}
	ro, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	findsAll(t, ro, first, nil)
	if through := checkRequestKeys(t, s); through != 0 {
		t.Fatalf("a read-only look-up indexed the tail (through %d)", through)
	}
	findsAll(t, s, first, nil)
	if through, top := checkRequestKeys(t, s), maxRequestID(t, s); through != top {
		t.Fatalf("after a writable look-up through is %d, want the top id %d", through, top)
	}

	// A second run: its rows are a new tail; read-only look-ups find the
	// indexed rows and the tail's together.
	second := []Response{answer("c1", "x", "baseline", "1", 5), answer("c2", "b", "baseline", "0", 1)}
	if err := s.PutResponses(ctx, second); err != nil {
		t.Fatal(err)
	}
	both := append(append([]Response(nil), first...), second...)
	findsAll(t, ro, both, nil)
	findsAll(t, s, both, nil)
	if through, top := checkRequestKeys(t, s), maxRequestID(t, s); through != top {
		t.Fatalf("after the second look-up through is %d, want %d", through, top)
	}
}

// TestRequestKeysAfterDeletingTop: deleting the requests at the top of
// the table takes their entries and brings through down, so that the
// rows SQLite then gives the deleted ids are in the tail and found.
// Without the trigger's update, those rows would count as indexed and
// every look-up would miss them.
func TestRequestKeysAfterDeletingTop(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	seedJudgeAndDataset(t, s)
	path := s.Path()
	if err := s.PutDataset(ctx, tinyDataset("other"), false); err != nil {
		t.Fatal(err)
	}
	base := []Response{answer("c1", "x", "baseline", "0", 3), answer("c2", "a", "baseline", "0", 4), answer("c2", "b", "baseline", "0", 2)}
	if err := s.PutResponses(ctx, base); err != nil {
		t.Fatal(err)
	}
	top := onDataset(base, "other")
	if err := s.PutResponses(ctx, top); err != nil {
		t.Fatal(err)
	}
	findsAll(t, s, append(append([]Response(nil), base...), top...), nil) // indexes everything
	before := maxRequestID(t, s)

	if err := s.DeleteDataset(ctx, "other"); err != nil {
		t.Fatal(err)
	}
	if through, left := checkRequestKeys(t, s), maxRequestID(t, s); through != left {
		t.Fatalf("after deleting the top rows through is %d, want the highest id left, %d", through, left)
	}
	if err := s.PutDataset(ctx, tinyDataset("other"), false); err != nil {
		t.Fatal(err)
	}
	again := onDataset([]Response{answer("c1", "x", "ATTR:-", "0", 1), answer("c2", "a", "ATTR:-", "0", 5), answer("c2", "b", "ATTR:-", "0", 2)}, "other")
	if err := s.PutResponses(ctx, again); err != nil {
		t.Fatal(err)
	}
	if reused := maxRequestID(t, s); reused > before {
		t.Fatalf("the new rows did not reuse the deleted ids (top %d, before %d): the test shows nothing", reused, before)
	}
	ro, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	findsAll(t, ro, append(append([]Response(nil), base...), again...), top)
	findsAll(t, s, append(append([]Response(nil), base...), again...), top)
	if through, top := checkRequestKeys(t, s), maxRequestID(t, s); through != top {
		t.Fatalf("through %d, want %d", through, top)
	}
}

// BenchmarkIndexKeys indexes the tail a run of 200 contexts × 16 × 38
// (121,600 requests, the httprun row's) leaves: what the next look-up by
// key does once. Each iteration empties request_keys first, untimed.
func BenchmarkIndexKeys(b *testing.B) {
	ctx := context.Background()
	s := openTemp(b)
	fillStudy(b, s, 200)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		if _, err := s.w.ExecContext(ctx, `DELETE FROM request_keys; UPDATE request_keys_state SET through = 0`); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if err := s.indexKeys(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	var n int
	if err := s.r.QueryRow(`SELECT count(*) FROM request_keys`).Scan(&n); err != nil || n != 200*16*38 {
		b.Fatalf("request_keys holds %d entries (%v), want %d", n, err, 200*16*38)
	}
}

// TestRequestKeysManyKeys: look-ups of more keys than one statement
// takes find every one, read-only over the tail (tailChunk a statement)
// and indexed (cachedChunk a statement).
func TestRequestKeysManyKeys(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	seedJudgeAndDataset(t, s)
	path := s.Path()
	var rs []Response
	for i := range cachedChunk + 100 {
		r := answer("c1", "x", "baseline", strconv.Itoa(i), float64(i%10))
		r.Key = keyOf("c1#"+strconv.Itoa(i), "x", "baseline")
		rs = append(rs, r)
	}
	if err := s.PutResponses(ctx, rs); err != nil {
		t.Fatal(err)
	}
	ro, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	for _, c := range []struct {
		name      string
		st        *Store
		wantChunk int
	}{{"read-only, the tail", ro, tailChunk}, {"indexed", s, cachedChunk}} {
		if c.st == s {
			if err := s.indexKeys(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if chunk, err := c.st.keyChunk(ctx); err != nil || chunk != c.wantChunk {
			t.Errorf("%s: statements of %d keys (%v), want %d", c.name, chunk, err, c.wantChunk)
		}
		findsAll(t, c.st, rs, nil)
	}
}

// answeredList is a set's coordinates, sorted.
func answeredList(a AnsweredSet) []string {
	var out []string
	a.Each(func(c, k, probe, w, run string) { out = append(out, c+"/"+k+" "+probe+" "+w+" "+run) })
	slices.Sort(out)
	return out
}

// AnsweredIn is Answered keeping the given contexts: on a workspace, on
// a read-only copy, and on a read-only workspace of schema version 4
// (the old tables), with failures, answers of another bank and of
// unlisted contexts left out, and more contexts than one query binds.
func TestAnsweredInIsAnsweredOfTheContexts(t *testing.T) {
	ctx := context.Background()
	other := answer("c1", "x", "baseline", "0", 2)
	other.BankHash = "bank-hash-2"
	rs := []Response{
		answer("c2", "b", "baseline", "0", 3), answer("c2", "a", "baseline", "1", 4),
		failure("c2", "b", "fluency:+", "0", "timeout"),
		answer("c1", "x", "baseline", "0", 5), other,
	}
	v5 := filepath.Join(t.TempDir(), "v5.db")
	w, err := Open(ctx, v5)
	if err != nil {
		t.Fatal(err)
	}
	seedJudgeAndDataset(t, w)
	if err := w.PutResponses(ctx, rs); err != nil {
		t.Fatal(err)
	}
	w.Close()
	v4 := filepath.Join(t.TempDir(), "v4.db")
	old := openVersion4(t, v4)
	legacyPut(t, old, rs)
	old.Close()
	for _, tc := range []struct {
		name string
		path string
		open func(context.Context, string) (*Store, error)
	}{{"v5", v5, Open}, {"v5 read-only", v5, OpenReadOnly}, {"v4 read-only", v4, OpenReadOnly}} {
		s, err := tc.open(ctx, tc.path)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.compact(); got != (tc.path == v5) {
			t.Fatalf("%s: compact %v", tc.name, got)
		}
		all, err := s.Answered(ctx, "j", "tiny", testBank)
		if err != nil {
			t.Fatal(err)
		}
		many := []string{"c2"}
		for i := range 2 * answeredInChunk {
			many = append(many, "absent"+string(rune('a'+i%26))+string(rune('a'+i/26)))
		}
		for _, q := range []struct {
			contexts []string
			want     []string
		}{
			{[]string{"c2"}, []string{"c2/a baseline 0 1", "c2/b baseline 0 0"}},
			{[]string{"c1"}, []string{"c1/x baseline 0 0"}},
			{[]string{"c1", "c2"}, answeredList(all)},
			{[]string{"nope"}, nil},
			{many, []string{"c2/a baseline 0 1", "c2/b baseline 0 0"}},
		} {
			got, err := s.AnsweredIn(ctx, "j", "tiny", testBank, q.contexts)
			if err != nil {
				t.Fatal(err)
			}
			if l := answeredList(got); !slices.Equal(l, q.want) || got.Len() != len(q.want) {
				t.Errorf("%s, contexts %.40v: %v, want %v", tc.name, q.contexts, l, q.want)
			}
		}
		if len(answeredList(all)) != 3 {
			t.Errorf("%s: Answered holds %v", tc.name, answeredList(all))
		}
		s.Close()
	}
}

func engineFixture(t *testing.T) *Store {
	t.Helper()
	s := openTemp(t)
	ctx := context.Background()
	d := &model.Dataset{Name: "d", Format: "jsonl", Task: model.TaskGeneric, Metric: model.MetricSpearman,
		Contexts: []model.Context{{ID: "c1", Candidates: []model.Candidate{
			{ID: "a", Text: "x", Human: 2}, {ID: "b", Text: "y", Human: math.NaN()}}}}}
	if err := s.PutDataset(ctx, d, false); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutJudge(ctx, Judge{Name: "j", Backend: "openai", Model: "m"}); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestPutRequestsAndRequestsByKey(t *testing.T) {
	s := engineFixture(t)
	ctx := context.Background()
	reqs := []Request{
		{Key: "k1", Judge: "j", Dataset: "d", Context: "c1", Candidate: "a", BankHash: "h", Probe: "baseline", Wording: "0", Run: "0"},
		{Key: "k1", Judge: "j", Dataset: "d", Context: "c1", Candidate: "a", BankHash: "h", Probe: "baseline", Wording: "0", Run: "1"},
		{Key: "k2", Judge: "j", Dataset: "d", Context: "c1", Candidate: "b", BankHash: "h", Probe: "baseline", Wording: "0", Run: "0"},
	}
	if err := s.PutRequests(ctx, reqs); err != nil {
		t.Fatal(err)
	}
	// Recording them again is harmless.
	if err := s.PutRequests(ctx, reqs); err != nil {
		t.Fatal(err)
	}
	got, err := s.RequestsByKey(ctx, "k1", "1")
	if err != nil || len(got) != 1 || got[0] != reqs[1] {
		t.Fatalf("RequestsByKey(k1, 1) = %+v, %v; want [%+v]", got, err, reqs[1])
	}
	if got, _ := s.RequestsByKey(ctx, "k9", "0"); len(got) != 0 {
		t.Errorf("unknown key found %+v", got)
	}
	// Requests without answers are pending and have no progress answers.
	pend, _ := s.Pending(ctx, reqs)
	if len(pend) != 3 {
		t.Errorf("%d pending, want 3", len(pend))
	}
	// A different key at recorded coordinates is refused.
	bad := reqs[0]
	bad.Key = "other"
	if err := s.PutRequests(ctx, []Request{bad}); err == nil {
		t.Error("a changed key at recorded coordinates was accepted")
	}
	// A missing judge is named.
	bad = reqs[0]
	bad.Judge = "nobody"
	if err := s.PutRequests(ctx, []Request{bad}); !errors.Is(err, ErrNotFound) {
		t.Errorf("err = %v, want ErrNotFound", err)
	}
}

func TestCachedAnswersAndFitInput(t *testing.T) {
	s := engineFixture(t)
	ctx := context.Background()
	if _, _, err := s.FitInput(ctx, "d", "j", ""); !errors.Is(err, ErrNotFound) {
		t.Fatalf("FitInput with no answers: %v, want ErrNotFound", err)
	}
	r := Request{Key: "k1", Judge: "j", Dataset: "d", Context: "c1", Candidate: "a", BankHash: "h", Probe: "baseline", Wording: "0", Run: "0"}
	fail := r
	fail.Key, fail.Candidate = "k2", "b"
	if err := s.PutResponses(ctx, []Response{
		{Request: r, Raw: `{"score": 7}`, Score: 7},
		{Request: fail, ErrKind: "server", Err: "HTTP 500", Score: math.NaN()},
	}); err != nil {
		t.Fatal(err)
	}
	// Many pairs in one call, across several statements (more keys than
	// one chunk holds): only (k1, 0) has an answer; failures, other run
	// labels and unknown keys are not answers.
	want := [][2]string{{"k1", "0"}, {"k2", "0"}, {"k1", "1"}}
	for i := range cachedChunk + 10 {
		want = append(want, [2]string{fmt.Sprintf("nokey%d", i), "0"})
	}
	got, err := s.CachedAnswers(ctx, want)
	if a, ok := got[[2]string{"k1", "0"}]; err != nil || len(got) != 1 || !ok || a.Score != 7 || a.Candidate != "a" {
		t.Fatalf("CachedAnswers = %+v, %v; want only (k1, 0) with score 7: failures are not answers", got, err)
	}
	rows, labels, err := s.FitInput(ctx, "d", "j", "h")
	if err != nil {
		t.Fatal(err)
	}
	// One answered row; the failed cell is missing. Candidate b has no
	// human score, so only a is labelled.
	if len(rows) != 1 || rows[0].Score != 7 || rows[0].Candidate != "a" {
		t.Errorf("rows = %+v", rows)
	}
	if len(labels) != 1 || labels[0] != (model.Label{Context: "c1", Candidate: "a", Human: 2}) {
		t.Errorf("labels = %+v", labels)
	}
	if _, _, err := s.FitInput(ctx, "nope", "j", ""); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing dataset: %v", err)
	}
}

// FuzzRequestKey checks that moving bytes between adjacent fields always
// changes the key (the length prefixes make the encoding injective).
func FuzzRequestKey(f *testing.F) {
	f.Add("openai", "gpt", "sys", "user", 1)
	f.Add("", "", "", "", 0)
	f.Fuzz(func(t *testing.T, backend, model, sys, user string, cut int) {
		msgs := []Message{{"system", sys}, {"user", user}}
		k1, err := RequestKey(backend, model, nil, msgs)
		if err != nil {
			t.Fatal(err)
		}
		joined := sys + user
		if cut < 0 {
			cut = -cut
		}
		if len(joined) == 0 {
			return
		}
		cut %= len(joined) + 1
		if cut == len(sys) {
			return // the same split
		}
		k2, _ := RequestKey(backend, model, nil, []Message{{"system", joined[:cut]}, {"user", joined[cut:]}})
		if k1 == k2 {
			t.Fatalf("splits %q|%q and %q|%q share a key", sys, user, joined[:cut], joined[cut:])
		}
		k3, _ := RequestKey(backend+model, "", nil, msgs)
		if model != "" && k3 == k1 {
			t.Fatalf("moving model %q into backend kept the key", model)
		}
	})
}

// FuzzKeyValue: any request key is stored and read back exactly, a
// stored key matches only itself, and a blob is stored only for a
// RequestKey's spelling.
func FuzzKeyValue(f *testing.F) {
	for _, s := range []string{"", "k1", "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
		"0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef", "\x00\xff"} {
		f.Add(s, "k1")
	}
	f.Fuzz(func(t *testing.T, key, other string) {
		v := keyValue(key)
		if got := keyString(v); got != key {
			t.Fatalf("keyString(keyValue(%q)) = %q", key, got)
		}
		if !sameKey(v, key) || sameKey(v, other) != (key == other) {
			t.Fatalf("sameKey(keyValue(%q), %q) wrong", key, other)
		}
		if b, ok := v.([]byte); ok && (len(b) != 32 || len(key) != 64) {
			t.Fatalf("key %q stored as %d bytes", key, len(b))
		}
		if p := keyPrefix(v); len(p) > keyPrefixLen {
			t.Fatalf("prefix of %d bytes", len(p))
		}
	})
}
