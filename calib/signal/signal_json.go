package signal

import (
	"encoding/json"

	"github.com/prism-eval/prism/calib"
)

// MarshalJSON writes the unit with null for non-finite numbers.
func (u Unit) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Name          string             `json:"name"`
		N             int                `json:"n"`
		RMS           calib.JSONFloat    `json:"rms"`
		Ratio         calib.JSONFloat    `json:"ratio"`
		CI            [2]calib.JSONFloat `json:"ci"`
		Pass          bool               `json:"pass"`
		Contexts      int                `json:"contexts"`
		TooFew        bool               `json:"too_few"`
		RatioVsRepeat calib.JSONFloat    `json:"ratio_vs_repeat"`
		CIVsRepeat    [2]calib.JSONFloat `json:"ci_vs_repeat"`
		ReproRMS      calib.JSONFloat    `json:"repro_rms"`
		RunCorr       calib.JSONFloat    `json:"run_corr"`
	}{u.Name, u.N, calib.JSONFloat(u.RMS), calib.JSONFloat(u.Ratio), calib.JSONPair(u.CI), u.Pass, u.Contexts, u.TooFew,
		calib.JSONFloat(u.RatioVsRepeat), calib.JSONPair(u.CIVsRepeat), calib.JSONFloat(u.ReproRMS), calib.JSONFloat(u.RunCorr)})
}

// MarshalJSON writes the entry with null for non-finite numbers.
func (p Reproducibility) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Name     string          `json:"name"`
		N        int             `json:"n"`
		RMS      calib.JSONFloat `json:"rms"`
		ReproRMS calib.JSONFloat `json:"repro_rms"`
		RunCorr  calib.JSONFloat `json:"run_corr"`
	}{p.Name, p.N, calib.JSONFloat(p.RMS), calib.JSONFloat(p.ReproRMS), calib.JSONFloat(p.RunCorr)})
}

// MarshalJSON writes the entry with null for non-finite numbers.
func (c Component) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Attribute string          `json:"attribute"`
		N         int             `json:"n"`
		ReproO    calib.JSONFloat `json:"repro_rms_o"`
		ReproE    calib.JSONFloat `json:"repro_rms_e"`
		RunCorrO  calib.JSONFloat `json:"run_corr_o"`
		RunCorrE  calib.JSONFloat `json:"run_corr_e"`
		CorrOE    calib.JSONFloat `json:"corr_oe"`
	}{c.Attribute, c.N, calib.JSONFloat(c.ReproO), calib.JSONFloat(c.ReproE), calib.JSONFloat(c.RunCorrO), calib.JSONFloat(c.RunCorrE), calib.JSONFloat(c.CorrOE)})
}

// MarshalJSON writes the report with null for non-finite numbers.
func (r Report) MarshalJSON() ([]byte, error) {
	type plain Report // no methods: avoids recursion
	return json.Marshal(struct {
		*plain
		RepeatRMS          calib.JSONFloat `json:"repeat_rms"`
		ProbeRunCorrMean   calib.JSONFloat `json:"probe_run_corr_mean"`
		NeutralRunCorrMean calib.JSONFloat `json:"neutral_run_corr_mean"`
	}{(*plain)(&r), calib.JSONFloat(r.RepeatRMS), calib.JSONFloat(r.ProbeRunCorrMean), calib.JSONFloat(r.NeutralRunCorrMean)})
}
