package banks

import (
	"fmt"

	"github.com/prism-eval/prism/model"
)

// Sample returns a small made-up context for a task kind, with two
// candidates, used to show a bank's exact requests (`prism bank show
// --render`) and by the golden tests. The texts were written for prism.
func Sample(task string) (model.Context, error) {
	c, ok := samples[task]
	if !ok {
		return model.Context{}, fmt.Errorf("banks: no sample context for task %q", task)
	}
	out := c
	out.Candidates = append([]model.Candidate(nil), c.Candidates...)
	if c.Extra != nil {
		out.Extra = map[string]string{}
		for k, v := range c.Extra {
			out.Extra[k] = v
		}
	}
	return out, nil
}

var samples = map[string]model.Context{
	model.TaskNewsSummary: {
		ID: "sample-news",
		Source: "The town council of Harbor Point voted on Tuesday to keep the public library open until 9 p.m. on weekdays from next month. " +
			"A grant of 48,000 dollars from the Coastal Reading Trust pays for two part-time staff for one year. " +
			"Head librarian Ines Okafor said students and shift workers had asked for later hours for years.",
		Candidates: []model.Candidate{
			{ID: "s1", Text: "Harbor Point's library will open until 9 p.m. on weekdays, paid for by a 48,000-dollar grant that funds two part-time staff for a year."},
			{ID: "s2", Text: "The council met on Tuesday."},
		},
	},
	model.TaskStory: {
		ID:     "sample-story",
		Source: "A lighthouse keeper finds a letter addressed to her, dated fifty years in the future.",
		Candidates: []model.Candidate{
			{ID: "t1", Text: "Mara found the envelope wedged behind the lamp. The stamp showed a ship she had never seen, and the date read 2076. Inside, in her own handwriting, was one line: \"Keep the light on the night of the storm.\""},
			{ID: "t2", Text: "There was a letter. It was from the future. She read it and then she went to sleep."},
		},
	},
	model.TaskDialogue: {
		ID:     "sample-dialogue",
		Source: "A: do you like jazz?\nB: i do, mostly the older records. do you play anything?\nA: a little piano, nothing serious.",
		Extra:  map[string]string{"knowledge": "Thelonious Monk taught himself to read music while listening to his sister's piano lessons."},
		Candidates: []model.Candidate{
			{ID: "r1", Text: "Piano is a great start! Did you know Thelonious Monk picked up reading music by listening in on his sister's lessons?"},
			{ID: "r2", Text: "ok."},
		},
	},
	model.TaskAnswer: {
		ID:     "sample-answer",
		Source: "What is the sum of the first 10 positive odd numbers?",
		Candidates: []model.Candidate{
			{ID: "a1", Text: "The first n odd numbers sum to n², so the answer is 10² = 100."},
			{ID: "a2", Text: "Adding them gives 1 + 3 + 5 + … + 19 = 90."},
		},
	},
	model.TaskGeneric: {
		ID:     "sample-generic",
		Source: "Explain in two sentences why the sky looks blue.",
		Candidates: []model.Candidate{
			{ID: "g1", Text: "Air molecules scatter short blue wavelengths of sunlight much more strongly than long red ones. That scattered blue light reaches our eyes from every direction of the sky."},
			{ID: "g2", Text: "Because it reflects the ocean."},
		},
	},
}
