package data

import (
	"fmt"
	"slices"
	"strings"

	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/datasets"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

// columnFlags are prism data import's flags for a file read by its
// columns (a Hugging Face Hub dataset's Parquet or JSONL file).
type columnFlags struct {
	context, candidate, text, source, human, criteria, task *string
}

func addColumnFlags(fs clikit.WorkspaceFlags) columnFlags {
	return columnFlags{
		context:   fs.String("context", "", "the context id's `COL` (a column or dotted path; a,b joins two)"),
		candidate: fs.String("candidate", "", "the candidate id's `COL` (=TEXT for a fixed id, # to number a context's records 1, 2, …)"),
		text:      fs.String("text", "", "the candidate text's `COL`"),
		source:    fs.String("source", "", "the context's source text `COL` (optional)"),
		human:     fs.String("human", "", "the target's `COL`"),
		criteria:  fs.String("criteria", "", "criterion score `COLS` (comma-separated): the target is their mean"),
		task:      fs.String("task", "", "the dataset's `TASK` (news-summary, story, dialogue, answer, generic; default generic)"),
	}
}

func (c columnFlags) given() bool {
	return *c.context != "" || *c.candidate != "" || *c.text != "" || *c.source != "" || *c.human != "" || *c.criteria != ""
}

// loadMappedDataset reads a dataset file by its columns.
func loadMappedDataset(format, path string, c columnFlags) (*model.Dataset, error) {
	formats := []string{datasets.LogParquet, datasets.LogJSONL, datasets.LogJSON, datasets.LogCSV}
	if !slices.Contains(formats, format) {
		return nil, clikit.UsageErr(fmt.Sprintf(dataUsage, strings.Join(append(datasets.Formats(), datasets.FormatDemo), ", ")), "--context, --candidate and --text are for the formats %s", strings.Join(formats, ", "))
	}
	data, err := model.ReadFileLimited(path, model.MaxDatasetFile, "a dataset file")
	if err != nil {
		return nil, err
	}
	m := datasets.DatasetMapping{Context: *c.context, Candidate: *c.candidate, Text: *c.text, Source: *c.source, Human: *c.human, Task: *c.task}
	if *c.criteria != "" {
		m.Criteria = strings.Split(*c.criteria, ",")
	}
	return datasets.ReadMappedDataset(format, path, data, m)
}
