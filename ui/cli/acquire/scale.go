package acquire

import (
	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

// rescaled applies --scale MIN-MAX to a copy of bank b's task prompt (the
// study's --task, else the dataset's task datasetTask): the scale, its
// anchors mapped onto it (banks.Bank.Rescale), so the same items can be
// scored on a second scale for prism diagnose resolution. The rescaled
// bank has its own hash: its answers are a study of their own. b is
// returned unchanged without --scale, or when it is nil (a rubric study,
// which refuses --scale). The snapshot's source gains " scale MIN–MAX".
func (s *studyFlags) rescaled(b *banks.Bank, source, datasetTask string) (*banks.Bank, string, error) {
	if s.scale == nil || *s.scale == "" {
		return b, source, nil
	}
	if b == nil {
		return nil, "", clikit.UsageErr(s.fs.UsageDoc, "--scale is for a bank study, not a rubric's")
	}
	lo, hi, err := banks.ParseScale(*s.scale)
	if err != nil {
		return nil, "", clikit.UsageErr(s.fs.UsageDoc, "--scale: %v", err)
	}
	task := *s.task
	if task == "" {
		task = datasetTask
	}
	c := b.Clone()
	if err := c.Rescale(task, lo, hi); err != nil {
		return nil, "", err
	}
	return c, source + " scale " + c.Tasks[task].Scale.Range(), nil
}
