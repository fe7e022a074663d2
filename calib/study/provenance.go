package study

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
)

// Provenance returns what a calibrator records about the scores it was
// fitted on: the bank snapshot and the judge configuration behind judge's
// answers on dataset. bankHash "" takes the only bank those answers were
// acquired under (none for imported scores, which have no bank). rows
// are the answers (FitInput), for the number of runs.
func Provenance(ctx context.Context, st *store.Store, dataset, judgeName, bankHash string, rows []model.ScoreRow) (*calib.BankSnapshot, *calib.JudgeSnapshot, error) {
	j, err := st.Judge(ctx, judgeName)
	if err != nil {
		return nil, nil, err
	}
	if bankHash == "" && j.Backend != store.ImportBackend {
		studies, err := st.Studies(ctx)
		if err != nil {
			return nil, nil, err
		}
		var hashes []string
		for _, s := range studies {
			// Rubric studies (docs/rubrics.md) are no bank: a
			// calibrator reads the probes of one bank.
			if s.Dataset == dataset && s.Judge == judgeName && s.BankHash != "" && !s.Rubric {
				hashes = append(hashes, s.BankHash)
			}
		}
		switch len(hashes) {
		case 0:
		case 1:
			bankHash = hashes[0]
		default:
			return nil, nil, fmt.Errorf("judge %q answered dataset %q under %d banks (%s); a calibrator records one: choose it with --bank", judgeName, dataset, len(hashes), strings.Join(shortHashes(hashes), ", "))
		}
	}
	js := JudgeSnapshotOf(j, RunsOf(rows))
	if bankHash == "" || j.Backend == store.ImportBackend { // imported scores have no bank
		return nil, js, nil
	}
	snap, err := st.Bank(ctx, bankHash)
	if err != nil {
		return nil, nil, fmt.Errorf("bank %s: %w", model.ShortHash(bankHash), err)
	}
	b, err := banks.Parse([]byte(snap.Text), "workspace bank "+model.ShortHash(bankHash))
	if err != nil {
		return nil, nil, err
	}
	text, err := b.Marshal()
	if err != nil {
		return nil, nil, err
	}
	bs := &calib.BankSnapshot{Name: b.Name, Hash: b.Hash(), Source: snap.Source, TOML: string(text)}
	if d, err := st.Dataset(ctx, dataset); err == nil {
		bs.Task = d.Task
		if t, ok := b.Tasks[d.Task]; ok {
			js.Scale = fmt.Sprintf("%d–%d", t.Scale.Min, t.Scale.Max)
		}
	}
	return bs, js, nil
}

func shortHashes(hs []string) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = model.ShortHash(h)
	}
	return out
}

// RunsOf counts the distinct runs of the baseline answers (at least 1):
// the runs a calibrator records for its judge.
func RunsOf(rows []model.ScoreRow) int {
	runs := map[string]bool{}
	for _, r := range rows {
		if r.Probe == model.ProbeBaseline {
			runs[r.Run] = true
		}
	}
	return max(1, len(runs))
}

// JudgeSnapshotOf is a stored judge as a calibrator records it (the store
// keeps no key; the base URL loses any credentials).
func JudgeSnapshotOf(j store.Judge, runs int) *calib.JudgeSnapshot {
	js := &calib.JudgeSnapshot{Name: j.Name, Backend: j.Backend, Model: j.Model, BaseURL: calib.StripURL(j.BaseURL),
		Runs: runs, Orders: 1, Params: maps.Clone(j.Params)}
	if v, ok := j.Params["mode"].(string); ok {
		js.Mode = v
	}
	if v, ok := number(j.Params["temperature"]); ok {
		js.Temperature = &v
	}
	if v, ok := number(j.Params["top_p"]); ok {
		js.TopP = &v
	}
	if v, ok := number(j.Params["max_tokens"]); ok {
		js.MaxTokens = int(v)
	}
	if v, ok := j.Params["response_format"].(string); ok {
		js.ResponseFormat = v
	}
	return js
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	}
	return 0, false
}

// ConfigOf is the judge configuration that asks what the calibrator's
// judge was asked: backend, model, base URL, mode and the sampling
// parameters of its request keys. Transport settings are the defaults;
// the key comes from the environment as for prism run.
func ConfigOf(js *calib.JudgeSnapshot) judge.Config {
	c := judge.Defaults()
	c.Backend, c.Model, c.BaseURL = js.Backend, js.Model, js.BaseURL
	if js.Mode != "" {
		c.Mode = judge.Mode(js.Mode)
	}
	if js.Temperature != nil {
		t := *js.Temperature
		c.Temperature = &t
	}
	if js.TopP != nil {
		p := *js.TopP
		c.TopP = &p
	}
	c.MaxTokens = js.MaxTokens
	if js.ResponseFormat != "" {
		c.ResponseFormat = js.ResponseFormat
	}
	if v, ok := number(js.Params["seed"]); ok && v == math.Trunc(v) {
		s := int(v)
		c.Seed = &s
	}
	if v, ok := number(js.Params["top_logprobs"]); ok {
		c.TopLogprobs = int(v)
	}
	c.Repeats = max(1, js.Runs)
	return c
}

// Mismatches lists how scoring with judge configuration now (its stored
// judge and runs) and bank hash bankHash differs from what the calibrator
// was fitted on, one phrase per difference ("model: gpt-4o (calibrator)
// vs gpt-4o-mini"). A calibrator without a bank or judge record checks
// nothing for it. The base URL is not compared: the same model served
// from another endpoint is the same judge.
func Mismatches(c *calib.Calibrator, now *calib.JudgeSnapshot, bankHash string) []string {
	var out []string
	diff := func(field string, was, is any) {
		out = append(out, fmt.Sprintf("%s: %v (calibrator) vs %v", field, show(was), show(is)))
	}
	if c.Bank != nil && bankHash != "" && c.Bank.Hash != bankHash {
		diff("bank", c.Bank.Name+" "+model.ShortHash(c.Bank.Hash), model.ShortHash(bankHash))
	}
	cj := c.Judge
	if cj == nil || now == nil {
		return out
	}
	if cj.Backend != now.Backend {
		diff("backend", cj.Backend, now.Backend)
	}
	if cj.Model != now.Model {
		diff("model", cj.Model, now.Model)
	}
	if cj.Runs != now.Runs && now.Runs > 0 {
		diff("runs", cj.Runs, now.Runs)
	}
	if cj.Scale != "" && now.Scale != "" && cj.Scale != now.Scale {
		diff("scale", cj.Scale, now.Scale)
	}
	keys := map[string]bool{}
	for k := range cj.Params {
		keys[k] = true
	}
	for k := range now.Params {
		keys[k] = true
	}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		a, okA := cj.Params[k]
		b, okB := now.Params[k]
		if okA != okB || fmt.Sprint(a) != fmt.Sprint(b) {
			diff(k, a, b)
		}
	}
	return out
}

func show(v any) any {
	if v == nil {
		return "(unset)"
	}
	if s, ok := v.(string); ok && s == "" {
		return `""`
	}
	return v
}
