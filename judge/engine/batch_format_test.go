package engine

import (
	"encoding/json"
	"strings"
	"testing"
)

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
