package datasets_test

import (
	"fmt"
	"strings"

	"github.com/prism-eval/prism/model/datasets"
)

func ExampleRead() {
	src := `{"context": "doc1", "candidate": "A", "source": "The full article.", "text": "A short summary.", "human": 4}
{"context": "doc1", "candidate": "B", "text": "A worse summary.", "human": 2, "system": "baseline"}
`
	// "system" is an alias of "candidate", so line 2 names its candidate twice.
	_, err := datasets.Read("jsonl", strings.NewReader(src), "scores.jsonl")
	fmt.Println(err)

	src = strings.Replace(src, `"system"`, `"origin"`, 1)
	d, err := datasets.Read("jsonl", strings.NewReader(src), "scores.jsonl")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range d.Contexts {
		for _, x := range c.Candidates {
			fmt.Printf("%s/%s human=%g extra=%v\n", c.ID, x.ID, x.Human, x.Extra)
		}
	}
	// Output:
	// scores.jsonl:2:89: system: gives the candidate again (already given as "candidate")
	// doc1/A human=4 extra=map[]
	// doc1/B human=2 extra=map[origin:baseline]
}

func ExampleDemo() {
	d := datasets.Demo()
	fmt.Println(d.Name, d.Task, len(d.Contexts), d.NumCandidates(), d.Criteria)
	// Output: demo news-summary 12 60 [coherence consistency fluency relevance]
}

func ExampleLoad() {
	d, err := datasets.Load("hanna", "testdata/hanna_stories_annotations.csv")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range d.Contexts {
		for _, x := range c.Candidates {
			fmt.Printf("%s %-14s story %-3s raters %s human %.4f\n", c.ID, x.ID, x.Extra["story_id"], x.Extra["raters"], x.Human)
		}
	}
	// Human = sum of the 3 raters' 6 scores / 18, by hand from the
	// fixture: 74, 41, 67, 72, 31, 63 over 18.

	// Output:
	// p0 Human          story 0   raters 3 human 4.1111
	// p0 BertGeneration story 96  raters 3 human 2.2778
	// p0 GPT-2          story 192 raters 3 human 3.7222
	// p1 Human          story 1   raters 3 human 4.0000
	// p1 BertGeneration story 97  raters 3 human 1.7222
	// p1 GPT-2          story 193 raters 3 human 3.5000
}
