package datasets

import (
	_ "embed"

	"github.com/prism-eval/prism/model"
)

// demoJSONL is the demo dataset, in the generic JSONL format: twelve
// made-up news articles (no real events, people or places), each with five
// summaries of visibly different quality — faithful and concise, wordy,
// with invented facts, a copy of the lead, repetitive — and human scores
// on SummEval's four criteria, invented to be plausible (1–5, means of
// three raters, so multiples of 1/3). Extra["style"] says which kind each
// summary is. Written for prism.
//
//go:embed demo/demo.jsonl
var demoJSONL []byte

// Demo returns the embedded demo dataset: what prism shows with no files
// and no network. Each call returns a fresh copy that the caller may
// modify. Task is news-summary, Metric spearman, Human the mean of the
// four criteria.
func Demo() *model.Dataset {
	d, err := readGenericJSONL(newLocator("demo/demo.jsonl", demoJSONL))
	if err == nil {
		err = d.Validate()
	}
	if err != nil {
		// The embedded file is part of the binary and tested; a failure
		// here is a build defect, not bad user input.
		panic("datasets: embedded demo dataset: " + err.Error())
	}
	d.Name, d.Format = "demo", FormatDemo
	return d
}
