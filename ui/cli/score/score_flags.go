package score

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/judge/engine"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

// scoreFlags are prism score's flags: the calibrator, the scores' source
// (CSV files or a workspace dataset), the output, the transfer check, and
// for a workspace the judge flags of prism run over the calibrator's judge.
type scoreFlags struct {
	fs                                   clikit.WorkspaceFlags
	calFile, scores, labels, out, format *string
	scale, dataset, name, prices, target *string
	allow                                *bool
	boot, conc, rpm, tpm                 *int
	seed                                 *uint64
	budget                               *float64
	spend                                *clikit.SpendFlags
	jfs                                  *flag.FlagSet     // the judge flags, on their own set
	jf                                   *judge.Flags      // … as judge.AddFlags reads them
	judgeFlag                            map[string]string // score flag name → judge.AddFlags name
	set                                  map[string]bool   // the flags given (after parse)
	judgeSet                             []string          // the judge flags given, "--name", sorted
	outFormat                            string            // csv or jsonl (after parse)
}

func newScoreFlags(stderr io.Writer) *scoreFlags {
	fs := clikit.NewWorkspaceFlags("prism score", stderr, scoreUsage)
	f := &scoreFlags{fs: fs}
	f.calFile = fs.String("calibrator", "", "the calibrator `FILE` (JSON, from prism fit --save)")
	f.scores = fs.String("scores", "", "judge scores `CSV`: context,candidate,probe,score[,run,wording] (instead of a workspace)")
	f.labels = fs.String("labels", "", "with --scores: human labels `CSV` (context,candidate,human) for the transfer check")
	f.out = fs.String("o", "", "write the scored candidates to `FILE` (default: standard output)")
	f.format = fs.String("format", "", "output `FORMAT`: csv or jsonl (default: jsonl for an -o FILE ending in .jsonl or .ndjson, else csv)")
	f.scale = fs.String("scale", "corrected", "`SCALE` of the scores: corrected, or human (adds human_scale: the calibrator's monotone map of the corrected score)")
	f.allow = fs.Bool("allow-mismatch", false, "score with a bank or judge configuration other than the calibrator's (every difference is recorded in the output)")
	f.boot = fs.Int("bootstrap", 0, "transfer check: context-bootstrap resamples (0: the calibrator's fit's)")
	f.seed = fs.Uint64("seed", 0, "transfer check: bootstrap seed (default: the calibrator's fit's)")
	f.dataset = fs.String("dataset", "", "workspace mode: dataset `NAME` (default: the only one)")
	f.name = fs.String("judge", "", "workspace mode: the stored judge `NAME` of the answers (default: the calibrator's)")
	f.prices = fs.String("prices", "", "price table `FILE` (TOML, USD per 1M tokens)")
	f.conc = fs.Int("concurrency", 8, "requests in flight at once")
	f.rpm = fs.Int("rpm", 0, "requests per minute (0: unlimited)")
	f.tpm = fs.Int("tpm", 0, "tokens per minute, estimated input + output (0: unlimited)")
	f.spend = clikit.AddSpendFlags(fs)
	f.target = fs.String("target", "", "transfer check against one `CRITERION` of the labels instead of the overall label: a column of the --labels file, or a criterion of the workspace dataset")
	f.budget = clikit.FiniteFloatFlag(fs.FlagSet, "budget", 0, 0, 1e9, "workspace mode: follow the calibrator's adaptive policy (prism budget --save) with at most `N` judge calls per candidate, baseline included; 0: ask every probe")
	f.addJudgeFlags()
	return f
}

// addJudgeFlags registers the judge flags of prism run on their own set
// and shows them on prism score's (the sampling seed as --judge-seed); the
// calibrator's configuration is the default of those that change a
// request's key.
func (f *scoreFlags) addJudgeFlags() {
	f.jfs = flag.NewFlagSet("judge", flag.ContinueOnError)
	f.jfs.SetOutput(io.Discard)
	f.jf = judge.AddFlags(f.jfs)
	f.judgeFlag = map[string]string{}
	f.jfs.VisitAll(func(fl *flag.Flag) {
		n, usage, def := fl.Name, fl.Usage, fl.DefValue
		if n == "seed" {
			n, usage = "judge-seed", "the judge's sampling seed, prism run's --seed (repeat r sends seed+r)"
		}
		f.judgeFlag[n] = fl.Name
		if keyFlags[fl.Name] {
			usage += " (default: the calibrator's)"
			def = ""
			switch fl.Value.(flag.Getter).Get().(type) {
			case int, int64, float64:
				def = "0"
			}
		}
		f.fs.Var(fl.Value, n, usage)
		f.fs.Lookup(n).DefValue = def
	})
	f.fs.Lookup("repeats").Usage = "runs per condition, each a separate request (default: the calibrator's judge's runs)"
}

// parse reads and checks the command line; help is true after -h.
func (f *scoreFlags) parse(args []string, stdout io.Writer) (help bool, err error) {
	pos, help, err := f.fs.ParseArgs(args, stdout)
	if err != nil || help {
		return help, err
	}
	f.set = map[string]bool{}
	f.fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
	for n, orig := range f.judgeFlag {
		if f.set[n] {
			if err := f.jfs.Set(orig, f.fs.Lookup(n).Value.String()); err != nil {
				return false, clikit.UsageErr(scoreUsage, "--%s: %v", n, err)
			}
			f.judgeSet = append(f.judgeSet, "--"+n)
		}
	}
	slices.Sort(f.judgeSet)
	if err := clikit.NoArgs(scoreUsage, pos); err != nil {
		return false, err
	}
	if err := f.check(); err != nil {
		return false, err
	}
	return false, f.resolveFormat()
}

func (f *scoreFlags) fromFiles() bool { return *f.scores != "" || *f.labels != "" }

// check refuses flags that do not go together or out of range.
func (f *scoreFlags) check() error {
	var workspaceOnly []string
	for _, n := range append([]string{"dataset", "judge", "workspace", "prices", "concurrency", "rpm", "tpm", "budget"}, clikit.SpendFlagNames...) {
		if f.set[n] {
			workspaceOnly = append(workspaceOnly, "--"+n)
		}
	}
	switch {
	case *f.calFile == "":
		return clikit.UsageErr(scoreUsage, "--calibrator FILE is required (write one with prism fit --save)")
	case *f.labels != "" && *f.scores == "":
		return clikit.UsageErr(scoreUsage, "--labels goes with --scores (a workspace dataset brings its own labels)")
	case *f.target != "" && *f.scores != "" && *f.labels == "":
		return clikit.UsageErr(scoreUsage, "--target names a criterion column of --labels: give --labels too")
	case f.fromFiles() && len(workspaceOnly)+len(f.judgeSet) > 0:
		return clikit.UsageErr(scoreUsage, "%s: workspace flags, not for --scores (the scores are already recorded)", strings.Join(append(workspaceOnly, f.judgeSet...), ", "))
	case *f.scale != "corrected" && *f.scale != "human":
		return clikit.UsageErr(scoreUsage, "--scale %q: want corrected or human", *f.scale)
	case *f.boot < 0:
		return clikit.UsageErr(scoreUsage, "--bootstrap %d: want at least 1 (0: the calibrator's)", *f.boot)
	case *f.conc < 1 || *f.rpm < 0 || *f.tpm < 0:
		return clikit.UsageErr(scoreUsage, "--concurrency must be ≥ 1 and --rpm, --tpm ≥ 0")
	}
	return nil
}

// resolveFormat sets outFormat: --format, else by -o's extension.
func (f *scoreFlags) resolveFormat() error {
	f.outFormat = *f.format
	if f.outFormat == "" {
		f.outFormat = "csv"
		switch strings.ToLower(filepath.Ext(*f.out)) {
		case ".jsonl", ".ndjson":
			f.outFormat = "jsonl"
		}
	}
	if f.outFormat != "csv" && f.outFormat != "jsonl" {
		return clikit.UsageErr(scoreUsage, "--format %q: want csv or jsonl", *f.format)
	}
	return nil
}

// calibrator reads --calibrator and refuses one that lacks what the flags
// ask of it (a budget policy and bank, a human-scale map).
func (f *scoreFlags) calibrator() (*calib.Calibrator, error) {
	cal, err := calib.ReadCalibratorFile(*f.calFile)
	if err != nil {
		return nil, err
	}
	switch {
	case *f.budget > 0 && cal.Policy == nil:
		return nil, fmt.Errorf("%s: field \"policy\": the calibrator carries no budget policy; add one with prism budget --calibrator %s --save FILE", *f.calFile, *f.calFile)
	case *f.budget > 0 && cal.Bank == nil:
		return nil, fmt.Errorf("%s: field \"bank\": the calibrator records no probe bank, so prism cannot ask its probes in stages (--budget)", *f.calFile)
	case *f.scale == "human" && cal.HumanScale == nil:
		return nil, fmt.Errorf("%s: field \"human_scale\": the calibrator has no map to the human scale (%s); score without --scale human", *f.calFile, cal.HumanScaleNote)
	}
	return cal, nil
}

// applyOptions are the transfer check's options: --bootstrap and --seed,
// the calibrator's fit's for the one not given.
func (f *scoreFlags) applyOptions(cal *calib.Calibrator) calib.ApplyOptions {
	opts := calib.ApplyOptions{HumanScale: *f.scale == "human", Bootstrap: *f.boot, Seed: *f.seed}
	if f.set["bootstrap"] || f.set["seed"] {
		if *f.boot == 0 {
			opts.Bootstrap = cal.CV.Bootstrap
		}
		if !f.set["seed"] {
			opts.Seed = cal.CV.Seed
		}
	}
	return opts
}

// workspace is the scoring of a workspace dataset the flags describe.
func (f *scoreFlags) workspace(cal *calib.Calibrator, opts calib.ApplyOptions, info, stderr io.Writer, args []string) *scoreWorkspace {
	return &scoreWorkspace{fs: f.fs, cal: cal, calFile: *f.calFile, jf: f.jf, jfs: f.jfs, judgeSet: f.judgeSet,
		dataset: *f.dataset, name: *f.name, prices: *f.prices, allow: *f.allow, spend: f.spend,
		limits: engine.Limits{Concurrency: *f.conc, RPM: *f.rpm, TPM: *f.tpm}, info: info, stderr: stderr, args: args, budget: *f.budget, target: *f.target,
		opts: opts}
}

// writeRows writes the scored candidates, buffered, to -o (atomically) or
// stdout.
func (f *scoreFlags) writeRows(doc *scoreDoc, stdout io.Writer) error {
	write := doc.writeCSV
	if f.outFormat == "jsonl" {
		write = doc.writeJSONL
	}
	buffered := func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<16)
		if err := write(bw); err != nil {
			return err
		}
		return bw.Flush()
	}
	if *f.out == "" {
		return buffered(stdout)
	}
	if err := model.WriteFileAtomic(*f.out, buffered); err != nil || f.outFormat == "jsonl" {
		return err // JSON Lines carry their notes in the header line
	}
	return model.WriteFileAtomic(notesFile(*f.out), doc.writeNotes)
}

// printSummary prints the transfer check's summary, the budget's notes and
// where the rows went.
func (f *scoreFlags) printSummary(doc *scoreDoc, budgetDone *budgetScoring, info io.Writer) error {
	var buf bytes.Buffer
	if *f.out == "" && f.outFormat == "csv" {
		doc.writeNotes(&buf) // the rows went to stdout without them
	}
	doc.summary(&buf)
	if budgetDone != nil {
		for _, n := range budgetDone.notes(doc.cal, *f.budget) {
			fmt.Fprintln(&buf, n)
		}
	}
	if *f.out != "" {
		fmt.Fprintf(&buf, "wrote %d scored candidates to %s (%s)", len(doc.res.Rows), *f.out, f.outFormat)
		if f.outFormat == "csv" {
			fmt.Fprintf(&buf, ", its notes to %s", notesFile(*f.out))
		}
		fmt.Fprintln(&buf)
	}
	return clikit.WriteTrimmed(info, buf.String())
}
