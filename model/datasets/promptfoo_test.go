package datasets

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func pfFile(name string) string { return filepath.Join("testdata", "promptfoo", name) }

// scoreOf reads "Score: N" as the judge's score, as prism's parser would.
func scoreOf(reply string) (float64, bool) {
	s, ok := strings.CutPrefix(reply, "Score: ")
	if !ok {
		return 0, false
	}
	v, err := parseTestFloat(s)
	return v, err == nil
}

func TestPromptfooRealResults(t *testing.T) {
	opts := LogOptions{Context: "doc", Candidate: "system", Score: "namedScores.quality", Label: "human"}
	want := "d1/M1/1=0.1\nd1/M1/2=0.1\nd1/M2/1=0.9\nd1/M2/2=0.9\nd2/M1/1=0.1\nd2/M1/2=0.1\nd2/M2/1=0.1\nd2/M2/2=0.1\nd3/M1/1=0.3\nd3/M1/2=0.3\nd3/M2/1=0.9\nd3/M2/2=0.9\n"
	for _, f := range []string{"results.json", "export.json"} {
		l := loadLogs(t, LogPromptfoo, opts, pfFile(f))
		if got := rowText(l.Rows); got != want {
			t.Errorf("%s: rows\n%swant\n%s", f, got, want)
		}
		if l.Dataset.Name != strings.TrimSuffix(f, ".json") || len(l.Dataset.Contexts) != 3 {
			t.Errorf("%s: dataset %q with %d contexts", f, l.Dataset.Name, len(l.Dataset.Contexts))
		}
		k := l.Dataset.Contexts[0].Candidates[0]
		if k.Human != 4 || k.Text != "Score: 1" {
			t.Errorf("%s: d1/M1 label %v text %q, want 4 and the output", f, k.Human, k.Text)
		}
		if src := l.Dataset.Contexts[0].Source; !strings.Contains(src, "article: The library opens at nine on weekdays.") || strings.Contains(src, "doc:") {
			t.Errorf("%s: source %q", f, src)
		}
	}
	// The judge prompt's own reply, read by the reply parser.
	opts.Score, opts.ParseReply = "output", scoreOf
	l := loadLogs(t, LogPromptfoo, opts, pfFile("results.json"))
	if got := rowText(l.Rows); !strings.HasPrefix(got, "d1/M1/1=1\nd1/M1/2=1\nd1/M2/1=4\n") || len(l.Rows) != 12 {
		t.Errorf("--score output rows\n%s", got)
	}
	if l.Dataset.Contexts[0].Candidates[0].Text != "" {
		t.Error("--score output: the judge's reply was kept as the candidate's text")
	}
	// Defaults: the record's score, the provider as candidate, contexts
	// by a hash of prompt label and vars (one per test).
	l = loadLogs(t, LogPromptfoo, LogOptions{}, pfFile("results.json"))
	if len(l.Dataset.Contexts) != 6 || l.Dataset.Contexts[0].Candidates[0].ID != "openai:chat:judge-model" || !strings.HasPrefix(l.Dataset.Contexts[0].ID, "pf-") {
		t.Errorf("defaults: %d contexts, first %s/%s", len(l.Dataset.Contexts), l.Dataset.Contexts[0].ID, l.Dataset.Contexts[0].Candidates[0].ID)
	}
	if got := rowText(l.Rows); !strings.HasSuffix(strings.SplitN(got, "\n", 2)[0], "/openai:chat:judge-model/1=0.1") {
		t.Errorf("defaults rows\n%s", got)
	}
}

func TestPromptfooOlderShapes(t *testing.T) {
	l := loadLogs(t, LogPromptfoo, LogOptions{Context: "doc", Candidate: "system", Label: "human", Score: "namedScores.quality"}, pfFile("outputs_v2.json"))
	if got, want := rowText(l.Rows), "d1/M1/1=0.75\nd1/M2/1=0.25\nd2/M1/1=NA\n"; got != want {
		t.Errorf("outputs[] rows\n%swant\n%s", got, want)
	}
	if k := l.Dataset.Contexts[1].Candidates[0]; k.Human != 5 || k.Text != "A bridge was built." {
		t.Errorf("outputs[]: d2/M1 %v %q", k.Human, k.Text)
	}
	l = loadLogs(t, LogPromptfoo, LogOptions{}, pfFile("table_v2.json"))
	// Two prompts × two tests: four contexts (the prompt is part of the
	// hash); the errored output has no score.
	if len(l.Dataset.Contexts) != 4 || len(l.Rows) != 4 || !l.Rows[3].Missing || l.Rows[0].Score != 0.9 {
		t.Errorf("table rows %s", rowText(l.Rows))
	}
}

func TestPromptfooErrors(t *testing.T) {
	rec := `{"results": {"version": 3, "results": [{"provider": {"id": "p"}, "vars": {"doc": "d", "h": "x"}, "score": "high"}]}}`
	for _, tc := range []struct {
		data string
		opts LogOptions
		want string
	}{
		{`{"config": {}}`, LogOptions{}, "p.json:1:1: results: missing: not a promptfoo results file"},
		{`{"results": {"stats": {}}}`, LogOptions{}, "p.json:1:13: results: holds no results, outputs or table.body"},
		{`{"results": {"results": [1]}}`, LogOptions{}, "p.json:1:26: results.results.0: want object, got number"},
		{rec, LogOptions{}, "p.json:1:107: results.results.0.score: not a number (got string)"},
		{rec, LogOptions{Context: "q"}, "p.json:1:40: results.results.0.vars.q: missing: the test has no variable \"q\""},
		{rec, LogOptions{Context: "doc", Label: "h"}, `results.results.0.vars.h: label "x" is not a number`},
		{rec, LogOptions{Score: "bogus"}, `--score "bogus": want score, namedScores.NAME or output`},
		{`{"results": {"results": [{"vars": {}, "score": 1}]}}`, LogOptions{}, "results.results.0.provider: missing: name the candidate with --candidate VAR"},
		{`{"results": {"results": []}}`, LogOptions{}, "p.json: no scores in the log"},
	} {
		_, err := ReadScoreLog(LogPromptfoo, []byte(tc.data), "p.json", tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.60s %+v: error %v, want %q", tc.data, tc.opts, err, tc.want)
		}
	}
}

func parseTestFloat(s string) (float64, error) { return strconv.ParseFloat(strings.TrimSpace(s), 64) }
