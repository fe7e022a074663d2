// Command fakejudge serves openaitest's OpenAI-compatible server for
// whole-process measurements of prism run (docs/performance.md): it prints
// its base URL, and on SIGINT or SIGTERM the requests it answered, the
// connections clients opened and its own CPU time.
//
//	go run ./judge/openai/openaitest/fakejudge -addr 127.0.0.1:18080 -latency 20ms
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/prism-eval/prism/judge/openai/openaitest"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	latency := flag.Duration("latency", 20*time.Millisecond, "time before each answer")
	flag.Parse()
	if err := openaitest.Serve(*addr, *latency, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "fakejudge:", err)
		os.Exit(1)
	}
}
