// Package datasets owns reading the dataset file formats researchers use
// into model.Dataset values: SummEval (BARTScore's data.json and the
// model_annotations JSONL, with CNN/DM .story files), USR Topical-Chat,
// JudgeBench (a file or a directory of JSONL), HANNA, and generic JSON
// Lines and CSV; the JSON parser that keeps each value's position for
// file:line:column errors; and the embedded demo dataset (Demo).
package datasets
