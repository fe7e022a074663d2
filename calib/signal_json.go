package calib

import (
	"encoding/json"
	"math"
	"strconv"
)

// jsonFloat writes a float64 as a JSON number, or null when it is NaN or
// infinite (encoding/json refuses those); the diagnostics use NaN for
// "undefined" (no data, fewer than two runs).
type jsonFloat float64

func (f jsonFloat) MarshalJSON() ([]byte, error) {
	x := float64(f)
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, x, 'g', -1, 64), nil
}

func jsonPair(p [2]float64) [2]jsonFloat { return [2]jsonFloat{jsonFloat(p[0]), jsonFloat(p[1])} }

// MarshalJSON writes the unit with null for non-finite numbers.
func (u SignalUnit) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Name          string       `json:"name"`
		N             int          `json:"n"`
		RMS           jsonFloat    `json:"rms"`
		Ratio         jsonFloat    `json:"ratio"`
		CI            [2]jsonFloat `json:"ci"`
		Pass          bool         `json:"pass"`
		Contexts      int          `json:"contexts"`
		TooFew        bool         `json:"too_few"`
		RatioVsRepeat jsonFloat    `json:"ratio_vs_repeat"`
		CIVsRepeat    [2]jsonFloat `json:"ci_vs_repeat"`
		ReproRMS      jsonFloat    `json:"repro_rms"`
		RunCorr       jsonFloat    `json:"run_corr"`
	}{u.Name, u.N, jsonFloat(u.RMS), jsonFloat(u.Ratio), jsonPair(u.CI), u.Pass, u.Contexts, u.TooFew,
		jsonFloat(u.RatioVsRepeat), jsonPair(u.CIVsRepeat), jsonFloat(u.ReproRMS), jsonFloat(u.RunCorr)})
}

// MarshalJSON writes the entry with null for non-finite numbers.
func (p Reproducibility) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Name     string    `json:"name"`
		N        int       `json:"n"`
		RMS      jsonFloat `json:"rms"`
		ReproRMS jsonFloat `json:"repro_rms"`
		RunCorr  jsonFloat `json:"run_corr"`
	}{p.Name, p.N, jsonFloat(p.RMS), jsonFloat(p.ReproRMS), jsonFloat(p.RunCorr)})
}

// MarshalJSON writes the entry with null for non-finite numbers.
func (c Component) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Attribute string    `json:"attribute"`
		N         int       `json:"n"`
		ReproO    jsonFloat `json:"repro_rms_o"`
		ReproE    jsonFloat `json:"repro_rms_e"`
		RunCorrO  jsonFloat `json:"run_corr_o"`
		RunCorrE  jsonFloat `json:"run_corr_e"`
		CorrOE    jsonFloat `json:"corr_oe"`
	}{c.Attribute, c.N, jsonFloat(c.ReproO), jsonFloat(c.ReproE), jsonFloat(c.RunCorrO), jsonFloat(c.RunCorrE), jsonFloat(c.CorrOE)})
}

// MarshalJSON writes the report with null for non-finite numbers.
func (r SignalReport) MarshalJSON() ([]byte, error) {
	type plain SignalReport // no methods: avoids recursion
	return json.Marshal(struct {
		*plain
		RepeatRMS          jsonFloat `json:"repeat_rms"`
		ProbeRunCorrMean   jsonFloat `json:"probe_run_corr_mean"`
		NeutralRunCorrMean jsonFloat `json:"neutral_run_corr_mean"`
	}{(*plain)(&r), jsonFloat(r.RepeatRMS), jsonFloat(r.ProbeRunCorrMean), jsonFloat(r.NeutralRunCorrMean)})
}
