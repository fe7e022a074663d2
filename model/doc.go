// Package model owns prism's domain types: datasets (contexts, candidates,
// human scores) and their invariants, judge score rows, human labels and
// probe names with their CSV form, the validators of names and numbers,
// and the size limits every reader of a user file goes through. Reading
// the dataset file formats and the demo dataset is package model/datasets;
// the workspace store is model/store.
package model
