package banks

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/prism-eval/prism/model"
)

// PromptFileNames are the file names LoadPrompts tries for a criterion, in
// order: NAME.txt, then the official G-Eval release's naming, the name's
// first three letters and "_detailed.txt" (coherence → coh_detailed.txt,
// consistency → con_detailed.txt, fluency → flu_detailed.txt, relevance →
// rel_detailed.txt).
func PromptFileNames(criterion string) []string {
	out := []string{criterion + ".txt"}
	if len(criterion) >= 3 {
		out = append(out, criterion[:3]+"_detailed.txt")
	}
	return out
}

// LoadPrompts returns a copy of a G-Eval rubric whose every criterion's
// Template is read from a prompt file in dir (`--prompts DIR`): one text
// file per criterion, found under the first of PromptFileNames that
// exists, holding {{Summary}} (the candidate) and optionally
// {{Document}} (the source), as the official G-Eval prompt files do. The
// text is kept verbatim. The copy's hash covers the templates, so answers
// to official prompts are never mixed with answers to the built-in ones.
// Other files in dir are ignored. Errors name every criterion without a
// file and every file that is not a valid template.
func (r *Rubric) LoadPrompts(dir string) (*Rubric, error) {
	if r.Kind != RubricGEval {
		return nil, fmt.Errorf("banks: rubric %q is %s; prompt files are for G-Eval rubrics", r.Name, r.Kind)
	}
	if st, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("banks: prompt directory: %w", err)
	} else if !st.IsDir() {
		return nil, fmt.Errorf("banks: prompt directory %s is not a directory", dir)
	}
	out := r.Clone()
	var errs []error
	for i := range out.Criteria {
		c := &out.Criteria[i]
		names := PromptFileNames(c.Name)
		found := false
		for _, n := range names {
			p := filepath.Join(dir, n)
			data, err := model.ReadFileLimited(p, MaxFileSize, "a prompt file")
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			found = true
			if err != nil {
				errs = append(errs, err)
				break
			}
			text := string(data)
			if strings.TrimSpace(text) == "" {
				errs = append(errs, fmt.Errorf("%s: empty prompt file", p))
			} else if msg := checkTemplate(text); msg != "" {
				errs = append(errs, fmt.Errorf("%s: %s", p, msg))
			}
			c.Template = text
			break
		}
		if !found {
			errs = append(errs, fmt.Errorf("banks: no prompt file for criterion %q in %s (tried %s)", c.Name, dir, strings.Join(names, ", ")))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if err := out.Validate(); err != nil {
		return nil, err
	}
	return out, nil
}
