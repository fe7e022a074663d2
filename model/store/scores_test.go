package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"unsafe"

	"github.com/prism-eval/prism/model"
)

func TestScoresView(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	seedJudgeAndDataset(t, s)
	noScore := answer("c2", "a", "baseline", "0", 0)
	noScore.Score = math.NaN() // answered, but no score could be parsed
	other := answer("c2", "b", "baseline", "0", 1)
	other.BankHash = "other-bank"
	other.Key = keyOf("c2", "b", "other")
	err := s.PutResponses(ctx, []Response{
		answer("c1", "x", "baseline", "0", 3),
		answer("c2", "b", "len:+", "1", 4),
		answer("c2", "b", "len:+", "0", 5),
		noScore,
		failure("c2", "b", "baseline", "0", "timeout"),
		other,
	})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := s.Scores(ctx, "tiny", "j", testBank)
	if err != nil {
		t.Fatal(err)
	}
	// Dataset order: c2 (b then a) before c1; within b, probe then run.
	want := []model.ScoreRow{
		{Context: "c2", Candidate: "b", Probe: "len:+", Score: 5, Run: "0", Wording: "0"},
		{Context: "c2", Candidate: "b", Probe: "len:+", Score: 4, Run: "1", Wording: "0"},
		{Context: "c2", Candidate: "a", Probe: "baseline", Missing: true, Run: "0", Wording: "0"},
		{Context: "c1", Candidate: "x", Probe: "baseline", Score: 3, Run: "0", Wording: "0"},
	}
	if len(rows) != len(want) {
		t.Fatalf("Scores = %+v, want %+v", rows, want)
	}
	for i := range want {
		g, w := rows[i], want[i]
		if g.Context != w.Context || g.Candidate != w.Candidate || g.Probe != w.Probe || g.Run != w.Run ||
			g.Wording != w.Wording || g.Missing != w.Missing || (!w.Missing && g.Score != w.Score) {
			t.Errorf("row %d = %+v, want %+v", i, g, w)
		}
	}
	all, err := s.Scores(ctx, "tiny", "j", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != len(want)+1 {
		t.Errorf("Scores over all banks = %d rows, want %d", len(all), len(want)+1)
	}
}

// tidy is a score file in the format of prism fit, with every feature:
// runs, wordings, a missing score and scores needing full precision.
const tidy = `context,candidate,probe,score,run,wording
c2,b,baseline,4,0,
c2,b,baseline,3.5,1,
c2,a,baseline,,0,
c2,a,len:+,0.30000000000000004,0,0
c2,a,len:+,2,0,1
c1,x,neutral:calm,1e-07,0,
c1,x,ctx:expert,5,0,
`

func TestImportExportRoundTrip(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	seedJudgeAndDataset(t, s)
	in, err := model.ReadScoresCSV(strings.NewReader(tidy), "tidy.csv")
	if err != nil {
		t.Fatal(err)
	}
	n, err := s.ImportScores(ctx, "tiny", "elsewhere", in)
	if err != nil {
		t.Fatal(err)
	}
	if n != len(in) {
		t.Fatalf("imported %d rows, want %d", n, len(in))
	}
	j, err := s.Judge(ctx, "elsewhere")
	if err != nil || j.Backend != ImportBackend {
		t.Fatalf("import judge = %+v, %v", j, err)
	}
	out, err := s.Scores(ctx, "tiny", "elsewhere", "")
	if err != nil {
		t.Fatal(err)
	}
	// Imported scores have no bank: a bank filter keeps them all, so that
	// a study's bank version reads an imported judge too.
	if under, err := s.Scores(ctx, "tiny", "elsewhere", "0123456789abcdef"); err != nil || !reflect.DeepEqual(fmtRows(under), fmtRows(out)) {
		t.Fatalf("imported scores under a bank filter: %d rows (%v), want %d", len(under), err, len(out))
	}
	var buf bytes.Buffer
	if err := model.WriteScoresCSV(&buf, out); err != nil {
		t.Fatal(err)
	}
	// Same lines modulo order: the export header equals the input's.
	gotLines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	wantLines := strings.Split(strings.TrimSpace(tidy), "\n")
	if gotLines[0] != wantLines[0] {
		t.Fatalf("header %q, want %q", gotLines[0], wantLines[0])
	}
	sort.Strings(gotLines[1:])
	sort.Strings(wantLines[1:])
	if strings.Join(gotLines, "\n") != strings.Join(wantLines, "\n") {
		t.Fatalf("export differs from import:\n%s\nwant\n%s", strings.Join(gotLines, "\n"), strings.Join(wantLines, "\n"))
	}
	// And re-reading the export gives the same rows.
	back, err := model.ReadScoresCSV(&buf, "export.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(in) {
		t.Fatalf("re-read %d rows, want %d", len(back), len(in))
	}
}

func TestImportScoresRejects(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	seedJudgeAndDataset(t, s)
	ok := model.ScoreRow{Context: "c1", Candidate: "x", Probe: "baseline", Score: 3, Line: 2}
	for _, tc := range []struct {
		name, dataset, judge string
		rows                 []model.ScoreRow
		want                 string
	}{
		{"unknown candidate", "tiny", "imp", []model.ScoreRow{ok, {Context: "c1", Candidate: "zz", Probe: "baseline", Score: 1, Line: 3}},
			`line 3: context "c1" candidate "zz" is not in dataset "tiny"`},
		{"duplicate", "tiny", "imp", []model.ScoreRow{ok, {Context: "c1", Candidate: "x", Probe: "baseline", Score: 4, Line: 3}},
			"line 3: repeats the coordinates of line 2"},
		{"no probe", "tiny", "imp", []model.ScoreRow{{Context: "c1", Candidate: "x", Score: 1, Line: 5}}, "line 5: probe is empty"},
		{"nan score", "tiny", "imp", []model.ScoreRow{{Context: "c1", Candidate: "x", Probe: "baseline", Score: math.NaN(), Line: 4}}, "line 4: score"},
		{"unknown dataset", "nope", "imp", []model.ScoreRow{ok}, `dataset "nope"`},
		{"real judge", "tiny", "j", []model.ScoreRow{ok}, `backend "openai"`},
	} {
		_, err := s.ImportScores(ctx, tc.dataset, tc.judge, tc.rows)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to contain %q", tc.name, err, tc.want)
		}
	}
	// Nothing partial: the rejected imports stored no scores, no judge.
	if rows, _ := s.Scores(ctx, "tiny", "imp", ""); len(rows) != 0 {
		t.Errorf("rejected imports stored %d rows", len(rows))
	}
	if _, err := s.Judge(ctx, "imp"); !errors.Is(err, ErrNotFound) {
		t.Errorf("rejected imports created the judge (err = %v)", err)
	}
	// A second import of the same scores under the same judge is refused.
	if _, err := s.ImportScores(ctx, "tiny", "imp", []model.ScoreRow{ok}); err != nil {
		t.Fatal(err)
	}
	again := []model.ScoreRow{{Context: "c2", Candidate: "a", Probe: "baseline", Score: 1, Line: 2}, ok}
	again[1].Line = 3
	if _, err := s.ImportScores(ctx, "tiny", "imp", again); err == nil || !strings.Contains(err.Error(), "line 3: judge \"imp\" already has a score") {
		t.Errorf("re-import: err = %v, want 'already has a score'", err)
	}
}

// fmtRows prints rows for comparing (NaN scores compare unequal).
func fmtRows(rows []model.ScoreRow) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = fmt.Sprintf("%+v", r)
	}
	return out
}

// scoresBySQL is the reference order of Scores: one SQL sort over the
// joined text columns, positions first (NULL, an id the dataset lacks,
// sorts first), then the ids, probe, wording, run and bank as bytes.
func scoresBySQL(t *testing.T, s *Store, dataset, judge, bankHash string) []model.ScoreRow {
	t.Helper()
	rows, err := s.r.Query(`
		SELECT r.context, r.candidate, r.probe, r.wording, r.run, p.score
		FROM requests r
		JOIN judges j ON j.id = r.judge_id
		JOIN datasets d ON d.id = r.dataset_id
		JOIN responses p ON p.request_id = r.id AND p.ok = 1
		LEFT JOIN contexts c ON c.dataset_id = d.id AND c.ext_id = r.context
		LEFT JOIN candidates k ON k.context_id = c.id AND k.ext_id = r.candidate
		WHERE d.name = ? AND j.name = ? AND (? = '' OR r.bank_hash = ? OR j.backend = ?)
		ORDER BY c.pos, k.pos, r.context, r.candidate, r.probe, r.wording, r.run, r.bank_hash`,
		dataset, judge, bankHash, bankHash, ImportBackend)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []model.ScoreRow
	for rows.Next() {
		var r model.ScoreRow
		var score *float64
		if err := rows.Scan(&r.Context, &r.Candidate, &r.Probe, &r.Wording, &r.Run, &score); err != nil {
			t.Fatal(err)
		}
		if score == nil {
			r.Score, r.Missing = math.NaN(), true
		} else {
			r.Score = *score
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// Scores orders rows as one SQL sort over the joined columns would, over
// every kind of row: ids the dataset lacks (whole contexts and single
// candidates), several banks, wordings and runs, missing scores, and ids
// holding the NUL and \x01 bytes that separate Scores' packed columns.
func TestScoresOrderMatchesSQLSort(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct{ withNUL, sparse bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
		withNUL := c.withNUL
		if c.sparse { // answers found by the join, not the range scan
			defer func(f func(int) int64) { denseSpan = f }(denseSpan)
			denseSpan = func(int) int64 { return 0 }
		}
		s := openTemp(t)
		seedJudgeAndDataset(t, s)
		ids := [][2]string{{"c2", "b"}, {"c2", "a"}, {"c1", "x"}, {"c2", "zz"}, {"c0", "a"}, {"c3", "b"}, {"c1", "a"}}
		if withNUL {
			ids = append(ids, [2]string{"c\x00", "a"}, [2]string{"c2", "b\x00c"})
		}
		var rs []Response
		i := 0
		for _, id := range ids {
			for _, probe := range []string{"len:+", "baseline", "len:-", "ctx:x"} {
				wordings := []string{"1", "0"}
				if withNUL {
					wordings = append(wordings, "w\x01")
				}
				for _, bank := range []string{testBank, "another", "b"} {
					for _, w := range wordings {
						for _, run := range []string{"0", "r1"} {
							i++
							if i%3 == 0 {
								continue
							}
							r := answer(id[0], id[1], probe, run, float64(i)/7)
							r.BankHash, r.Wording = bank, w
							r.Key = keyOf(id[0]+bank+w+run, id[1], probe)
							if i%11 == 0 {
								r.Score = math.NaN()
							}
							rs = append(rs, r)
						}
					}
				}
			}
		}
		if err := s.PutResponses(ctx, rs); err != nil {
			t.Fatal(err)
		}
		for _, bank := range []string{"", testBank, "another"} {
			got, err := s.Scores(ctx, "tiny", "j", bank)
			if err != nil {
				t.Fatal(err)
			}
			want := scoresBySQL(t, s, "tiny", "j", bank)
			if len(got) != len(want) || len(got) == 0 {
				t.Fatalf("NUL %v bank %q: %d rows, want %d", withNUL, bank, len(got), len(want))
			}
			for i := range want {
				g, w := got[i], want[i]
				if g.Context != w.Context || g.Candidate != w.Candidate || g.Probe != w.Probe || g.Run != w.Run ||
					g.Wording != w.Wording || g.Missing != w.Missing || math.Float64bits(g.Score) != math.Float64bits(w.Score) && !w.Missing {
					t.Fatalf("NUL %v bank %q: row %d = %+v, want %+v", withNUL, bank, i, g, w)
				}
			}
		}
	}
}

// StudyHashes lists the same hashes as a DISTINCT over the study's
// requests, and none for an unknown judge or dataset.
func TestStudyHashes(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	seedJudgeAndDataset(t, s)
	if _, err := s.PutJudge(ctx, Judge{Name: "k", Backend: "openai", Model: "gpt-y"}); err != nil {
		t.Fatal(err)
	}
	var rs []Response
	for i, bank := range []string{"b2", "b1", "", "b3", "b1", "a"} {
		r := answer("c1", "x", "baseline", fmt.Sprint(i), 1)
		r.BankHash = bank
		rs = append(rs, r)
	}
	other := answer("c1", "x", "baseline", "0", 1)
	other.Judge, other.BankHash = "k", "zz"
	if err := s.PutResponses(ctx, append(rs, other)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		dataset, judge string
		want           []string
	}{
		{"tiny", "j", []string{"", "a", "b1", "b2", "b3"}},
		{"tiny", "k", []string{"zz"}},
		{"tiny", "nobody", nil},
		{"absent", "j", nil},
	} {
		got, err := s.StudyHashes(ctx, tc.dataset, tc.judge)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("StudyHashes(%q, %q) = %q, %v; want %q", tc.dataset, tc.judge, got, err, tc.want)
		}
	}
}

// Labels equals the stored dataset's Labels, without its texts.
func TestLabelsEqualDatasetLabels(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	seedJudgeAndDataset(t, s)
	d, err := s.Dataset(ctx, "tiny")
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Labels(ctx, "tiny")
	if err != nil || !reflect.DeepEqual(got, d.Labels()) || len(got) == 0 {
		t.Errorf("Labels = %+v, %v; want %+v", got, err, d.Labels())
	}
	if _, err := s.Labels(ctx, "absent"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Labels of an absent dataset: %v, want ErrNotFound", err)
	}
}

// TestScoreRecIs16Bytes: a workspace fit holds one scoreRec per answer
// (ScanRowBytes); at 608,000 answers every 8 bytes more are 5 MB.
func TestScoreRecIs16Bytes(t *testing.T) {
	if n := unsafe.Sizeof(scoreRec{}); n != 16 {
		t.Fatalf("scoreRec is %d bytes, want 16", n)
	}
	var r scoreRec
	r.cond = uint32(recCond)
	r.answer(2.5, true)
	if r.condition() != recCond || !r.answered() || !r.missing() || r.score != 2.5 {
		t.Fatalf("record %+v: condition %d answered %v missing %v", r, r.condition(), r.answered(), r.missing())
	}
	r = scoreRec{cond: 7}
	if r.answered() || r.missing() || r.condition() != 7 {
		t.Fatalf("unanswered record %+v reads answered %v missing %v condition %d", r, r.answered(), r.missing(), r.condition())
	}
	r.answer(-1, false)
	if !r.answered() || r.missing() || r.condition() != 7 || r.score != -1 {
		t.Fatalf("answered record %+v", r)
	}
	// Answered again, as a read would overwrite it: the last answer holds.
	r.answer(0, true)
	r.answer(3, false)
	if !r.answered() || r.missing() || r.condition() != 7 || r.score != 3 {
		t.Fatalf("record answered twice %+v: missing %v", r, r.missing())
	}
}

// scanned collects what ScanScores yields.
func scanned(t *testing.T, s *Store, dataset, judge, bank string) []model.ScoreRow {
	t.Helper()
	var out []model.ScoreRow
	if err := s.ScanScores(context.Background(), dataset, judge, bank, func(r *model.ScoreRow) error {
		out = append(out, *r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestScanScoresEqualsScores: ScanScores yields exactly Scores' rows, in
// its order and bit for bit, whether they come from the request rows
// (no snapshot, a deleted one, a stale one) or from the snapshot; and an
// error from fn ends the scan.
func TestScanScoresEqualsScores(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	seedJudgeAndDataset(t, s)
	putJudgeJRows(t, s)
	check := func(stage string) {
		t.Helper()
		for _, bank := range []string{testBank, ""} {
			want := scoreText(scoresBySQL(t, s, "tiny", "j", bank))
			got := scoreText(scanned(t, s, "tiny", "j", bank))
			if want == "" || got != want {
				t.Fatalf("%s, bank %q: ScanScores gives\n%s\nScores (SQL) gives\n%s", stage, bank, got, want)
			}
			if rows := scoreText(s.mustScores(t, "tiny", "j", bank).([]model.ScoreRow)); rows != got {
				t.Fatalf("%s, bank %q: ScanScores gives\n%s\nScores gives\n%s", stage, bank, got, rows)
			}
		}
	}
	check("rows, no snapshot")
	if n, _ := snapshotRows(t, s); n != 0 {
		t.Fatalf("%d snapshots before any release", n)
	}
	if err := s.SnapshotScores(ctx, "tiny", "j", testBank); err != nil {
		t.Fatal(err)
	}
	if n, _ := snapshotRows(t, s); n != 1 {
		t.Fatalf("%d snapshots, want 1", n)
	}
	check("snapshot")
	// The snapshot is what both read: a current one that says otherwise
	// wins in both.
	fake := newSnapshotWriter(nil)
	if err := errors.Join(fake.add(&[6]string{"c1", "x", "ATTR:+", "7", "0", "42"}), fake.close()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.Exec(`UPDATE score_snapshots SET body = ?`, fake.parts[0]); err != nil {
		t.Fatal(err)
	}
	if got, want := scoreText(scanned(t, s, "tiny", "j", testBank)), scoreText(s.mustScores(t, "tiny", "j", testBank).([]model.ScoreRow)); got != want || got != "c1/x ATTR:+ 7 0 false 4045000000000000\n" {
		t.Fatalf("from a faked snapshot: ScanScores gives\n%s\nScores gives\n%s", got, want)
	}
	if _, err := s.w.Exec(`DELETE FROM score_snapshots`); err != nil {
		t.Fatal(err)
	}
	check("snapshot deleted")
	if err := s.SnapshotScores(ctx, "tiny", "j", testBank); err != nil {
		t.Fatal(err)
	}
	if err := s.PutResponses(ctx, []Response{answer("c1", "x", "baseline", "8", 2.5)}); err != nil {
		t.Fatal(err)
	}
	if n, _ := snapshotRows(t, s); n != 1 {
		t.Fatalf("%d snapshots, want the stale one", n)
	}
	check("stale snapshot")

	stop := errors.New("stop")
	calls := 0
	err := s.ScanScores(ctx, "tiny", "j", "", func(*model.ScoreRow) error {
		calls++
		return stop
	})
	if !errors.Is(err, stop) || calls != 1 {
		t.Fatalf("fn's error: ScanScores returned %v after %d calls, want stop after 1", err, calls)
	}
	if err := s.ScanScores(ctx, "tiny", "nobody", "", func(*model.ScoreRow) error { return stop }); err != nil {
		t.Fatalf("an unknown judge: %v, want no rows", err)
	}
}

// scanAll collects what scan gives, in order, copying the strings.
func scanAll(t *testing.T, s *Store, st studyRef, parallel bool) [][6]string {
	t.Helper()
	var out [][6]string
	err := s.tx(context.Background(), func(tx *sql.Tx) error {
		add := func(row *[6]string) error {
			var c [6]string
			for i, v := range row {
				c[i] = string([]byte(v))
			}
			out = append(out, c)
			return nil
		}
		if parallel {
			return scanStudyRowsParallel(context.Background(), s.r, tx, st, add)
		}
		return scanStudyRows(context.Background(), tx, st, add)
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestParallelScanReadsAsSerial: a scan whose chunks are read on two
// connections at once gives the rows one connection reading them in turn
// gives, in the same order, over chunks of answers, failures, missing
// scores and a wording holding the \x01 that separates the packed
// columns (its chunk is read again row by row); the snapshot written from
// it reads back as the rows themselves.
func TestParallelScanReadsAsSerial(t *testing.T) {
	defer func(from, n int64) { scanParallelFrom, parallelChunk = from, n }(scanParallelFrom, parallelChunk)
	scanParallelFrom = 4096
	ctx := context.Background()
	s := openTemp(t)
	seedJudgeAndDataset(t, s)
	var rs []Response
	for i := range 5000 {
		c, k := fmt.Sprintf("c%d", i/100), fmt.Sprintf("k%d", i/10%10)
		probe, run := fmt.Sprintf("p%d", i%10), "0"
		var r Response
		switch {
		case i%17 == 0:
			r = failure(c, k, probe, run, "network")
		default:
			r = answer(c, k, probe, run, float64(i%9)/7)
			if i%23 == 0 {
				r.Score = math.NaN()
			}
		}
		r.Key = keyOf(c, k, probe)
		if i == 3333 {
			r.Wording = "w\x01"
		}
		rs = append(rs, r)
	}
	if err := s.PutResponses(ctx, rs); err != nil {
		t.Fatal(err)
	}
	studies, err := studiesOf(ctx, s.r, "j", "tiny", testBank, false)
	if err != nil || len(studies) != 1 {
		t.Fatalf("studies %v, err %v", studies, err)
	}
	st := studies[0]
	if span := st.hi - st.lo + 1; span < scanParallelFrom {
		t.Fatalf("the study spans %d ids, too few to be read in parallel", span)
	}
	want := scanAll(t, s, st, false)
	if n := 5000 - (5000+16)/17; len(want) != n {
		t.Fatalf("serial scan: %d rows, want %d answers", len(want), n)
	}
	for _, chunk := range []int64{compactChunk, 1000, 333} {
		parallelChunk = chunk
		if got := scanAll(t, s, st, true); !slices.Equal(got, want) {
			t.Errorf("chunks of %d: the parallel scan gives %d rows, not the serial scan's %d in its order", chunk, len(got), len(want))
		}
	}

	parallelChunk = 333
	if err := s.SnapshotScores(ctx, "tiny", "j", testBank); err != nil {
		t.Fatal(err)
	}
	if n, _ := snapshotRows(t, s); n == 0 {
		t.Fatal("no snapshot written")
	}
	if got, want := scoreText(s.mustScores(t, "tiny", "j", testBank).([]model.ScoreRow)), scoreText(scoresBySQL(t, s, "tiny", "j", testBank)); got != want {
		t.Error("Scores from the snapshot differ from the joined tables")
	}
}

// TestRecListIsASlice: a recList holds what a plain slice would through
// adds across pages, reserves and truncations at and between page
// boundaries, and keeps every page but the last full.
func TestRecListIsASlice(t *testing.T) {
	var l recList
	var want []scoreRec
	check := func(step string) {
		t.Helper()
		if l.len() != len(want) {
			t.Fatalf("%s: len %d, want %d", step, l.len(), len(want))
		}
		for i := range want {
			if *l.at(i) != want[i] {
				t.Fatalf("%s: record %d = %+v, want %+v", step, i, *l.at(i), want[i])
			}
		}
		for p := 0; p+1 < len(l.pages); p++ {
			if len(l.pages[p]) != recPage {
				t.Fatalf("%s: page %d of %d holds %d records, want %d", step, p, len(l.pages), len(l.pages[p]), recPage)
			}
		}
		if len(want) > 0 && (len(l.pages) == 0 || len(l.pages[len(l.pages)-1]) == 0) {
			t.Fatalf("%s: %d records but an empty last page", step, len(want))
		}
	}
	add := func(n int) {
		for range n {
			r := scoreRec{pair: int32(len(want)), cond: uint32(len(want) % 7), score: float64(len(want)) / 4}
			if got := l.add(r); *got != r {
				t.Fatalf("add returned %+v, want %+v", *got, r)
			}
			want = append(want, r)
		}
	}
	check("empty")
	add(1)
	check("one")
	l.reserve(recPage + 10)
	add(recPage + 10)
	check("past the first page")
	l.truncate(recPage)
	want = want[:recPage]
	check("truncated to a page boundary")
	add(2*recPage + 3)
	check("grown again")
	l.truncate(recPage + 1)
	want = want[:recPage+1]
	check("truncated inside the second page")
	l.truncate(l.len() + 10) // past the end: no change
	check("truncated past the end")
	l.truncate(5000)
	want = want[:5000]
	check("truncated inside the first page")
	l.truncate(0)
	want = want[:0]
	check("truncated to nothing")
	add(3)
	check("after nothing")
	// Adding returns a pointer into the list: marking it marks the record.
	l.add(scoreRec{cond: 3}).answer(1.5, true)
	if r := l.at(3); !r.answered() || !r.missing() || r.condition() != 3 || r.score != 1.5 {
		t.Fatalf("record added and answered reads %+v", *r)
	}
}
