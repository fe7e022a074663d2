package datasets

import (
	"fmt"
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
	r, err := newHANNAReader(t)
	if err != nil {
		return nil, err
	}
	if err := t.each(r.row); err != nil {
		return nil, err
	}
	if len(r.byID) == 0 {
		return nil, &ParseError{File: loc.name, Msg: "no rows after the header"}
	}
	return hannaDataset(loc, r.groups)
}

// hannaStory is one Story ID: its first row's texts and the sums of its
// raters' ratings.
type hannaStory struct {
	id     int
	line   int // first row
	prompt string
	text   string
	model  string
	human  string
	sums   []float64 // per criterion
	n      int       // raters
}

// hannaGroup is the stories of one prompt, a context.
type hannaGroup struct {
	minID   int
	stories []*hannaStory
}

// hannaReader gathers the rows of hanna_stories_annotations.csv into
// stories and the stories into prompts, in file order.
type hannaReader struct {
	t        *csvSheet
	cols     map[string]int
	humanCol int // -1: no Human column
	byID     map[int]*hannaStory
	groups   []*hannaGroup
	byPrompt map[string]*hannaGroup
}

func newHANNAReader(t *csvSheet) (*hannaReader, error) {
	cols := map[string]int{}
	for _, name := range append([]string{"story id", "prompt", "story", "model"}, HANNACriteria...) {
		i := t.column(name)
		if i < 0 {
			return nil, t.errAt(0, name, "missing column (want the header of hanna_stories_annotations.csv)")
		}
		cols[name] = i
	}
	return &hannaReader{t: t, cols: cols, humanCol: t.column("human"), byID: map[int]*hannaStory{}, byPrompt: map[string]*hannaGroup{}}, nil
}

// row adds one rater's row to its story.
func (r *hannaReader) row(rec []string) error {
	t, cols := r.t, r.cols
	rawID := strings.TrimSpace(rec[cols["story id"]])
	id, err := strconv.Atoi(rawID)
	if err != nil || id < 0 {
		return t.errAt(cols["story id"], "Story ID", "want a non-negative integer, got %s", model.Quote(rawID))
	}
	prompt, text, system := rec[cols["prompt"]], rec[cols["story"]], strings.TrimSpace(rec[cols["model"]])
	if system == "" {
		return t.errAt(cols["model"], "Model", "empty")
	}
	if strings.TrimSpace(prompt) == "" {
		return t.errAt(cols["prompt"], "Prompt", "empty")
	}
	s, ok := r.byID[id]
	if !ok {
		if s, err = r.newStory(rec, id, prompt, text, system); err != nil {
			return err
		}
	} else if err := r.sameStory(s, prompt, text, system); err != nil {
		return err
	}
	for k, name := range HANNACriteria {
		i := cols[name]
		v, err := parseCell(t, i, rec[i])
		if err != nil {
			return err
		}
		s.sums[k] += v
	}
	s.n++
	return nil
}

// newStory starts story id at the current row and adds it to its
// prompt's group; a prompt has one story per model.
func (r *hannaReader) newStory(rec []string, id int, prompt, text, system string) (*hannaStory, error) {
	s := &hannaStory{id: id, line: r.t.line(), prompt: prompt, text: text, model: system, sums: make([]float64, len(HANNACriteria))}
	if r.humanCol >= 0 {
		s.human = rec[r.humanCol]
	}
	r.byID[id] = s
	g, ok := r.byPrompt[prompt]
	if !ok {
		g = &hannaGroup{minID: id}
		r.byPrompt[prompt] = g
		r.groups = append(r.groups, g)
	}
	for _, o := range g.stories {
		if o.model == system {
			return nil, r.t.errAt(r.cols["model"], "Model", "story %d is a second story by %s for the prompt of story %d (on line %d)", id, model.Quote(system), o.id, o.line)
		}
	}
	g.minID = min(g.minID, id)
	g.stories = append(g.stories, s)
	return s, nil
}

// sameStory checks that a later row of story s repeats its first row's
// prompt, story and model.
func (r *hannaReader) sameStory(s *hannaStory, prompt, text, system string) error {
	for _, f := range []struct {
		col       string
		got, want string
	}{{"prompt", prompt, s.prompt}, {"story", text, s.text}, {"model", system, s.model}} {
		if f.got != f.want {
			return r.t.errAt(r.cols[f.col], r.t.header[r.cols[f.col]], "differs from the first row of story %d (on line %d)", s.id, s.line)
		}
	}
	return nil
}

// hannaDataset makes the dataset of the prompts' groups: a context a
// prompt, a candidate a story with its raters' mean ratings.
func hannaDataset(loc *locator, groups []*hannaGroup) (*model.Dataset, error) {
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
			c, err := hannaCandidate(loc, s)
			if err != nil {
				return nil, err
			}
			b.addCandidate(ci, c)
		}
	}
	return b.d, nil
}

// hannaCandidate is story s with each criterion the mean over raters and
// Human the mean over raters × criteria.
func hannaCandidate(loc *locator, s *hannaStory) (model.Candidate, error) {
	c := model.Candidate{ID: s.model, Text: s.text, Scores: make(map[string]float64, len(HANNACriteria))}
	total := 0.0
	for k, name := range HANNACriteria {
		c.Scores[name] = s.sums[k] / float64(s.n)
		total += s.sums[k]
	}
	c.Human = total / float64(s.n*len(HANNACriteria))
	if !finite(total) {
		return c, &ParseError{File: loc.name, Line: s.line, Field: "Story ID", Msg: sprintf("story %d: scores too large to average", s.id)}
	}
	setExtra(&c.Extra, "story_id", strconv.Itoa(s.id))
	setExtra(&c.Extra, "raters", strconv.Itoa(s.n))
	return c, nil
}
