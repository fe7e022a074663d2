package judge

import (
	"flag"
	"io"
	"testing"
)

// TestFlagsOverlay: the flags given replace their fields of the base
// configuration; the others keep the base's, whatever the flags' defaults.
func TestFlagsOverlay(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f := AddFlags(fs)
	if err := fs.Parse([]string{"--repeats", "3", "--temperature", "0.5", "--mode", "expected"}); err != nil {
		t.Fatal(err)
	}
	base := Defaults()
	base.Backend, base.Model, base.Repeats, base.MaxTokens = BackendOpenAI, "m", 2, 77
	c := f.Overlay(base)
	if c.Repeats != 3 || c.Temperature == nil || *c.Temperature != 0.5 || c.Mode != ModeExpected {
		t.Errorf("flags given: repeats %d, temperature %v, mode %q; want 3, 0.5, expected", c.Repeats, c.Temperature, c.Mode)
	}
	if c.Backend != BackendOpenAI || c.Model != "m" || c.MaxTokens != 77 {
		t.Errorf("flags not given changed the base: backend %q, model %q, max tokens %d", c.Backend, c.Model, c.MaxTokens)
	}
	if base.Repeats != 2 || base.Temperature != nil {
		t.Error("Overlay changed its argument")
	}
}
