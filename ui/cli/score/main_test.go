package score

import (
	"testing"

	"github.com/prism-eval/prism/ui/cli/internal/clitest"

	// The tests run whole command lines, across command groups.
	_ "github.com/prism-eval/prism/ui/cli/acquire"
	_ "github.com/prism-eval/prism/ui/cli/analysis"
	_ "github.com/prism-eval/prism/ui/cli/data"
)

func TestMain(m *testing.M) { clitest.Main(m) }
