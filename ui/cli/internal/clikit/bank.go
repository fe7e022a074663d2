package clikit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
)

// WorkspaceBanks lists the bank snapshots stored in the workspace (not the
// rubric snapshots), or none when the workspace file does not exist
// (listing never creates one).
func WorkspaceBanks(ctx context.Context, fs WorkspaceFlags) ([]store.BankSnapshot, string, error) {
	path := *fs.Workspace
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, path, nil
	}
	s, err := OpenWorkspaceRO(ctx, path)
	if err != nil {
		return nil, path, err
	}
	defer s.Close()
	all, err := s.Banks(ctx)
	// Rubric snapshots share the table (docs/rubrics.md) but are no bank.
	snaps := all[:0]
	for _, b := range all {
		if !b.IsRubric() {
			snaps = append(snaps, b)
		}
	}
	return snaps, path, err
}

// ResolveBank finds BANK: a built-in name, a file, or a workspace hash
// prefix (see bankUsage). file is the embedded file of a built-in bank
// or the bytes read, so export can copy it with its comments.
func ResolveBank(ctx context.Context, ref string, fs WorkspaceFlags) (b *banks.Bank, file []byte, err error) {
	looksLikeFile := strings.ContainsRune(ref, '/') || strings.ContainsRune(ref, filepath.Separator) || strings.HasSuffix(ref, ".toml")
	if !looksLikeFile {
		if b, err := banks.Builtin(ref); err == nil {
			file, err := banks.BuiltinFile(ref)
			return b, file, err
		}
	}
	if data, err := banks.ReadFile(ref); err == nil {
		b, err := banks.Parse(data, ref)
		return b, data, err
	} else if looksLikeFile || model.IsSizeError(err) {
		return nil, nil, err
	}
	if isHexPrefix(ref) {
		snaps, wsPath, err := WorkspaceBanks(ctx, fs)
		if err != nil {
			return nil, nil, err
		}
		var found []store.BankSnapshot
		for _, s := range snaps {
			if strings.HasPrefix(s.Hash, strings.ToLower(ref)) {
				found = append(found, s)
			}
		}
		switch len(found) {
		case 1:
			b, err := banks.Parse([]byte(found[0].Text), wsPath+": bank "+model.ShortHash(found[0].Hash))
			return b, []byte(found[0].Text), err
		case 0:
		default:
			return nil, nil, fmt.Errorf("hash prefix %q matches %d banks in %s; give more digits", ref, len(found), wsPath)
		}
	}
	names := make([]string, 0)
	for _, b := range banks.Builtins() {
		names = append(names, b.Name)
	}
	return nil, nil, fmt.Errorf("no bank %q: not a built-in bank (%s), a file, or a bank hash in the workspace", ref, strings.Join(names, ", "))
}

func isHexPrefix(s string) bool {
	if len(s) < 6 || len(s) > 64 {
		return false
	}
	for _, r := range strings.ToLower(s) {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return false
		}
	}
	return true
}
