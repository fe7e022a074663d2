package datasets

import (
	"testing"

	"github.com/prism-eval/prism/model"
)

const genericJSONLTiny = `{"context": "c1", "candidate": "a", "source": "The source.", "text": "Good.", "human": 4.5, "run": 1, "meta": {"k": [1, 2]}}
{"context_id": "c1", "system": "b", "output": "Bad.", "score": "2"}

{"group": 7, "model": 3, "prompt": "Other source.", "response": "Mid.", "scores": {"x": 1, "y": 4}, "task": "story"}
`

func TestReadGenericJSONL(t *testing.T) {
	d := readString(t, FormatJSONL, "g.jsonl", genericJSONLTiny)
	if d.Name != "g" || d.Format != FormatJSONL || d.Task != model.TaskStory || d.Metric != model.MetricSpearman {
		t.Errorf("name %q format %q task %q metric %q", d.Name, d.Format, d.Task, d.Metric)
	}
	if len(d.Contexts) != 2 || d.Contexts[1].ID != "7" {
		t.Fatalf("contexts %+v", d.Contexts)
	}
	a := candidate(t, d, "c1", "a")
	if a.Human != 4.5 || a.Text != "Good." || a.Extra["run"] != "1" || a.Extra["meta"] != `{"k":[1,2]}` {
		t.Errorf("a = %+v", a)
	}
	if b := candidate(t, d, "c1", "b"); b.Human != 2 || b.Text != "Bad." {
		t.Errorf("b = %+v", b)
	}
	if d.Contexts[0].Source != "The source." {
		t.Errorf("c1 source %q (given by its first row only)", d.Contexts[0].Source)
	}
	// No human score: the mean of the criteria, (1 + 4)/2.
	if x := candidate(t, d, "7", "3"); x.Human != 2.5 || x.Scores["y"] != 4 {
		t.Errorf("7/3 = %+v", x)
	}
	if !equalStrings(d.Criteria, []string{"x", "y"}) {
		t.Errorf("criteria %v", d.Criteria)
	}
}

func TestReadGenericJSONLErrors(t *testing.T) {
	checkErrors(t, FormatJSONL, "g.jsonl", []errorCase{
		{"two aliases", `{"context": "c", "group": "d", "candidate": "a", "text": "t", "human": 1}`, `g.jsonl:1:27: group: gives the context again (already given as "context")`},
		{"no candidate", `{"context": "c", "text": "t", "human": 1}`, "g.jsonl:1:1: candidate: missing"},
		{"no text", `{"context": "c", "candidate": "a", "human": 1}`, "g.jsonl:1:1: text: missing"},
		{"no human", `{"context": "c", "candidate": "a", "text": "t"}`, "g.jsonl:1:1: human: missing"},
		{"human word", `{"context": "c", "candidate": "a", "text": "t", "human": "high"}`, `g.jsonl:1:58: human: not a finite number: "high"`},
		{"human nan", `{"context": "c", "candidate": "a", "text": "t", "human": "NaN"}`, `g.jsonl:1:58: human: not a finite number: "NaN"`},
		{"dup candidate", "{\"context\": \"c\", \"candidate\": \"a\", \"text\": \"t\", \"human\": 1}\n{\"context\": \"c\", \"candidate\": \"a\", \"text\": \"u\", \"human\": 2}", `g.jsonl:2:31: candidate: candidate "a" appears twice in context "c"`},
		{"source conflict", "{\"context\": \"c\", \"candidate\": \"a\", \"source\": \"s\", \"text\": \"t\", \"human\": 1}\n{\"context\": \"c\", \"candidate\": \"b\", \"src\": \"r\", \"text\": \"u\", \"human\": 2}", `g.jsonl:2:43: src: differs from the source of context "c" given on line 1`},
		{"task", `{"context": "c", "candidate": "a", "text": "t", "human": 1, "task": "poetry"}`, `g.jsonl:1:69: task: unknown task "poetry"`},
		{"task conflict", "{\"context\": \"c\", \"candidate\": \"a\", \"text\": \"t\", \"human\": 1, \"task\": \"story\"}\n{\"context\": \"c\", \"candidate\": \"b\", \"text\": \"t\", \"human\": 1, \"task\": \"answer\"}", `g.jsonl:2:69: task: "answer" differs from "story" on line 1`},
		{"scores not object", `{"context": "c", "candidate": "a", "text": "t", "scores": [1]}`, "g.jsonl:1:59: scores: want object, got array"},
		{"syntax", "{\"context\": \"c\", \"candidate\": \"a\", \"text\": \"t\", \"human\": 1}\n{\"context\" \"c\"}", "g.jsonl:2:12: invalid JSON"},
		{"only blanks", "\n  \n", "g.jsonl: no rows"},
		{"beyond bound", `{"context": "c", "candidate": "a", "text": "t", "scores": {"a": 1.7e308, "b": 1.7e308}}`, "g.jsonl:1:65: scores.a: 1.7e+308 is not a finite number within ±1e+15"},
	})
}

const genericCSVTiny = "\ufeffContext,Candidate,Source,Text,Human,scores.fluency,note\n" +
	"c1,a,The source.,\"Good, and quoted.\",4,5,first\n" +
	"c1,b,,Bad.,,2,\n" +
	"c2,a,Two.,\"Line\nbreak\",1.5,,\n"

func TestReadGenericCSV(t *testing.T) {
	d := readString(t, FormatCSV, "g.csv", genericCSVTiny)
	if d.Format != FormatCSV || d.Task != model.TaskGeneric || len(d.Contexts) != 2 {
		t.Fatalf("format %q task %q contexts %d", d.Format, d.Task, len(d.Contexts))
	}
	a := candidate(t, d, "c1", "a")
	if a.Text != "Good, and quoted." || a.Human != 4 || a.Scores["fluency"] != 5 || a.Extra["note"] != "first" {
		t.Errorf("a = %+v", a)
	}
	// Empty human cell: the mean of the row's criteria (just fluency, 2).
	if b := candidate(t, d, "c1", "b"); b.Human != 2 || b.Extra != nil {
		t.Errorf("b = %+v", b)
	}
	if x := candidate(t, d, "c2", "a"); x.Text != "Line\nbreak" || x.Scores != nil {
		t.Errorf("c2/a = %+v", x)
	}
	if d.Contexts[0].Source != "The source." || !equalStrings(d.Criteria, []string{"fluency"}) {
		t.Errorf("source %q criteria %v", d.Contexts[0].Source, d.Criteria)
	}
}

func TestReadGenericCSVErrors(t *testing.T) {
	checkErrors(t, FormatCSV, "g.csv", []errorCase{
		{"no text column", "context,candidate,human\nc,a,1\n", "g.csv:1:1: text: missing column"},
		{"no human column", "context,candidate,text\nc,a,t\n", "g.csv:1:1: human: missing column"},
		{"two aliases", "context,candidate,text,score,human\n", `g.csv:1:30: human: gives the human again (already column "score")`},
		{"duplicate column", "context,candidate,text,human,Human\n", "g.csv:1:30: Human: column appears twice"},
		{"bad human", "context,candidate,text,human\nc,a,t,1\nc,b,t,lots\n", `g.csv:3:7: human: not a finite number: "lots"`},
		{"inf", "context,candidate,text,human\nc,a,t,1e400\n", `g.csv:2:7: human: not a finite number`},
		{"empty candidate", "context,candidate,text,human\nc, ,t,1\n", "g.csv:2:3: candidate: empty"},
		{"no human value", "context,candidate,text,human\nc,a,t,\n", "g.csv:2:7: human: missing"},
		{"dup candidate", "context,candidate,text,human\nc,a,t,1\nc,a,u,2\n", `g.csv:3:3: candidate: candidate "a" appears twice`},
		{"source conflict", "context,candidate,source,text,human\nc,a,s,t,1\nc,b,r,u,2\n", `g.csv:3:5: source: differs from the source of context "c" given on line 2`},
		{"field count", "context,candidate,text,human\nc,a,t\n", "g.csv:2:"},
		{"header only", "context,candidate,text,human\n", "g.csv: no rows after the header"},
		{"empty", "", "g.csv: empty file"},
		{"beyond bound", "context,candidate,text,scores.a,scores.b\nc,a,t,1e308,1.7e308\n", "g.csv:2:7: scores.a: 1e+308 is not a finite number within ±1e+15"},
		{"score column without name", "context,candidate,text,scores.\n", "g.csv:1:24: scores.: score column needs a criterion name"},
	})
}
