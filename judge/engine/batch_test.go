package engine

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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
