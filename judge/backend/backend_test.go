package backend

import (
	"testing"

	"github.com/prism-eval/prism/judge"
)

func TestNew(t *testing.T) {
	j, err := New(judge.Defaults())
	if err != nil || j.Name() != "offline (simulator)" {
		t.Fatalf("default backend: %v, %v", j, err)
	}
	c := judge.Defaults()
	c.Backend, c.Model, c.BaseURL = judge.BackendOpenAI, "llama3", "http://localhost:11434/v1"
	if j, err = New(c); err != nil || j.Name() != "openai:llama3" {
		t.Fatalf("openai backend: %v, %v", j, err)
	}
	c.Backend, c.Model = judge.BackendAnthropic, "claude-haiku-4-5"
	if j, err = New(c); err != nil || j.Name() != "anthropic:claude-haiku-4-5" {
		t.Fatalf("anthropic backend: %v, %v", j, err)
	}
	c.Mode = judge.ModeExpected
	if _, err := New(c); judge.KindOf(err) != judge.KindConfig {
		t.Errorf("anthropic in expected mode: %v", err)
	}
	c.Backend, c.Mode = "gemini", judge.ModeInteger
	if _, err := New(c); judge.KindOf(err) != judge.KindConfig {
		t.Errorf("unknown backend: %v", err)
	}
}
