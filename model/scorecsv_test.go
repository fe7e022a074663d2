package model

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestParseProbe(t *testing.T) {
	for _, tc := range []struct {
		name, kind, attr, sign string
		ok                     bool
	}{
		{"baseline", ProbeBaseline, "", "", true},
		{"coherence:+", ProbeAttr, "coherence", "+", true},
		{"first-person:-", ProbeAttr, "first-person", "-", true},
		// Names follow ValidName, the rule a bank's names obey.
		{"a:b:-", "", "", "", false},
		{"../../etc:+", "", "", "", false},
		{"Length:+", "", "", "", false},
		{"two words:+", "", "", "", false},
		{"ctx:a,b", "", "", "", false},
		{"neutral:" + strings.Repeat("a", 41), "", "", "", false},
		{"neutral:calm", ProbeNeutral, "calm", "", true},
		{"ctx:expert", ProbeContext, "expert", "", true},
		{"ctx:", "", "", "", false},
		{"neutral:", "", "", "", false},
		{":+", "", "", "", false},
		{"coherence", "", "", "", false},
		{"Baseline", "", "", "", false},
		{"", "", "", "", false},
		// Rubric ratings (docs/rubrics.md).
		{"rubric:saja-broad/accuracy", ProbeRubric, "saja-broad/accuracy", "", true},
		{"rubric:geval-summeval/coherence", ProbeRubric, "geval-summeval/coherence", "", true},
		{"rubric:saja-broad", "", "", "", false},
		{"rubric:saja-broad/", "", "", "", false},
		{"rubric:/accuracy", "", "", "", false},
		{"rubric:a/b/c", "", "", "", false},
		{"rubric:Saja/accuracy", "", "", "", false},
	} {
		kind, attr, sign, err := ParseProbe(tc.name)
		if (err == nil) != tc.ok || kind != tc.kind || attr != tc.attr || sign != tc.sign {
			t.Errorf("ParseProbe(%q) = %q, %q, %q, %v", tc.name, kind, attr, sign, err)
		}
	}
}

func TestReadScoresCSV(t *testing.T) {
	in := "\ufeffContext, candidate ,probe,score,run,wording,extra\n" +
		"d1,s1,baseline,4,r1,0,x\n" +
		"d1,s1,coherence:+,,r1,1,x\n" +
		"\"d,2\",s2,ctx:expert,-1.5e0,,,\n"
	rows, err := ReadScoresCSV(strings.NewReader(in), "S.csv")
	if err != nil {
		t.Fatal(err)
	}
	want := []ScoreRow{
		{Context: "d1", Candidate: "s1", Probe: "baseline", Score: 4, Run: "r1", Wording: "0", Line: 2},
		{Context: "d1", Candidate: "s1", Probe: "coherence:+", Missing: true, Run: "r1", Wording: "1", Line: 3},
		{Context: "d,2", Candidate: "s2", Probe: "ctx:expert", Score: -1.5, Line: 4},
	}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("rows\n%+v\nwant\n%+v", rows, want)
	}
}

func TestReadScoresCSVErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		substr   []string
	}{
		{"empty", "", []string{"S.csv", "empty"}},
		{"missing column", "context,candidate,score\n", []string{"S.csv:1", `"probe"`}},
		{"duplicate column", "context,candidate,probe,score,score\n", []string{"S.csv:1", `"score"`, "twice"}},
		{"non-numeric", "context,candidate,probe,score\nd,s,baseline,1\nd,s,baseline,good\n", []string{"S.csv:3", `"score"`, `"good"`}},
		{"NaN", "context,candidate,probe,score\nd,s,baseline,NaN\n", []string{"S.csv:2", `"score"`}},
		{"huge", "context,candidate,probe,score\nd,s,baseline,1\nd,s,baseline,1e308\n", []string{"S.csv:3", `"score"`, "1e308", "±1e+15"}},
		{"path probe", "context,candidate,probe,score\nd,s,../../etc:+,1\n", []string{"S.csv:2", `"probe"`, "../../etc", "not valid"}},
		{"bad probe", "context,candidate,probe,score\nd,s,coherence,1\n", []string{"S.csv:2", `"probe"`, "coherence"}},
		{"empty context", "context,candidate,probe,score\n,s,baseline,1\n", []string{"S.csv:2", `"context"`}},
		{"empty candidate", "context,candidate,probe,score\nd,,baseline,1\n", []string{"S.csv:2", `"candidate"`}},
		{"field count", "context,candidate,probe,score\nd,s,baseline,1\nd,s,baseline\n", []string{"S.csv:3", "number of fields"}},
		{"bad quote", "context,candidate,probe,score\nd,\"s,baseline,1\n", []string{"S.csv:2"}},
	} {
		_, err := ReadScoresCSV(strings.NewReader(tc.in), "S.csv")
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		for _, s := range tc.substr {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%s: error %q lacks %q", tc.name, err, s)
			}
		}
	}
}

func TestScoresRoundTrip(t *testing.T) {
	rows := []ScoreRow{
		{Context: "d1", Candidate: "s1", Probe: "baseline", Score: 0.1 + 0.2, Run: "r1", Wording: "0"},
		{Context: "d,1", Candidate: "s\"2", Probe: "len:-", Missing: true},
		{Context: "d1", Candidate: "s1", Probe: "neutral:calm", Score: -1e-300, Run: "", Wording: "w 2"},
		{Context: "d1", Candidate: "s1", Probe: "ctx:expert", Score: MaxMagnitude},
	}
	var buf bytes.Buffer
	if err := WriteScoresCSV(&buf, rows); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), "context,candidate,probe,score,run,wording\n") {
		t.Errorf("header: %q", buf.String())
	}
	back, err := ReadScoresCSV(&buf, "rt.csv")
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		rows[i].Line = i + 2
	}
	if !reflect.DeepEqual(back, rows) {
		t.Errorf("round trip\n%+v\nwant\n%+v", back, rows)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteScoresCSVError(t *testing.T) {
	if err := WriteScoresCSV(failWriter{}, []ScoreRow{{Context: "d", Candidate: "s", Probe: "baseline"}}); err == nil {
		t.Error("write error not reported")
	}
}

func TestReadLabelsCSV(t *testing.T) {
	labels, err := ReadLabelsCSV(strings.NewReader("candidate,context,human\ns1,d1,3.5\ns2,d1,-2\n"), "L.csv")
	if err != nil {
		t.Fatal(err)
	}
	want := []Label{{Context: "d1", Candidate: "s1", Human: 3.5, Line: 2}, {Context: "d1", Candidate: "s2", Human: -2, Line: 3}}
	if !reflect.DeepEqual(labels, want) {
		t.Errorf("labels %+v", labels)
	}
	for _, tc := range []struct {
		name, in string
		substr   []string
	}{
		{"missing column", "context,candidate\n", []string{"L.csv:1", `"human"`}},
		{"empty human", "context,candidate,human\nd,s,\n", []string{"L.csv:2", `"human"`}},
		{"non-numeric", "context,candidate,human\nd,s,x\n", []string{"L.csv:2", `"human"`, `"x"`}},
		{"duplicate", "context,candidate,human\nd,s,1\nd,t,1\nd,s,2\n", []string{"L.csv:4", "line 2", "duplicate", `"s"`}},
	} {
		_, err := ReadLabelsCSV(strings.NewReader(tc.in), "L.csv")
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		for _, s := range tc.substr {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%s: error %q lacks %q", tc.name, err, s)
			}
		}
	}
}

func FuzzReadScoresCSV(f *testing.F) {
	f.Add("context,candidate,probe,score\nd,s,baseline,1\nd,s,x:+,\n")
	f.Add("context,candidate,probe,score,run,wording\n\"d\n1\",s,ctx:a,2,r,w\n")
	f.Add("score,probe,candidate,context\n1e308,neutral:n,c,d\n")
	f.Add("context,candidate,probe,score\nd,s,x:control,1\nd,s,x:much-,2\nd,s,joint:x/y:+-,3\nd,s,joint:x/x:++,3\n")
	f.Fuzz(func(t *testing.T, in string) {
		rows, err := ReadScoresCSV(strings.NewReader(in), "f.csv")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.csv") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		// Whatever reads back must write and read again to the same rows.
		var buf bytes.Buffer
		if err := WriteScoresCSV(&buf, rows); err != nil {
			t.Fatal(err)
		}
		back, err := ReadScoresCSV(&buf, "g.csv")
		if err != nil {
			t.Fatalf("rewritten rows do not read: %v\n%q", err, buf.String())
		}
		if len(back) != len(rows) {
			t.Fatalf("%d rows, %d after a round trip", len(rows), len(back))
		}
		for i := range rows {
			a, b := rows[i], back[i]
			a.Line, b.Line = 0, 0
			if a != b {
				t.Fatalf("row %d: %+v became %+v", i, a, b)
			}
		}
	})
}

func FuzzReadLabelsCSV(f *testing.F) {
	f.Add("context,candidate,human\nd,s,1\nd,t,2\n")
	f.Add("context,candidate,human\nd,s,1\nd,s,2\n")
	f.Fuzz(func(t *testing.T, in string) {
		labels, err := ReadLabelsCSV(strings.NewReader(in), "f.csv")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.csv") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		seen := map[string]bool{}
		for _, l := range labels {
			k := fmt.Sprintf("%q/%q", l.Context, l.Candidate)
			if seen[k] || math.IsNaN(l.Human) || math.IsInf(l.Human, 0) {
				t.Fatalf("label %+v repeated or not finite", l)
			}
			seen[k] = true
		}
	})
}

func TestScoredLabels(t *testing.T) {
	labels := []Label{{Context: "c1", Candidate: "a"}, {Context: "c1", Candidate: "b"}, {Context: "c2", Candidate: "a"}}
	rows := []ScoreRow{{Context: "c1", Candidate: "b", Probe: "baseline"}, {Context: "c2", Candidate: "a", Probe: "x:+"}, {Context: "c9", Candidate: "z"}}
	kept, dropped := ScoredLabels(rows, labels)
	if dropped != 1 || len(kept) != 2 || kept[0] != labels[1] || kept[1] != labels[2] {
		t.Fatalf("kept %+v, dropped %d; want c1/b and c2/a kept, 1 dropped", kept, dropped)
	}
}

func TestRubricProbeRoundTrip(t *testing.T) {
	p := RubricProbe("saja-granular", "key-details")
	if p != "rubric:saja-granular/key-details" {
		t.Fatalf("RubricProbe = %q", p)
	}
	if r, c, ok := SplitRubricProbe(p); !ok || r != "saja-granular" || c != "key-details" {
		t.Errorf("SplitRubricProbe(%q) = %q, %q, %v", p, r, c, ok)
	}
	for _, bad := range []string{"baseline", "ctx:x", "rubric:x", "rubric:x/", "rubric:x/y/z"} {
		if _, _, ok := SplitRubricProbe(bad); ok {
			t.Errorf("SplitRubricProbe(%q) ok", bad)
		}
	}
}

// Cells holding carriage returns before line feeds (which a read of a
// quoted "\r\r\n" gives) read back as written: encoding/csv's reader drops
// one carriage return before each line feed (FuzzReadScoresCSV found it).
func TestCSVCellsWithCarriageReturnsRoundTrip(t *testing.T) {
	ids := []string{"a\r\nb", "a\r\r\nb", "c\r\n\nd", "x\ry", "e\r\r\r\n\nf"}
	var rows []ScoreRow
	var labels []Label
	for i, id := range ids {
		rows = append(rows, ScoreRow{Context: id, Candidate: ids[len(ids)-1-i], Probe: "baseline", Score: float64(i)})
		labels = append(labels, Label{Context: id, Candidate: "c", Human: float64(i)})
	}
	var buf bytes.Buffer
	if err := WriteScoresCSV(&buf, rows); err != nil {
		t.Fatal(err)
	}
	back, err := ReadScoresCSV(&buf, "s.csv")
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		if back[i].Context != rows[i].Context || back[i].Candidate != rows[i].Candidate {
			t.Errorf("score row %d: %q/%q read back as %q/%q", i, rows[i].Context, rows[i].Candidate, back[i].Context, back[i].Candidate)
		}
	}
	buf.Reset()
	if err := WriteLabelsCSV(&buf, labels); err != nil {
		t.Fatal(err)
	}
	lb, err := ReadLabelsCSV(&buf, "l.csv")
	if err != nil {
		t.Fatal(err)
	}
	for i := range labels {
		if lb[i].Context != labels[i].Context {
			t.Errorf("label %d: %q read back as %q", i, labels[i].Context, lb[i].Context)
		}
	}
}

func TestScoreRowScored(t *testing.T) {
	for _, tc := range []struct {
		r    ScoreRow
		want bool
	}{
		{ScoreRow{Score: 3}, true},
		{ScoreRow{Score: 0}, true},
		{ScoreRow{Missing: true}, false},
		{ScoreRow{Score: math.NaN()}, false},
	} {
		if got := tc.r.Scored(); got != tc.want {
			t.Errorf("%+v: Scored() = %v, want %v", tc.r, got, tc.want)
		}
	}
}
