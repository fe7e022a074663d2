package cli

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/prism-eval/prism/ui/cli/internal/clikit"
)

func init() {
	clikit.Register("completion", "print a shell completion script (completion bash|zsh|fish)", runCompletion)
	clikit.RegisterArgs("completion", func() []string { return shells })
	clikit.RegisterHidden("__complete", runComplete)
}

const completionUsage = `prism completion bash|zsh|fish

Prints a script that completes prism's commands, subcommands and flags in
the shell. The script asks prism itself (the hidden prism __complete), so
it knows this binary's commands and flags. To load it:

  bash:  source <(prism completion bash)     (in ~/.bashrc)
  zsh:   source <(prism completion zsh)      (in ~/.zshrc, after compinit)
  fish:  prism completion fish > ~/.config/fish/completions/prism.fish`

var shells = []string{"bash", "zsh", "fish"}

func runCompletion(_ context.Context, args []string, stdout, _ io.Writer) error {
	fs := clikit.NewFlags("prism completion", completionUsage)
	pos, help, err := fs.ParseArgs(args, stdout)
	if err != nil || help {
		return err
	}
	if len(pos) != 1 || !slices.Contains(shells, pos[0]) {
		return clikit.UsageErr(completionUsage, "want one shell: bash, zsh or fish")
	}
	_, err = io.WriteString(stdout, completionScripts[pos[0]])
	return err
}

// runComplete is prism __complete WORD…: the candidates for the last word
// (the one being typed, "" for a new one), one a line. It parses no flags:
// its arguments are the command line being completed.
func runComplete(ctx context.Context, args []string, stdout, _ io.Writer) error {
	for _, c := range clikit.Complete(ctx, args) {
		if _, err := fmt.Fprintln(stdout, c); err != nil {
			return err
		}
	}
	return nil
}

// completionScripts call prism __complete with the words up to the cursor
// and fall back to file names when it offers nothing (a flag's value, a
// file argument).
var completionScripts = map[string]string{
	"bash": `# bash completion for prism (prism completion bash)
_prism() {
    local IFS=$'\n'
    COMPREPLY=($(prism __complete "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null))
}
complete -o default -F _prism prism
`,
	"zsh": `#compdef prism
# zsh completion for prism (prism completion zsh)
_prism() {
    local -a cands
    cands=("${(@f)$(prism __complete "${(@)words[2,CURRENT]}" 2>/dev/null)}")
    if [[ -n "${cands[1]}" ]]; then
        compadd -- "${cands[@]}"
    else
        _files
    fi
}
if [ "$funcstack[1]" = "_prism" ]; then
    _prism "$@"
else
    compdef _prism prism
fi
`,
	"fish": `# fish completion for prism (prism completion fish)
function __prism_complete
    set -l words (commandline -opc)
    set -e words[1]
    set -l cur (commandline -ct)
    set -l cands (prism __complete $words "$cur" 2>/dev/null)
    if test (count $cands) -gt 0
        printf '%s\n' $cands
    else
        __fish_complete_path (commandline -ct)
    end
end
complete -c prism -f -a '(__prism_complete)'
`,
}
