package ui

import (
	"strings"
	"testing"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// lineEditKeys are the keys FuzzLineEdit drives the editor with; any other
// byte is typed as text.
var lineEditKeys = []string{"left", "right", "home", "end", "backspace", "delete", "ctrl+u", "ctrl+k", "ctrl+w"}

// FuzzLineEdit types arbitrary text and edit keys into the one-line editor:
// it never panics, the cursor stays inside the value, the value holds no
// control characters, and the view fits its width.
func FuzzLineEdit(f *testing.F) {
	f.Add("hello\x01\x05world\x02\x02\x08", 10)
	f.Add("\x00\x00é\u200bx\n\ty", 1)
	f.Fuzz(func(t *testing.T, script string, width int) {
		e := newLineEdit()
		e.SetWidth(width%200 + 1)
		e.Focus()
		for _, r := range script {
			if int(r) < len(lineEditKeys) {
				e.Update(keyMsg(lineEditKeys[r]))
				continue
			}
			if r == utf8.RuneError {
				continue
			}
			e.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
		}
		e.Update(tea.PasteMsg{Content: script})
		if e.pos < 0 || e.pos > len(e.value) {
			t.Fatalf("cursor %d outside [0, %d]", e.pos, len(e.value))
		}
		if strings.ContainsAny(e.Value(), "\x00\n\r\t") {
			t.Fatalf("control characters in %q", e.Value())
		}
		// A width below 1 draws as 1; the cursor cell may follow the text.
		if w := ansi.StringWidth(e.View()); w > max(e.width, 1)+1 {
			t.Fatalf("view %d wide for width %d", w, e.width)
		}
	})
}

// FuzzRunForm puts arbitrary text in every field of the judge form:
// Config never panics, and a config it accepts has limits in range.
func FuzzRunForm(f *testing.F) {
	f.Add("offline", "", "", "integer", "8", "0", "0", "1")
	f.Add("openai", "gpt-4o-mini", "http://localhost:8000/v1", "expected", "-1", "x", "9999999999999999999999", "0")
	f.Fuzz(func(t *testing.T, backend, model, url, mode, conc, rpm, tpm, repeats string) {
		form := newRunForm(engineDefaults())
		for k, v := range map[string]string{fBackend: backend, fModel: model, fBaseURL: url, fMode: mode,
			fConc: conc, fRPM: rpm, fTPM: tpm, fRepeats: repeats} {
			form.set(k, v)
		}
		cfg, lim, reps, err := form.Config()
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an empty error")
			}
			return
		}
		if lim.Concurrency < 1 || lim.RPM < 0 || lim.TPM < 0 || reps < 1 {
			t.Fatalf("accepted limits %+v, repeats %d", lim, reps)
		}
		if cfg.Validate() != nil {
			t.Fatalf("accepted an invalid config: %v", cfg.Validate())
		}
	})
}
