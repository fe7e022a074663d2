package datasets

import (
	"bytes"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/prism-eval/prism/model"
)

// Loader format names accepted by Load and Read.
const (
	FormatSummEval      = "summeval"       // BARTScore-style data.json: expert means per criterion
	FormatSummEvalJSONL = "summeval-jsonl" // SummEval model_annotations.aligned(.paired).jsonl: per-expert scores
	FormatTopicalChat   = "topicalchat"    // USR Topical-Chat in the UniEval layout
	FormatJudgeBench    = "judgebench"     // JudgeBench pairs (JSONL)
	FormatHANNA         = "hanna"          // hanna_stories_annotations.csv: one row per rater
	FormatJSONL         = "jsonl"          // generic JSON Lines
	FormatCSV           = "csv"            // generic CSV with a header
	FormatDemo          = "demo"           // the embedded demo dataset (Demo)
)

// datasetFileLimit is model.MaxDatasetFile; tests lower it to exercise the
// limit without reading a gigabyte.
var datasetFileLimit int64 = model.MaxDatasetFile

// readers maps each file format to its parser over a whole input.
var readers = map[string]func(loc *locator) (*model.Dataset, error){
	FormatSummEval:      readSummEval,
	FormatSummEvalJSONL: readSummEvalJSONL,
	FormatTopicalChat:   readTopicalChat,
	FormatJudgeBench:    readJudgeBench,
	FormatHANNA:         readHANNA,
	FormatJSONL:         readGenericJSONL,
	FormatCSV:           readGenericCSV,
	FormatMTBench:       readMTBench,
	FormatHelpSteer2:    readHelpSteer2,
}

// Formats lists the format names Load and Read accept, sorted.
func Formats() []string {
	names := make([]string, 0, len(readers))
	for n := range readers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Read parses a dataset of the given format from r. name is used in error
// messages and, without its directory and extension, as the default
// Dataset.Name. The dataset is returned only when the whole input parsed
// and the result passed Validate; otherwise the error names the file, the
// line and the field.
func Read(format string, r io.Reader, name string) (*model.Dataset, error) {
	parse, ok := readers[format]
	if !ok {
		return nil, fmt.Errorf("unknown dataset format %q (want one of %s)", format, strings.Join(Formats(), ", "))
	}
	data, err := model.ReadLimited(r, datasetFileLimit, name, "a dataset file")
	if err != nil {
		return nil, err
	}
	return finish(parse(newLocator(name, data)))
}

// Load reads the dataset file at path in the given format. For judgebench,
// path may also be a directory: every *.jsonl in it is read, in name order,
// into one dataset. For summeval-jsonl, an article missing from the file
// (the unpaired layout has no "text") is read from its CNN/DM .story file
// found beside the JSONL (see readStoryArticle).
func Load(format, path string) (*model.Dataset, error) {
	parse, ok := readers[format]
	if !ok {
		return nil, fmt.Errorf("unknown dataset format %q (want one of %s)", format, strings.Join(Formats(), ", "))
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		if format != FormatJudgeBench {
			return nil, fmt.Errorf("%s: is a directory (only judgebench accepts a directory of *.jsonl)", path)
		}
		return finish(loadJudgeBenchDir(path))
	}
	data, err := model.ReadFileLimited(path, datasetFileLimit, "a dataset file")
	if err != nil {
		return nil, err
	}
	loc := newLocator(path, data)
	if format == FormatSummEvalJSONL {
		return finish(readSummEvalJSONLFiles(loc, filepath.Dir(path)))
	}
	return finish(parse(loc))
}

// finish validates a parsed dataset so that no loader can return one that
// breaks the Dataset invariants.
func finish(d *model.Dataset, err error) (*model.Dataset, error) {
	if err != nil {
		return nil, err
	}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	return d, nil
}

// loadJudgeBenchDir reads every *.jsonl in dir into one dataset.
func loadJudgeBenchDir(dir string) (*model.Dataset, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no *.jsonl files", dir)
	}
	sort.Strings(files)
	var locs []*locator
	var used int64 // the limit holds for the directory's files together
	for _, f := range files {
		data, err := model.ReadFileLimited(f, datasetFileLimit-used, "a dataset file (the directory's files together)")
		if err != nil {
			return nil, err
		}
		used += int64(len(data))
		locs = append(locs, newLocator(f, data))
	}
	d, err := readJudgeBenchFiles(locs)
	if err != nil {
		return nil, err
	}
	d.Name = filepath.Base(filepath.Clean(dir))
	return d, nil
}

// baseName turns a file name into a default dataset name: the last path
// element without its extension.
func baseName(name string) string {
	b := filepath.Base(name)
	if ext := filepath.Ext(b); ext != "" && ext != b {
		b = strings.TrimSuffix(b, ext)
	}
	if b == "" || b == "." || b == string(filepath.Separator) {
		return "dataset"
	}
	return b
}

// lines splits data into lines (without their "\n" or "\r\n"), returning
// each line's start offset; a final empty line after the last "\n" is
// dropped.
func lines(data []byte) (starts, ends []int) {
	for off := bomLen(data); off < len(data); {
		i := bytes.IndexByte(data[off:], '\n')
		end, next := off+i, off+i+1
		if i < 0 {
			end, next = len(data), len(data)
		}
		e := end
		if e > off && data[e-1] == '\r' {
			e--
		}
		starts = append(starts, off)
		ends = append(ends, e)
		off = next
	}
	return starts, ends
}

// bomLen is the length of a UTF-8 byte order mark at the start of data,
// which spreadsheet tools write and JSON parsers reject.
func bomLen(data []byte) int {
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		return 3
	}
	return 0
}

// isBlank reports whether b holds only white space.
// jsonlObjects yields each non-blank line of a JSON Lines file as a parsed
// object with its 0-based line index. It stops at the first line that is
// not a JSON object and leaves that error in *errp; callers check it after
// the loop.
func jsonlObjects(loc *locator, errp *error) iter.Seq2[int, *jnode] {
	return func(yield func(int, *jnode) bool) {
		starts, ends := lines(loc.data)
		for li := range starts {
			if isBlank(loc.data[starts[li]:ends[li]]) {
				continue
			}
			if ends[li]-starts[li] > model.MaxJSONLine {
				*errp = &model.SizeError{File: loc.name, Line: li + 1, Limit: model.MaxJSONLine, What: "one line of a JSON Lines file"}
				return
			}
			obj, err := parseJSON(loc, starts[li], ends[li])
			if err == nil {
				err = loc.wantKind(obj, "", jObject)
			}
			if err != nil {
				*errp = err
				return
			}
			if !yield(li, obj) {
				return
			}
		}
	}
}

func isBlank(b []byte) bool { return len(bytes.TrimSpace(b)) == 0 }

// benchmarkNames are the dataset names of the formats that are one known
// benchmark, whatever their file is called (SummEval ships as data.json,
// Topical-Chat as topical_chat.json): the CLI and the TUI store them
// under these names unless told another.
var benchmarkNames = map[string]string{
	FormatSummEval:      "summeval",
	FormatSummEvalJSONL: "summeval",
	FormatTopicalChat:   "topicalchat",
	FormatJudgeBench:    "judgebench",
	FormatHANNA:         "hanna",
	FormatMTBench:       "mtbench",
	FormatHelpSteer2:    "helpsteer2",
}

// BenchmarkName is the default dataset name of a format that is one known
// benchmark, or "" for a generic format (whose default is the file's
// name).
func BenchmarkName(format string) string { return benchmarkNames[format] }
