package run

import "testing"

// FuzzRunForm puts arbitrary text in every field of the judge form:
// Config never panics, and a config it accepts has limits in range.
func FuzzRunForm(f *testing.F) {
	f.Add("offline", "", "", "integer", "8", "0", "0", "1")
	f.Add("openai", "gpt-4o-mini", "http://localhost:8000/v1", "expected", "-1", "x", "9999999999999999999999", "0")
	f.Fuzz(func(t *testing.T, backend, model, url, mode, conc, rpm, tpm, repeats string) {
		form := newRunForm(engineDefaults())
		for k, v := range map[string]string{FieldBackend: backend, FieldModel: model, FieldBaseURL: url, FieldMode: mode,
			FieldConc: conc, FieldRPM: rpm, FieldTPM: tpm, FieldRepeats: repeats} {
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
