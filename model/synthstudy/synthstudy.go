package synthstudy

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"

	"github.com/prism-eval/prism/model"
)

// words is the vocabulary of the synthetic articles.
var words = strings.Fields(`council vote bridge river city mayor budget school hospital
	police report market shares bank rate inflation storm rain flood coast harbour ship
	team match goal season coach player club league final injury court judge trial jury
	verdict company profit loss workers union strike station train delay airport flight
	museum artist gallery festival music concert film director award science study
	researchers patients vaccine trial climate carbon energy solar wind power grid road`)

// sentence is one pseudo-random sentence of n words, a number and a name.
func sentence(rng *rand.Rand, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		w := words[rng.IntN(len(words))]
		if i == 0 {
			w = strings.ToUpper(w[:1]) + w[1:]
		}
		b.WriteString(w)
		if i == n/2 {
			fmt.Fprintf(&b, " %d", 2+rng.IntN(98))
		}
	}
	b.WriteByte('.')
	return b.String()
}

// Dataset is a news-summary dataset of nctx contexts × ncand candidates:
// each context an article of 6–9 sentences, each candidate a summary of
// 1–4 sentences, some copied from the article (more copied: a higher
// human score, plus noise), named "synth". The same arguments give the
// same dataset.
func Dataset(nctx, ncand int, seed uint64) *model.Dataset {
	rng := rand.New(rand.NewPCG(seed, 11))
	d := &model.Dataset{Name: "synth", Format: "jsonl", Task: model.TaskNewsSummary, Metric: model.MetricSpearman}
	for g := 0; g < nctx; g++ {
		sents := make([]string, 6+rng.IntN(4))
		for i := range sents {
			sents[i] = sentence(rng, 8+rng.IntN(10))
		}
		c := model.Context{ID: fmt.Sprintf("doc%05d", g), Source: strings.Join(sents, " ")}
		for k := 0; k < ncand; k++ {
			n := 1 + rng.IntN(4)
			var parts []string
			copied := 0
			for i := 0; i < n; i++ {
				if rng.IntN(2) == 0 {
					parts = append(parts, sents[rng.IntN(len(sents))])
					copied++
				} else {
					parts = append(parts, sentence(rng, 5+rng.IntN(12)))
				}
			}
			human := 1 + 4*float64(copied)/float64(n) + 0.5*rng.NormFloat64()
			c.Candidates = append(c.Candidates, model.Candidate{ID: fmt.Sprintf("m%02d", k),
				Text: strings.Join(parts, " "), Human: human})
		}
		d.Contexts = append(d.Contexts, c)
	}
	return d
}

// Scores is a study of nctx contexts × ncand candidates × K attributes as
// score rows and human labels: each candidate has latent qualities z_k;
// the humans weight them by w_k = 1/(k+1), the judge's baseline by a
// biased u_k, and the probes for attribute k (wordings per sign, named
// "0", "1", …) move the score by ±z_k plus a shared shift and noise, so
// the Jacobian carries what the baseline misses. Probe names are aNN:+ and
// aNN:-. The same arguments give the same rows.
func Scores(nctx, ncand, K, wordings int, seed uint64) ([]model.ScoreRow, []model.Label) {
	rng := rand.New(rand.NewPCG(seed, 7))
	wordings = max(wordings, 1)
	rows := make([]model.ScoreRow, 0, nctx*ncand*(1+2*K*wordings))
	labels := make([]model.Label, 0, nctx*ncand)
	z := make([]float64, K)
	attrs := make([]string, K)
	for k := range attrs {
		attrs[k] = fmt.Sprintf("a%02d", k)
	}
	for g := 0; g < nctx; g++ {
		ctx := fmt.Sprintf("doc%05d", g)
		for i := 0; i < ncand; i++ {
			cand := fmt.Sprintf("m%02d", i)
			var y, s0 float64
			for k := range z {
				z[k] = rng.NormFloat64()
				w := 1.0 / float64(k+1)
				u := w * (1 + 0.8*float64(k%3-1)) // over-, under- and right-weighted attributes
				y += w * z[k]
				s0 += u * z[k]
			}
			y += 0.3 * rng.NormFloat64()
			s0 += 0.3 * rng.NormFloat64()
			labels = append(labels, model.Label{Context: ctx, Candidate: cand, Human: y})
			rows = append(rows, model.ScoreRow{Context: ctx, Candidate: cand, Probe: model.ProbeBaseline, Score: s0, Wording: "0"})
			for k, a := range attrs {
				for w := 0; w < wordings; w++ {
					wd := fmt.Sprint(w)
					rows = append(rows,
						model.ScoreRow{Context: ctx, Candidate: cand, Probe: a + ":+", Wording: wd, Score: s0 + 0.2 + 0.5*z[k] + 0.1*rng.NormFloat64()},
						model.ScoreRow{Context: ctx, Candidate: cand, Probe: a + ":-", Wording: wd, Score: s0 + 0.2 - 0.5*z[k] + 0.1*rng.NormFloat64()})
				}
			}
		}
	}
	return rows, labels
}

// WriteJSONL writes d in the generic JSON Lines layout `prism data import
// jsonl` reads (docs/datasets.md): one object per candidate, the context's
// source and the task on its first candidate.
func WriteJSONL(w io.Writer, d *model.Dataset) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for _, c := range d.Contexts {
		for i, k := range c.Candidates {
			row := map[string]any{"context": c.ID, "candidate": k.ID, "text": k.Text, "human": k.Human}
			if i == 0 {
				row["source"], row["task"] = c.Source, d.Task
			}
			if err := enc.Encode(row); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}
