package analysis

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/prism-eval/prism/calib/agree"
	"github.com/prism-eval/prism/calib/curve"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

// agreeReport is prism agree's report (docs/agree.md "JSON"): the numbers
// of calib/agree and what went in, per judge: its study (workspace) or
// file, and the scale it shares with the labels.
type agreeReport struct {
	*agree.Result
	Study  map[string]*model.Study `json:"study,omitempty"`
	Files  map[string]string       `json:"files,omitempty"`
	Scales map[string]string       `json:"shared_scale,omitempty"`
	Target string                  `json:"target,omitempty"`
	Curve  *curve.Curve            `json:"curve,omitempty"` // --curve
}

// agreeReportOf builds the table (warnings to stderr), decides which judges
// share the labels' scale (--scale lo-hi: those whose scores lie on it and,
// for a judge with a bank, whose bank's scale it is), and computes the
// agreement.
func agreeReportOf(in agreeInput, opts agree.Options, co *curve.Options, scaleGiven bool, lo, hi float64, stderr io.Writer) (*agreeReport, error) {
	names := make([]string, len(in.judges))
	maps := make([]map[agree.Key]float64, len(in.judges))
	rep := &agreeReport{Study: map[string]*model.Study{}, Files: map[string]string{}, Scales: map[string]string{}}
	opts.Shared = make([]bool, len(in.judges))
	labelsIn := func(lo, hi float64) bool {
		return onScale(lo, hi, func(yield func(float64) bool) {
			for _, l := range in.labels {
				if !math.IsNaN(l.Human) && !yield(l.Human) {
					return
				}
			}
		})
	}
	if scaleGiven && !labelsIn(lo, hi) {
		return nil, fmt.Errorf("--scale %g-%g: the human labels are not all on it", lo, hi)
	}
	for j, jd := range in.judges {
		names[j], maps[j] = jd.name, jd.scores
		if jd.study != nil {
			rep.Study[jd.name] = jd.study
		}
		if jd.file != "" {
			rep.Files[jd.name] = jd.file
		}
		scoresIn := func(lo, hi float64) bool {
			return onScale(lo, hi, func(yield func(float64) bool) {
				for _, v := range jd.scores {
					if !yield(v) {
						return
					}
				}
			})
		}
		switch {
		case !scaleGiven:
		case jd.scale != "" && !sameScale(jd.scale, lo, hi):
			fmt.Fprintf(stderr, "prism agree: judge %s scores on its bank's scale %s, not the labels' %g-%g: no bias, MAE, α or κ\n", jd.name, jd.scale, lo, hi)
		case !scoresIn(lo, hi):
			fmt.Fprintf(stderr, "prism agree: judge %s has scores off the labels' scale %g-%g: no bias, MAE, α or κ\n", jd.name, lo, hi)
		default:
			opts.Shared[j], rep.Scales[jd.name] = true, fmt.Sprintf("%g-%g", lo, hi)
		}
	}
	res, t, warnings, err := agree.Measure(in.labels, names, maps, opts)
	for _, w := range warnings {
		fmt.Fprintln(stderr, "prism agree: warning:", w)
	}
	if err != nil {
		return nil, err
	}
	rep.Result = res
	if co != nil {
		if rep.Curve, err = agree.Curve(t, opts, *co); err != nil {
			return nil, fmt.Errorf("--curve: %w", err)
		}
	}
	return rep, nil
}

// sameScale reports whether a bank's scale MIN–MAX is lo–hi.
func sameScale(scale string, lo, hi float64) bool {
	l, h, err := parseScale(scale)
	return err == nil && l == lo && h == hi
}

// agreeColumns are the metrics in the order the table shows them.
var agreeColumns = []string{agree.KeySpearman, agree.KeyKendall, agree.KeyPairwise, agree.KeyPearsonGlobal, agree.KeySpearmanGlobal,
	agree.KeyKendallGlobal, agree.KeyBias, agree.KeyMAE, agree.KeyKappa, agree.KeyAlphaInterval, agree.KeyAlphaOrdinal}

// printAgree prints the report as one table (judges × metrics, best
// headline first), the paired differences, and what went in.
func printAgree(w io.Writer, r *agreeReport) error {
	var cols []string
	for _, c := range agreeColumns {
		for _, e := range r.Judges {
			if _, ok := e[c]; ok {
				cols = append(cols, c)
				break
			}
		}
	}
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "judge\t%s\n", strings.Join(cols, "\t"))
	for _, name := range r.Order {
		cells := []string{name}
		for _, c := range cols {
			cells = append(cells, estimateCell(r.Judges[name], c))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	tw.Flush()
	if len(r.Pairs) > 0 {
		fmt.Fprintf(&buf, "\npaired differences in %s (A − B, 95%% interval on the same draws):\n", r.Metric)
		tw = tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
		for _, p := range r.Pairs {
			fmt.Fprintf(tw, "%s − %s\t%+.3f\t[%+.3f, %+.3f]\t%s\n", p.A, p.B, p.Mean, p.CI[0], p.CI[1], pairVerdict(p.CI))
		}
		tw.Flush()
	}
	fmt.Fprintf(&buf, "\n%d contexts, %d candidates with a label and every judge's score; sorted by %s.\n", r.Contexts, r.Candidates, r.Metric)
	if r.SkipConstant {
		buf.WriteString("Contexts where a judge or the labels are constant are left out of that judge's within-context means (--skip-constant).\n")
	} else {
		buf.WriteString("A context where a judge or the labels are constant counts 0 in Spearman and Kendall (as prism fit counts it; --skip-constant leaves it out).\n")
	}
	fmt.Fprintf(&buf, "95%% intervals: %d context-bootstrap resamples, seed %d, the same draws for every judge.\n", r.Bootstrap, r.Seed)
	if r.Target != "" {
		fmt.Fprintf(&buf, "Target: the labels' criterion %s.\n", r.Target)
	}
	if r.Curve != nil {
		printCurve(&buf, r.Curve)
	}
	for _, name := range r.Order {
		if s := r.Study[name]; s != nil {
			fmt.Fprintf(&buf, "\n%s:\n", name)
			clikit.PrintStudy(&buf, s)
		} else if f := r.Files[name]; f != "" {
			fmt.Fprintf(&buf, "%s: %s\n", name, f)
		}
	}
	return clikit.WriteTrimmed(w, buf.String())
}

func estimateCell(m map[string]agree.Estimate, key string) string {
	e, ok := m[key]
	if !ok {
		return "—"
	}
	return fmt.Sprintf("%.3f [%.3f, %.3f]", e.Mean, e.CI[0], e.CI[1])
}

// pairVerdict says whether a paired interval excludes 0.
func pairVerdict(ci [2]float64) string {
	switch {
	case ci[0] > 0:
		return "A better"
	case ci[1] < 0:
		return "B better"
	}
	return "not separated"
}
