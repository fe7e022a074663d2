package cli

import (
	"testing"

	"github.com/prism-eval/prism/ui/cli/internal/clitest"
)

func TestMain(m *testing.M) { clitest.Main(m) }
