package openai

import (
	"context"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/model"
)

func rubricRequest(t *testing.T, src string, i int) banks.Request {
	t.Helper()
	r, err := banks.ParseRubric([]byte(src), "r.toml")
	if err != nil {
		t.Fatal(err)
	}
	reqs, err := r.Render(model.TaskGeneric, model.Context{ID: "c", Source: "Src."}, model.Candidate{ID: "x", Text: "Text."})
	if err != nil {
		t.Fatal(err)
	}
	return reqs[i]
}

const sajaRubric = `name = "s"
kind = "saja"
[[criteria]]
name = "a"
definition = "A."
scale = { min = 1, max = 5 }
[[criteria]]
name = "b"
definition = "B."
scale = { min = 0, max = 10 }
[tasks.generic]
system = "S."
candidate_label = "Text"
prompt = "Rate."
answer = "[format]"
`

const gevalRubric = `name = "g"
kind = "geval"
[[criteria]]
name = "coherence"
definition = "C."
scale = { min = 1, max = 5 }
steps = ["Read."]
[tasks.generic]
candidate_label = "Text"
prompt = "Rate."
answer = "- [criterion]:"
`

// TestSAJAThroughClient: the SAJA schema is sent as response_format and
// the reply's ratings come back one item per criterion, a rating off the
// scale as a missing cell.
func TestSAJAThroughClient(t *testing.T) {
	f := newFake(t, reply(`{"a": 4, "b": 11}`))
	c := newClient(t, f.URL, &recorder{}, nil)
	res, err := c.Score(context.Background(), rubricRequest(t, sajaRubric, 0))
	if judge.KindOf(err) != judge.KindOutOfRange {
		t.Fatalf("error %v, want the missing cell's out_of_range", err)
	}
	if len(res.Items) != 2 || !res.Items[0].HasScore || res.Items[0].Score != 4 || res.Items[0].ID != "a" ||
		res.Items[1].HasScore || res.Items[1].Err.Value != 11 {
		t.Errorf("items %+v", res.Items)
	}
	rf, _ := f.bodies[0]["response_format"].(map[string]any)
	js, _ := rf["json_schema"].(map[string]any)
	schema, _ := js["schema"].(map[string]any)
	if rf["type"] != "json_schema" || js["name"] != "ratings" || js["strict"] != true ||
		!reflect.DeepEqual(schema["required"], []any{"a", "b"}) {
		t.Errorf("response_format %v", rf)
	}

	f = newFake(t, reply(`{"a": 2, "b": 10}`), reply("I cannot rate this."))
	c = newClient(t, f.URL, &recorder{}, func(c *judge.Config) { c.Repeats = 2 })
	res, err = c.Score(context.Background(), rubricRequest(t, sajaRubric, 0))
	if err != nil || res.Items[0].Score != 2 || res.Items[1].Score != 10 || res.Samples[1].Err.Kind != judge.KindRefusal {
		t.Errorf("a refused repeat: %+v, %v", res, err)
	}
}

func TestGEvalThroughClient(t *testing.T) {
	f := newFake(t, reply("- Coherence: 4"), reply("5"), reply("It is fine."))
	c := newClient(t, f.URL, &recorder{}, func(c *judge.Config) { c.Repeats = 3 })
	res, err := c.Score(context.Background(), rubricRequest(t, gevalRubric, 0))
	if err != nil || res.Score != 4.5 || res.Samples[2].Err.Kind != judge.KindUnparseable {
		t.Fatalf("mean of 4 and 5 = %v, %v; samples %+v", res.Score, err, res.Samples)
	}
	if _, has := f.bodies[0]["response_format"]; has {
		t.Error("a G-Eval request sent a response_format")
	}

	toks := []lp{{tok: "- Coherence:", p: 1, top: map[string]float64{"- Coherence:": 1}},
		{tok: " 4", p: .5, top: map[string]float64{" 4": .5, " 3": .3, " 9": .2}}}
	f = newFake(t, replyFull("- Coherence: 4", toks, usage{10, 0, 2}, "", ""))
	c = newClient(t, f.URL, &recorder{}, func(c *judge.Config) { c.Mode = judge.ModeExpected })
	res, err = c.Score(context.Background(), rubricRequest(t, gevalRubric, 0))
	// (4·.5 + 3·.3)/.8 = 3.625; 9 is off the scale.
	if err != nil || math.Abs(res.Score-3.625) > 1e-9 || math.Abs(res.Samples[0].ProbMass-.8) > 1e-9 {
		t.Errorf("expected G-Eval = %v (mass %v), %v", res.Score, res.Samples[0].ProbMass, err)
	}

	toks = []lp{{tok: "9", p: .9, top: map[string]float64{"9": .9, "x": .1}}}
	f = newFake(t, replyFull("9", toks, usage{10, 0, 1}, "", ""))
	c = newClient(t, f.URL, &recorder{}, func(c *judge.Config) { c.Mode = judge.ModeExpected })
	if _, err := c.Score(context.Background(), rubricRequest(t, gevalRubric, 0)); judge.KindOf(err) != judge.KindNoMass {
		t.Errorf("no mass on valid ratings: %v", err)
	}
}

// RequestBody is what the client sends on its first try, repeat by repeat
// (seed + repeat), for SAJA under the auto format (the rubric's schema)
// and G-Eval at temperature 0 (patched in) with logprobs; ReadReply reads
// a reply as the client does.
func TestRequestBodyIsWhatTheClientSends(t *testing.T) {
	seed, zero := 7, 0.0
	for _, tc := range []struct {
		name string
		req  banks.Request
		mod  func(*judge.Config)
	}{
		{"saja", rubricRequest(t, sajaRubric, 0), func(c *judge.Config) { c.ResponseFormat = judge.FormatAuto; c.Repeats = 2; c.Seed = &seed }},
		{"geval", rubricRequest(t, gevalRubric, 0), func(c *judge.Config) {
			c.Mode, c.Temperature, c.Seed, c.Repeats = judge.ModeExpected, &zero, &seed, 2
		}},
	} {
		f := newFake(t, reply("4"))
		c := newClient(t, f.URL, &recorder{}, tc.mod)
		_, _ = c.Score(context.Background(), tc.req)
		if len(f.bodies) != 2 {
			t.Fatalf("%s: %d calls", tc.name, len(f.bodies))
		}
		for r := range 2 {
			b, err := RequestBody(c.Config(), tc.req, r)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(b), fakeKey) {
				t.Errorf("%s: the body holds the API key", tc.name)
			}
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil || !reflect.DeepEqual(m, f.bodies[r]) {
				t.Errorf("%s repeat %d: RequestBody %s\nthe client sent %v", tc.name, r, b, f.bodies[r])
			}
		}
	}
	if _, err := RequestBody(judge.Defaults(), banks.Request{}, 0); err == nil {
		t.Error("a request without messages has a body")
	}

	s := ReadReply(judge.Config{}, rubricRequest(t, sajaRubric, 0), Reply{Content: `{"a": 4, "b": 11}`})
	if len(s.Items) != 2 || s.Items[0].Score != 4 || s.Items[1].HasScore || s.Items[1].Err.Kind != judge.KindOutOfRange || s.Err != nil {
		t.Errorf("SAJA reply read %+v", s)
	}
	s = ReadReply(judge.Config{}, rubricRequest(t, sajaRubric, 0), Reply{Refusal: "no", FinishReason: "stop"})
	if s.Err == nil || s.Err.Kind != judge.KindRefusal {
		t.Errorf("refusal read %+v", s)
	}
}
