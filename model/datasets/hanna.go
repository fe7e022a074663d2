package datasets

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/prism-eval/prism/model"
)

// HANNACriteria are HANNA's six story criteria, lower-cased, in the
// column order of hanna_stories_annotations.csv.
var HANNACriteria = []string{"relevance", "coherence", "empathy", "surprise", "engagement", "complexity"}

// readHANNA parses hanna_stories_annotations.csv (README of
// dig-team/hanna-benchmark-asg): one row per rater with the columns
// "Story ID", "Prompt", "Human" (the prompt's human-written story),
// "Story", "Model", the six criteria "Relevance" … "Complexity" (1–5),
// "Worker ID" and others, which are ignored. Rows of one Story ID are
// averaged: each criterion is the mean over raters and Human is the mean
// over raters × criteria (docs/protocol.md §10). Stories of one prompt form a
// context whose ID is "p" + the smallest Story ID among them (for the full
// file, stories 0–95 are the human ones, so this is the prompt's index);
// Source = the prompt, Extra["human_story"] = the Human column. Candidate
// ids are the model names; Extra holds "story_id" and "raters".
func readHANNA(loc *locator) (*model.Dataset, error) {
	t, err := newCSVSheet(loc)
	if err != nil {
		return nil, err
	}
	cols := map[string]int{}
	for _, name := range append([]string{"story id", "prompt", "story", "model"}, HANNACriteria...) {
		i := t.column(name)
		if i < 0 {
			return nil, t.errAt(0, name, "missing column (want the header of hanna_stories_annotations.csv)")
		}
		cols[name] = i
	}
	humanCol := t.column("human")
	type story struct {
		id       int
		line     int // first row
		prompt   string
		text     string
		model    string
		human    string
		sums     []float64 // per criterion
		n        int       // raters
		ctxIndex int
	}
	var stories []*story
	byID := map[int]*story{}
	type group struct {
		minID   int
		stories []*story
	}
	var groups []*group
	byPrompt := map[string]*group{}
	for {
		rec, err := t.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		rawID := strings.TrimSpace(rec[cols["story id"]])
		id, err := strconv.Atoi(rawID)
		if err != nil || id < 0 {
			return nil, t.errAt(cols["story id"], "Story ID", "want a non-negative integer, got %s", model.Quote(rawID))
		}
		prompt, text, system := rec[cols["prompt"]], rec[cols["story"]], strings.TrimSpace(rec[cols["model"]])
		if system == "" {
			return nil, t.errAt(cols["model"], "Model", "empty")
		}
		if strings.TrimSpace(prompt) == "" {
			return nil, t.errAt(cols["prompt"], "Prompt", "empty")
		}
		s, ok := byID[id]
		if !ok {
			s = &story{id: id, line: t.line(), prompt: prompt, text: text, model: system, sums: make([]float64, len(HANNACriteria))}
			if humanCol >= 0 {
				s.human = rec[humanCol]
			}
			byID[id] = s
			stories = append(stories, s)
			g, ok := byPrompt[prompt]
			if !ok {
				g = &group{minID: id}
				byPrompt[prompt] = g
				groups = append(groups, g)
			}
			for _, o := range g.stories {
				if o.model == system {
					return nil, t.errAt(cols["model"], "Model", "story %d is a second story by %s for the prompt of story %d (on line %d)", id, model.Quote(system), o.id, o.line)
				}
			}
			g.minID = min(g.minID, id)
			g.stories = append(g.stories, s)
		} else {
			for _, f := range []struct {
				col       string
				got, want string
			}{{"prompt", prompt, s.prompt}, {"story", text, s.text}, {"model", system, s.model}} {
				if f.got != f.want {
					return nil, t.errAt(cols[f.col], t.header[cols[f.col]], "differs from the first row of story %d (on line %d)", id, s.line)
				}
			}
		}
		for k, name := range HANNACriteria {
			i := cols[name]
			v, err := parseCell(t, i, rec[i])
			if err != nil {
				return nil, err
			}
			s.sums[k] += v
		}
		s.n++
	}
	if len(stories) == 0 {
		return nil, &ParseError{File: loc.name, Msg: "no rows after the header"}
	}
	b := newBuilder(baseName(loc.name), FormatHANNA, model.TaskStory, model.MetricSpearman)
	for _, name := range HANNACriteria {
		b.criterion(name)
	}
	for _, g := range groups {
		ci, _ := b.context(fmt.Sprintf("p%d", g.minID))
		ctx := &b.d.Contexts[ci]
		ctx.Source = g.stories[0].prompt
		if h := g.stories[0].human; h != "" {
			setExtra(&ctx.Extra, "human_story", h)
		}
		for _, s := range g.stories {
			c := model.Candidate{ID: s.model, Text: s.text, Scores: make(map[string]float64, len(HANNACriteria))}
			total := 0.0
			for k, name := range HANNACriteria {
				c.Scores[name] = s.sums[k] / float64(s.n)
				total += s.sums[k]
			}
			c.Human = total / float64(s.n*len(HANNACriteria))
			if !finite(total) {
				return nil, &ParseError{File: loc.name, Line: s.line, Field: "Story ID", Msg: sprintf("story %d: scores too large to average", s.id)}
			}
			setExtra(&c.Extra, "story_id", strconv.Itoa(s.id))
			setExtra(&c.Extra, "raters", strconv.Itoa(s.n))
			b.addCandidate(ci, c)
		}
	}
	return b.d, nil
}
