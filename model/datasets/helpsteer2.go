package datasets

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"

	"github.com/prism-eval/prism/model"
)

// FormatHelpSteer2 reads HelpSteer2 as published on the Hugging Face Hub
// (nvidia/HelpSteer2): one record per response with prompt, response and
// the five attributes helpfulness, correctness, coherence, complexity and
// verbosity, each rated 0–4; JSON Lines (validation.jsonl.gz as
// downloaded, or unzipped) or the Hub's Parquet conversion.
const FormatHelpSteer2 = "helpsteer2"

// helpSteer2Attributes are the rated attributes, in the dataset card's
// order; the first is the target.
var helpSteer2Attributes = []string{"helpfulness", "correctness", "coherence", "complexity", "verbosity"}

// readHelpSteer2 builds the dataset: context = prompt (ID: the first 16
// hex digits of the SHA-256 of its text, Source: the text), candidates =
// its responses numbered r1, r2, … in file order, Text = the response;
// every attribute is a criterion score and Human = helpfulness (the fit's
// --target picks another). Two responses per prompt make the within-context
// comparison a pair: the metric is pairwise, which leaves human ties out.
func readHelpSteer2(loc *locator) (*model.Dataset, error) {
	if bytes.HasPrefix(loc.data, []byte{0x1f, 0x8b}) {
		var err error
		if loc, err = gunzipLocator(loc); err != nil {
			return nil, err
		}
	}
	b := newBuilder(baseName(loc.name), FormatHelpSteer2, model.TaskAnswer, model.MetricPairwise)
	for _, a := range helpSteer2Attributes {
		b.criterion(a)
	}
	add := func(r mappedRecord, _ string) error { return helpSteer2Record(b, r) }
	if err := eachJSONLOrParquet(loc, add); err != nil {
		return nil, err
	}
	if len(b.d.Contexts) == 0 {
		return nil, &ParseError{File: loc.name, Msg: "no records"}
	}
	return b.d, nil
}

// gunzipLocator is loc's data decompressed (validation.jsonl.gz as
// downloaded), under the dataset file limit; errors name the file. Lines
// and columns of later errors are the decompressed file's.
func gunzipLocator(loc *locator) (*locator, error) {
	zr, err := gzip.NewReader(bytes.NewReader(loc.data))
	if err != nil {
		return nil, &ParseError{File: loc.name, Msg: "gzip: " + err.Error()}
	}
	data, err := model.ReadLimited(zr, datasetFileLimit, loc.name, "a dataset file (decompressed)")
	if err != nil {
		if model.IsSizeError(err) {
			return nil, &ParseError{File: loc.name, Msg: err.Error()}
		}
		return nil, &ParseError{File: loc.name, Msg: "gzip: " + err.Error()}
	}
	return newLocator(loc.name, data), nil
}

// helpSteer2Record adds one response to its prompt's context.
func helpSteer2Record(b *builder, r mappedRecord) error {
	prompt, err := helpSteer2Text(r, "prompt")
	if err != nil {
		return err
	}
	response, err := helpSteer2Text(r, "response")
	if err != nil {
		return err
	}
	k := model.Candidate{Text: response, Scores: map[string]float64{}}
	for _, a := range helpSteer2Attributes {
		v, missing, err := mappedNumber(r, a, "rating")
		switch {
		case err != nil:
			return err
		case missing:
			return r.fail(lookup(r.node, a), a, "missing (every attribute is rated 0–4)")
		case v < 0 || v > 4:
			return r.fail(lookup(r.node, a), a, "%s is outside the 0–4 scale", model.Quote(lookup(r.node, a).text))
		}
		k.Scores[a] = v
	}
	k.Human = k.Scores[helpSteer2Attributes[0]]
	sum := sha256.Sum256([]byte(prompt))
	ci, added := b.context(hex.EncodeToString(sum[:8]))
	if added {
		b.d.Contexts[ci].Source = prompt
	}
	k.ID = "r" + itoa(len(b.d.Contexts[ci].Candidates)+1)
	b.addCandidate(ci, k)
	return nil
}

// helpSteer2Text reads a required non-empty string field.
func helpSteer2Text(r mappedRecord, field string) (string, error) {
	v := lookup(r.node, field)
	switch {
	case v == nil || v.kind == jNull:
		return "", r.fail(r.node, field, "missing")
	case v.kind != jString:
		return "", r.fail(v, field, "want a string, got %s", v.kind)
	case v.text == "":
		return "", r.fail(v, field, "empty")
	}
	return v.text, nil
}
