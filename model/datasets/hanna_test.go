package datasets

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/prism-eval/prism/model"
)

func TestReadHANNAFixture(t *testing.T) {
	d, err := Load(FormatHANNA, filepath.Join("testdata", "hanna_stories_annotations.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if d.Task != model.TaskStory || d.Metric != model.MetricSpearman || !equalStrings(d.Criteria, HANNACriteria) {
		t.Errorf("task %q metric %q criteria %v", d.Task, d.Metric, d.Criteria)
	}
	// Two prompts (stories 0, 96, 192 and 1, 97, 193), three models each.
	if len(d.Contexts) != 2 || d.Contexts[0].ID != "p0" || d.Contexts[1].ID != "p1" {
		t.Fatalf("contexts %v", d.Contexts)
	}
	c := d.Contexts[0]
	var ids []string
	for _, x := range c.Candidates {
		ids = append(ids, x.ID)
	}
	if !equalStrings(ids, []string{"Human", "BertGeneration", "GPT-2"}) {
		t.Errorf("candidates %v", ids)
	}
	if !strings.HasPrefix(c.Source, "Write a story about a lighthouse keeper") || !strings.HasPrefix(c.Extra["human_story"], "The envelope was yellow") {
		t.Errorf("source %q human story %q", c.Source, c.Extra["human_story"])
	}
	// Hand calculation from the fixture rows:
	// story 96: rater sums 14, 15, 12 → 41/18; relevance (3+4+2)/3 = 3,
	// surprise (2+1+2)/3 = 5/3.
	// story 0: 26 + 24 + 24 = 74 → 74/18.  story 193: 22 + 23 + 18 = 63 → 3.5.
	bert := candidate(t, d, "p0", "BertGeneration")
	if !near(bert.Human, 41.0/18) || !near(bert.Scores["relevance"], 3) || !near(bert.Scores["surprise"], 5.0/3) {
		t.Errorf("story 96: human %v scores %v", bert.Human, bert.Scores)
	}
	if bert.Extra["story_id"] != "96" || bert.Extra["raters"] != "3" {
		t.Errorf("story 96 extra %v", bert.Extra)
	}
	if got := candidate(t, d, "p0", "Human").Human; !near(got, 74.0/18) {
		t.Errorf("story 0 human %v", got)
	}
	if got := candidate(t, d, "p1", "GPT-2").Human; !near(got, 3.5) {
		t.Errorf("story 193 human %v", got)
	}
	// The story with quoted newlines survived the CSV reader.
	if got := candidate(t, d, "p0", "GPT-2").Text; !strings.Contains(got, "twice.\nIt asked") {
		t.Errorf("GPT-2 story %q", got)
	}
}

const hannaHeader = "Story ID,Prompt,Human,Story,Model,Relevance,Coherence,Empathy,Surprise,Engagement,Complexity,Worker ID\n"

func TestReadHANNAIndexColumn(t *testing.T) {
	// pandas writes an unnamed index column first; it is ignored.
	src := ",Story ID,Prompt,Human,Story,Model,Relevance,Coherence,Empathy,Surprise,Engagement,Complexity\n" +
		"0,5,P,H,S,GPT,1,2,3,4,5,5\n1,5,P,H,S,GPT,5,4,3,2,1,1\n"
	d := readString(t, FormatHANNA, "h.csv", src)
	x := d.Contexts[0].Candidates[0]
	// (20 + 16) / 12 = 3.
	if d.Contexts[0].ID != "p5" || x.ID != "GPT" || !near(x.Human, 3) || !near(x.Scores["relevance"], 3) {
		t.Errorf("context %s candidate %+v", d.Contexts[0].ID, x)
	}
}

func TestReadHANNAErrors(t *testing.T) {
	checkErrors(t, FormatHANNA, "h.csv", []errorCase{
		{"no header", "", "h.csv: empty file"},
		{"missing column", "Story ID,Prompt,Story,Model\n", "h.csv:1:1: relevance: missing column"},
		{"bad score", hannaHeader + "0,P,H,S,M,1,2,3,4,5,6,w\n1,P,H,S2,N,1,2,x,4,5,6,w\n", `h.csv:3:16: Empathy: not a finite number: "x"`},
		{"empty score", hannaHeader + "0,P,H,S,M,1,,3,4,5,6,w\n", `h.csv:2:13: Coherence: not a finite number: ""`},
		{"bad id", hannaHeader + "zero,P,H,S,M,1,2,3,4,5,6,w\n", `h.csv:2:1: Story ID: want a non-negative integer, got "zero"`},
		{"field count", hannaHeader + "0,P,H,S,M,1,2,3,4,5,6\n", "h.csv:2:"},
		{"story differs", hannaHeader + "0,P,H,S,M,1,2,3,4,5,6,w\n0,P,H,S!,M,1,2,3,4,5,6,v\n", "h.csv:3:7: Story: differs from the first row of story 0 (on line 2)"},
		{"same model twice", hannaHeader + "0,P,H,S,M,1,2,3,4,5,6,w\n96,P,H,T,M,1,2,3,4,5,6,w\n", `h.csv:3:10: Model: story 96 is a second story by "M" for the prompt of story 0 (on line 2)`},
		{"no rows", hannaHeader, "h.csv: no rows after the header"},
		{"bad quote", hannaHeader + "0,\"P,H\n", "h.csv:"},
		{"beyond bound", hannaHeader + "0,P,H,S,M,1e308,1e308,1,1,1,1,w\n", "h.csv:2:11: Relevance: 1e+308 is not a finite number within ±1e+15"},
	})
}
