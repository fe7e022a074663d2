package datasets

import (
	"testing"

	"github.com/prism-eval/prism/model"
)

const topicalChatTiny = `[
  {"source": "hi \n do you like jazz ? \n\n", "system_id": "Original Ground Truth", "system_output": " i do , mostly bebop . ",
   "context": "bebop developed in the 1940s .", "scores": {"understandability": 1.0, "naturalness": 3.0, "overall": 4.6666666667}},
  {"source": "hi \n do you like jazz ? \n\n", "system_id": "Argmax Decoding", "system_output": "i like music .",
   "context": "bebop developed in the 1940s .", "scores": {"understandability": 1.0, "naturalness": 2.0, "overall": 2.3333333333}},
  {"source": "what is your favourite film ? \n\n", "system_id": "Argmax Decoding", "system_output": "films are good .",
   "context": "the film won three awards .", "scores": {"understandability": 0.6666666667, "naturalness": 1.0, "overall": 1.0}}
]`

func TestReadTopicalChat(t *testing.T) {
	d := readString(t, FormatTopicalChat, "tc.json", topicalChatTiny)
	if len(d.Contexts) != 2 || d.Contexts[0].ID != "tc001" || d.Contexts[1].ID != "tc002" {
		t.Fatalf("contexts %+v", d.Contexts)
	}
	c := d.Contexts[0]
	if c.Source != "hi \n do you like jazz ?" {
		t.Errorf("source %q (trailing blanks trimmed)", c.Source)
	}
	if c.Extra["knowledge"] != "bebop developed in the 1940s ." {
		t.Errorf("knowledge %q", c.Extra["knowledge"])
	}
	gt := c.Candidates[0]
	if gt.ID != "Original Ground Truth" || gt.Text != "i do , mostly bebop ." || gt.Human != 4.6666666667 {
		t.Errorf("candidate %+v", gt)
	}
	if !equalStrings(d.Criteria, []string{"understandability", "naturalness", "overall"}) {
		t.Errorf("criteria %v", d.Criteria)
	}
	if d.Task != model.TaskDialogue || d.Metric != model.MetricSpearman {
		t.Errorf("task %q metric %q", d.Task, d.Metric)
	}
}

func TestReadTopicalChatErrors(t *testing.T) {
	checkErrors(t, FormatTopicalChat, "tc.json", []errorCase{
		{"object", `{}`, "tc.json:1:1: want an array"},
		{"empty", `[]`, "tc.json:1:1: no rows"},
		{"no overall", "[\n{\"source\": \"s\", \"system_id\": \"a\", \"system_output\": \"o\", \"scores\": {\"naturalness\": 2}}]", "tc.json:2:67: 0.scores.overall: missing"},
		{"bad score", "[\n{\"source\": \"s\", \"system_id\": \"a\", \"system_output\": \"o\", \"scores\": {\"overall\": null, \"x\": true}}]", "tc.json:2:79: 0.scores.overall: not a number (got null)"},
		{"duplicate system", `[{"source": "s", "system_id": "a", "system_output": "o", "scores": {"overall": 1}}, {"source": "s", "system_id": "a", "system_output": "p", "scores": {"overall": 2}}]`, "tc.json:1:85: 1.system_id: system \"a\" appears twice for dialogue tc001"},
		{"empty id", `[{"source": "s", "system_id": " ", "system_output": "o", "scores": {"overall": 1}}]`, "tc.json:1:31: 0.system_id: empty"},
		{"missing output", `[{"source": "s", "system_id": "a", "scores": {"overall": 1}}]`, "tc.json:1:2: 0.system_output: missing"},
	})
}
