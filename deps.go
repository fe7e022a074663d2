//go:build tools

package main

import (
	_ "charm.land/bubbles/v2/key"
	_ "charm.land/bubbletea/v2"
	_ "charm.land/lipgloss/v2"
	_ "github.com/BurntSushi/toml"
	_ "github.com/sashabaranov/go-openai"
	_ "gonum.org/v1/gonum/mat"
	_ "modernc.org/sqlite"
)
