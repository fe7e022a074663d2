package engine

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
)

func TestCustomIDRoundTrip(t *testing.T) {
	for _, tc := range []struct{ key, run, id string }{{"abc", "0", "abc"}, {"abc", "3", "abc:3"}} {
		if got := CustomID(tc.key, tc.run); got != tc.id {
			t.Errorf("CustomID(%q, %q) = %q, want %q", tc.key, tc.run, got, tc.id)
		}
		if k, r := ParseCustomID(tc.id); k != tc.key || r != tc.run {
			t.Errorf("ParseCustomID(%q) = %q, %q", tc.id, k, r)
		}
	}
}

// answerBatch plays a batch engine: it reads an export and writes one
// output line per request in the given shape, scoring request i with
// 1 + i%10, except that every 7th fails.
func answerBatch(t *testing.T, export []byte, shape string) ([]byte, map[string]float64) {
	t.Helper()
	var out bytes.Buffer
	want := map[string]float64{}
	sc := bufio.NewScanner(bytes.NewReader(export))
	sc.Buffer(nil, 1<<20)
	for i := 0; sc.Scan(); i++ {
		var in BatchInput
		if err := json.Unmarshal(sc.Bytes(), &in); err != nil {
			t.Fatal(err)
		}
		if in.Method != "POST" || in.URL != BatchURL {
			t.Fatalf("line %d: %s %s", i+1, in.Method, in.URL)
		}
		score := 1 + i%10
		content, _ := json.Marshal(fmt.Sprintf(`{"score": %d}`, score))
		body := fmt.Sprintf(`{"id":"c%d","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],"usage":{"prompt_tokens":50,"completion_tokens":5,"total_tokens":55}}`, i, content)
		fail := i%7 == 6
		switch {
		case shape == "openai" && fail:
			fmt.Fprintf(&out, `{"id":"b%d","custom_id":%q,"response":null,"error":{"code":"server_error","message":"failed"}}`+"\n", i, in.CustomID)
		case shape == "openai":
			fmt.Fprintf(&out, `{"id":"b%d","custom_id":%q,"response":{"status_code":200,"request_id":"r%d","body":%s},"error":null}`+"\n", i, in.CustomID, i, body)
		case shape == "vllm" && fail:
			fmt.Fprintf(&out, `{"id":"b%d","custom_id":%q,"response":{"status_code":400,"request_id":"r%d","body":null},"error":"Prompt too long"}`+"\n", i, in.CustomID, i)
		case shape == "vllm":
			fmt.Fprintf(&out, `{"id":"b%d","custom_id":%q,"response":{"request_id":"r%d","body":%s},"error":null}`+"\n", i, in.CustomID, i, body)
		case shape == "flat" && !fail:
			fmt.Fprintf(&out, `{"id":"b%d","custom_id":%q,"response":%s}`+"\n", i, in.CustomID, body)
		case shape == "flat":
			fmt.Fprintf(&out, `{"id":"b%d","custom_id":%q,"response":{"status_code":500,"body":{"error":{"message":"x"}}}}`+"\n", i, in.CustomID)
		}
		if !fail {
			want[in.CustomID] = float64(score)
		}
	}
	return out.Bytes(), want
}

func TestBatchExportImport(t *testing.T) {
	for _, shape := range []string{"openai", "vllm", "flat"} {
		t.Run(shape, func(t *testing.T) {
			d := tinyDataset("tiny")
			st, _ := openStore(t, d)
			ctx := context.Background()
			s := newChatServer(t)
			spec := serverSpec(t, s, d, 2, Limits{})
			p, err := NewPlan(ctx, st, spec)
			if err != nil {
				t.Fatal(err)
			}
			var exp bytes.Buffer
			n, err := ExportBatch(ctx, st, p, &exp)
			if err != nil || n != len(p.Items) {
				t.Fatalf("exported %d of %d: %v", n, len(p.Items), err)
			}
			// The export plans the study as prism run would.
			if ss, err := st.StudiesOf(ctx, d.Name, spec.JudgeName); err != nil || len(ss) != 1 || ss[0].PlannedRuns != 2 || ss[0].Planned != len(p.Items) {
				t.Fatalf("the exported study's plan: %+v, %v", ss, err)
			}
			// Each line's body is what the client would send for that run.
			first := strings.SplitN(exp.String(), "\n", 2)[0]
			var in BatchInput
			_ = json.Unmarshal([]byte(first), &in)
			wantBody, _ := ChatBody(spec.Config, mustRequest(t, p, 0), 0)
			if !bytes.Equal(in.Body, wantBody) || in.CustomID != p.Row(&p.Items[0]).Key {
				t.Errorf("first line %s, want body %s", first, wantBody)
			}
			out, want := answerBatch(t, exp.Bytes(), shape)
			stats, err := ImportBatch(ctx, st, bytes.NewReader(out), "out.jsonl")
			if err != nil {
				t.Fatal(err)
			}
			if stats.Lines != n || stats.Answered != len(want) || stats.Failed != n-len(want) {
				t.Fatalf("stats %+v, want %d lines, %d answered", stats, n, len(want))
			}
			rows, err := st.Scores(ctx, d.Name, "srv", p.BankHash)
			if err != nil || len(rows) != len(want) {
				t.Fatalf("%d rows stored (%v), want %d", len(rows), err, len(want))
			}
			byCoord := map[string]string{}
			for _, it := range p.Items {
				byCoord[p.Row(&it).Context+p.Row(&it).Candidate+p.Row(&it).Probe+p.Row(&it).Wording+p.Row(&it).Run] = CustomID(p.Row(&it).Key, p.Row(&it).Run)
			}
			for _, r := range rows {
				id := byCoord[r.Context+r.Candidate+r.Probe+r.Wording+r.Run]
				if r.Score != want[id] {
					t.Fatalf("%s: stored %v, want %v", id, r.Score, want[id])
				}
			}
			// The failures are pending again; a new export has only them.
			again, _ := NewPlan(ctx, st, spec)
			if again.Estimate.Send != n-len(want) {
				t.Errorf("after import %d pending, want %d", again.Estimate.Send, n-len(want))
			}
		})
	}
}

func TestImportBatchErrorsNameTheLine(t *testing.T) {
	d := tinyDataset("tiny")
	st, _ := openStore(t, d)
	ctx := context.Background()
	good := `{"custom_id":"nope","response":{"status_code":200,"body":{"choices":[{"message":{"content":"{\"score\": 3}"}}]}}}`
	tests := []struct{ in, want string }{
		{"\n{not json}\n", "out.jsonl:2:1: line: not a JSON object"},
		{`{"response":{}}`, "out.jsonl:1:1: custom_id: missing"},
		{`{"custom_id":"a"}`, "out.jsonl:1:1: response: missing"},
		{`{"custom_id":"a","response":{"status_code":200,"body":{"choices":[]}}}`, "out.jsonl:1:1: response.body.choices: no message content"},
		{good, `out.jsonl:1:1: custom_id: "nope" matches no exported request`},
	}
	for _, tc := range tests {
		_, err := ImportBatch(ctx, st, strings.NewReader(tc.in), "out.jsonl")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err %v, want %q", tc.in, err, tc.want)
		}
	}
}

func TestTaskScaleMatchesRenderedScale(t *testing.T) {
	d := tinyDataset("tiny")
	st, _ := openStore(t, d)
	ctx := context.Background()
	s := newChatServer(t)
	p, err := NewPlan(ctx, st, serverSpec(t, s, d, 1, Limits{}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ExportBatch(ctx, st, p, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	sc, err := taskScale(ctx, st, d.Name, p.BankHash)
	if err != nil {
		t.Fatal(err)
	}
	if want := mustRequest(t, p, 0).Scale; sc.Min != want.Min || sc.Max != want.Max {
		t.Errorf("stored snapshot scale %+v, rendered %+v", sc, want)
	}
}

func FuzzParseBatchOutput(f *testing.F) {
	f.Add([]byte(`{"id":"b","custom_id":"k","response":{"status_code":200,"request_id":"r","body":{"choices":[{"message":{"content":"{\"score\": 7}"}}],"usage":{"prompt_tokens":3}}},"error":null}`))
	f.Add([]byte(`{"id":"b","custom_id":"k:1","response":{"status_code":400,"request_id":"r","body":null},"error":"too long"}`))
	f.Add([]byte(`{"custom_id":"k","response":{"choices":[{"message":{"content":"7"},"logprobs":{"content":[{"token":"7","logprob":-0.1,"top_logprobs":[{"token":"8","logprob":-2}]}]}}]}}`))
	f.Add([]byte("\n\n{}\n"))
	scale := func(string) (banks.Scale, judge.Mode, error) {
		return banks.Scale{Min: 1, Max: 10}, judge.ModeInteger, nil
	}
	expected := func(string) (banks.Scale, judge.Mode, error) {
		return banks.Scale{Min: 1, Max: 10}, judge.ModeExpected, nil
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, sc := range []func(string) (banks.Scale, judge.Mode, error){scale, expected} {
			outs, err := ParseBatchOutput(bytes.NewReader(b), "f.jsonl", sc)
			if err != nil {
				if !strings.HasPrefix(err.Error(), "f.jsonl:") {
					t.Fatalf("error does not name the file and line: %v", err)
				}
				continue
			}
			for _, o := range outs {
				if o.CustomID == "" {
					t.Fatal("outcome without a custom_id")
				}
				if o.ErrKind == "" && (o.Score < 1 || o.Score > 10 || o.Score != o.Score) {
					t.Fatalf("answer with score %v outside 1–10", o.Score)
				}
			}
		}
	})
}

// A batch output with one custom_id on two lines is refused, naming the
// id and both lines, and nothing of the file is stored (issue 42, item 4).
func TestImportBatchRefusesRepeatedCustomID(t *testing.T) {
	d := tinyDataset("tiny")
	st, _ := openStore(t, d)
	ctx := context.Background()
	spec := serverSpec(t, newChatServer(t), d, 1, Limits{})
	p, err := NewPlan(ctx, st, spec)
	if err != nil {
		t.Fatal(err)
	}
	var exp bytes.Buffer
	if _, err := ExportBatch(ctx, st, p, &exp); err != nil {
		t.Fatal(err)
	}
	out, _ := answerBatch(t, exp.Bytes(), "openai")
	lines := strings.SplitAfter(string(out), "\n")
	var in BatchInput
	_ = json.Unmarshal([]byte(lines[1]), &in)
	// Line 2 again as line 4, with another score.
	again := strings.Replace(lines[1], `{\"score\": 2}`, `{\"score\": 9}`, 1)
	if again == lines[1] {
		t.Fatalf("line 2 has no score 2: %s", lines[1])
	}
	file := lines[0] + lines[1] + lines[2] + again + strings.Join(lines[3:], "")
	_, err = ImportBatch(ctx, st, strings.NewReader(file), "out.jsonl")
	want := fmt.Sprintf(`out.jsonl:4:1: custom_id: %q appears twice (first on line 2)`, in.CustomID)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err %v, want %q", err, want)
	}
	rows, err := st.Scores(ctx, d.Name, "srv", p.BankHash)
	if err != nil || len(rows) != 0 {
		t.Fatalf("%d rows stored (%v), want none", len(rows), err)
	}
}

func TestAnthropicParams(t *testing.T) {
	body := `{"model":"claude-x","messages":[{"role":"system","content":"S1"},{"role":"system","content":"S2"},{"role":"user","content":"U"}],"temperature":1,"top_p":1,"seed":7,"response_format":{"type":"json_object"}}`
	got, err := AnthropicParams([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"model":"claude-x","max_tokens":1024,"system":"S1\n\nS2","messages":[{"role":"user","content":"U"}],"temperature":1}`
	if string(got) != want {
		t.Errorf("params\n%s\nwant\n%s", got, want)
	}
	for _, c := range []struct{ body, want string }{
		{`{"model":"m","messages":[{"role":"user","content":"U"}],"logprobs":true,"top_logprobs":5}`, "logprobs"},
		{`{"model":"m","messages":[{"role":"system","content":"S"}]}`, "user message first"},
		{`{"model":"m","messages":[{"role":"tool","content":"U"}]}`, `role "tool"`},
	} {
		if _, err := AnthropicParams([]byte(c.body)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.body, err, c.want)
		}
	}
}

func TestAnthropicIDIsValidAndStable(t *testing.T) {
	id := strings.Repeat("ab", 32) + ":3"
	a := AnthropicID(id)
	if a != AnthropicID(id) || !strings.HasPrefix(a, "p") || len(a) != 41 || strings.Trim(a[1:], "0123456789abcdef") != "" {
		t.Errorf("AnthropicID = %q", a)
	}
	if AnthropicID(id+"x") == a {
		t.Error("two ids share a short id")
	}
}

func TestRayRowExpectedMode(t *testing.T) {
	body := `{"model":"m","messages":[{"role":"user","content":"U"}],"max_tokens":5,"temperature":0,"seed":3,"logprobs":true,"top_logprobs":20,"response_format":{"type":"json_schema","json_schema":{"name":"score","schema":{"type":"object"}}}}`
	row, err := RayRowOf("k:1", []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	sp, _ := json.Marshal(row.SamplingParams)
	if string(sp) != `{"logprobs":20,"max_tokens":5,"seed":3,"temperature":0}` || string(row.JSONSchema) != `{"type":"object"}` || row.ID != "k:1" {
		t.Errorf("row %+v, sampling %s", row, sp)
	}
}

func TestParseShardAndMembership(t *testing.T) {
	for _, bad := range []string{"0/3", "4/3", "1/0", "a/b", "1", "01/3"} {
		if _, _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q) accepted", bad)
		}
	}
	i, n, err := ParseShard("2/3")
	if err != nil || i != 1 || n != 3 {
		t.Fatalf("ParseShard(2/3) = %d, %d, %v", i, n, err)
	}
	// Each key is in exactly one shard.
	for k := range 200 {
		key := strings.Repeat("0", 60) + string(rune('a'+k%26)) + string(rune('a'+k/26))
		in := 0
		for s := range 3 {
			if (ExportOptions{Shard: s, Shards: 3}).inShard(key, "0") {
				in++
			}
		}
		if in != 1 {
			t.Fatalf("%s in %d shards", key, in)
		}
	}
}

func TestParseBatchOutputRefusesAnthropicWithoutWorkspace(t *testing.T) {
	line := `{"custom_id":"pabc","result":{"type":"expired"}}`
	_, err := ParseBatchOutput(strings.NewReader(line), "r.jsonl", nil)
	if err == nil || !strings.Contains(err.Error(), "r.jsonl:1:1: custom_id") {
		t.Fatalf("err %v", err)
	}
}

// A batch output line is read as strictly as a live reply (issue 42): an
// ambiguous envelope or impossible logprobs are counted failures.
func TestParseBatchOutputStrict(t *testing.T) {
	line := func(body string) string {
		return `{"id":"b","custom_id":"k","response":{"status_code":200,"request_id":"r","body":` + body + `},"error":null}` + "\n"
	}
	msg := func(content string) string { return `{"message":{"role":"assistant",` + content + `}}` }
	three, nine := `"content":"{\"score\": 3}"`, `"content":"{\"score\": 9}"`
	usage := `"usage":{"prompt_tokens":60,"completion_tokens":5}`
	lps := func(lp, top string) string {
		return `{"message":{"role":"assistant","content":"6"},"logprobs":{"content":[{"token":"6","logprob":` + lp +
			`,"top_logprobs":[` + top + `]}]}}`
	}
	cases := []struct {
		name, body string
		mode       judge.Mode
		kind       judge.ErrorKind
		score      float64
	}{
		{"plain", `{"choices":[` + msg(three) + `],` + usage + `}`, judge.ModeInteger, "", 3},
		{"two content keys", `{"choices":[` + msg(three+","+nine) + `],` + usage + `}`, judge.ModeInteger, judge.KindAmbiguous, 0},
		{"two choices", `{"choices":[` + msg(three) + `,` + msg(nine) + `],` + usage + `}`, judge.ModeInteger, judge.KindAmbiguous, 0},
		{"6 at +2e-7", `{"choices":[` + lps("2e-7", `{"token":"6","logprob":2e-7},{"token":"5","logprob":-15.2}`) + `]}`, judge.ModeExpected, "", 6},
		{"Σp 1.81", `{"choices":[` + lps("-0.1", `{"token":"6","logprob":-0.1},{"token":"7","logprob":-0.1}`) + `]}`, judge.ModeExpected, judge.KindBadMass, 0},
	}
	for _, c := range cases {
		sc := func(string) (banks.Scale, judge.Mode, error) { return banks.Scale{Min: 1, Max: 10}, c.mode, nil }
		outs, err := ParseBatchOutput(bytes.NewReader([]byte(line(c.body))), "out.jsonl", sc)
		if err != nil || len(outs) != 1 {
			t.Fatalf("%s: %d outcomes, %v", c.name, len(outs), err)
		}
		o := outs[0]
		if judge.ErrorKind(o.ErrKind) != c.kind {
			t.Errorf("%s: kind %q (%s), score %v; want %q", c.name, o.ErrKind, o.Err, o.Score, c.kind)
			continue
		}
		if c.kind == "" && math.Abs(o.Score-c.score) > 1e-5 {
			t.Errorf("%s: score %v, want %v", c.name, o.Score, c.score)
		}
		if c.kind == judge.KindAmbiguous && !strings.Contains(o.Err, "ambiguous") {
			t.Errorf("%s: reason %q", c.name, o.Err)
		}
	}
}

// A batch line's implausible token counts are replaced and noted, never
// stored as they are: a negative count would make a negative cost, and
// int64's largest would overflow the sums.
func TestBatchOutputUsageChecked(t *testing.T) {
	body := func(usage string) string {
		return `{"id":"b","custom_id":"k","response":{"status_code":200,"request_id":"r","body":{"choices":[{"message":{"role":"assistant","content":"{\"score\": 3}"}}],"usage":` +
			usage + `}},"error":null}` + "\n"
	}
	sc := func(string) (banks.Scale, judge.Mode, error) {
		return banks.Scale{Min: 1, Max: 10}, judge.ModeInteger, nil
	}
	for _, c := range []struct {
		usage         string
		prompt, compl int
		noted         bool
	}{
		{`{"prompt_tokens":60,"completion_tokens":5}`, 60, 5, false},
		{`{"prompt_tokens":-5000,"completion_tokens":5}`, 0, 5, true},
		{`{"prompt_tokens":60,"completion_tokens":9223372036854775807}`, 60, judge.EstimateCompletionTokens(`{"score": 3}`), true},
	} {
		outs, err := ParseBatchOutput(bytes.NewReader([]byte(body(c.usage))), "out.jsonl", sc)
		if err != nil || len(outs) != 1 {
			t.Fatalf("%s: %d outcomes, %v", c.usage, len(outs), err)
		}
		o := outs[0]
		if o.PromptTokens != c.prompt || o.CompletionTokens != c.compl || (o.UsageNote != "") != c.noted || o.Score != 3 {
			t.Errorf("%s: tokens %d/%d, note %q, score %v", c.usage, o.PromptTokens, o.CompletionTokens, o.UsageNote, o.Score)
		}
	}
}
