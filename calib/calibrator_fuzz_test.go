package calib

import (
	"bytes"
	"testing"
)

// FuzzReadCalibrator feeds arbitrary bytes, and damaged copies of a real
// calibrator, to ReadCalibrator: no panic, and a file it accepts scores
// candidates without panicking either.
func FuzzReadCalibrator(f *testing.F) {
	c, rows, _ := bankCalibrator(f)
	data, err := c.Marshal()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add(data[:len(data)/3])
	f.Add([]byte(`{"kind":"prism-calibrator","schema":1}`))
	f.Add([]byte(`{"kind":"prism-calibrator","schema":1e9}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, in []byte) {
		got, err := ReadCalibrator(bytes.NewReader(in), "fuzz.json")
		if err != nil {
			return
		}
		if _, err := got.Marshal(); err != nil {
			t.Fatalf("an accepted calibrator does not marshal: %v", err)
		}
		_, _ = got.Apply(rows, nil, ApplyOptions{})
	})
}
