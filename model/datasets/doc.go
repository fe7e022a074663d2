// Package datasets owns reading the dataset file formats researchers use
// into model.Dataset values: SummEval (BARTScore's data.json and the
// model_annotations JSONL, with CNN/DM .story files), USR Topical-Chat,
// JudgeBench (a file or a directory of JSONL), HANNA, HelpSteer2 and
// MT-Bench (JSON Lines or the Hub's Parquet), generic JSON Lines and CSV,
// and any file of records whose fields a mapping names
// (ReadMappedDataset); other tools' score logs (Inspect AI, promptfoo,
// mapped records: ReadScoreLogs); the JSON parser that keeps each value's
// position for file:line:column errors; and the embedded demo dataset
// (Demo).
//
// Where things are: load.go (Load and Read, the format names and limits);
// one file a format family (summeval.go, topicalchat.go, judgebench.go,
// hanna.go, huggingface.go, generic.go, mapped_dataset.go); score logs in
// scorelog.go, inspect.go, promptfoo.go and mapped.go; the readers' shared
// parts in builder.go, csvsheet.go, jsontree.go, parquet.go and
// parseerror.go.
package datasets
