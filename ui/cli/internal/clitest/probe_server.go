package clitest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/prism-eval/prism/banks"
)

// ProbeServer is an OpenAI-compatible server that answers every request
// and counts them per probe, read from the system message: the bank's
// instructions are appended to its system text.
type ProbeServer struct {
	*httptest.Server
	Mu       sync.Mutex
	perProbe map[string]int
	PerID    map[string]int
	n        int
	// after, when set, is closed once n reaches afterN.
	AfterN int
	After  chan struct{}
}

func NewProbeServer(t *testing.T, b *banks.Bank) *ProbeServer {
	s := &ProbeServer{perProbe: map[string]int{}, PerID: map[string]int{}}
	type instr struct{ probe, text string }
	var ins []instr
	for _, c := range b.Conditions() {
		if c.Instruction != "" {
			ins = append(ins, instr{c.Probe, c.Instruction})
		}
	}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Messages []struct{ Role, Content string } `json:"messages"`
		}
		_ = json.Unmarshal(body, &req)
		probe := "baseline"
		for _, m := range req.Messages {
			if m.Role != "system" {
				continue
			}
			for _, in := range ins {
				if strings.Contains(m.Content, in.text) {
					probe = in.probe
				}
			}
		}
		id := RequestIdentity(body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, Completion(fmt.Sprintf(`{"score": %d}`, 1+int(id[1])%10)))
		s.Mu.Lock()
		s.perProbe[probe]++
		s.PerID[id]++
		s.n++
		if s.After != nil && s.n == s.AfterN {
			close(s.After)
		}
		s.Mu.Unlock()
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *ProbeServer) Counts() (perProbe map[string]int, n int) {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	out := map[string]int{}
	for k, v := range s.perProbe {
		out[k] = v
	}
	return out, s.n
}

// ServerStudy writes a two-attribute, one-neutral bank and two JSONL
// datasets (train: 6 contexts × 4 candidates, labelled; fresh: nctx
// contexts × 3 candidates with other texts), imports both, answers train
// through srv with the bank and saves a calibrator on one attribute.
func ServerStudy(t *testing.T, nctx int) (ws, cal string, b *banks.Bank, srv *ProbeServer) {
	t.Helper()
	b = smallBank(t)
	srv = NewProbeServer(t, b)
	ws, cal = ServerStudyAt(t, nctx, srv.URL)
	if _, n := srv.Counts(); n != 24*10 {
		t.Fatalf("training run: the server saw %d requests, want 240", n)
	}
	return ws, cal, b, srv
}

// smallBank is the quality bank cut to coverage and coherence and one
// neutral clause: 10 conditions.
func smallBank(t *testing.T) *banks.Bank {
	t.Helper()
	b, err := banks.Builtin("quality")
	if err != nil {
		t.Fatal(err)
	}
	b.Name = "small"
	b.Attributes = b.Attributes[2:4] // coverage, coherence
	b.Neutrals = b.Neutrals[:1]
	text, err := b.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if b, err = banks.Parse(text, "small.toml"); err != nil {
		t.Fatal(err)
	}
	return b
}

// ServerStudyAt is serverStudy against the server at url.
func ServerStudyAt(t *testing.T, nctx int, url string) (ws, cal string) {
	t.Helper()
	dir := t.TempDir()
	text, err := smallBank(t).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	bankFile := filepath.Join(dir, "small.toml")
	if err := os.WriteFile(bankFile, text, 0o644); err != nil {
		t.Fatal(err)
	}
	dataset := func(name string, contexts, cands int, salt string) string {
		var sb strings.Builder
		for c := range contexts {
			for k := range cands {
				fmt.Fprintf(&sb, `{"context": "%s%d", "candidate": "s%d", "task": "news-summary", "source": "Article %s%d: the council voted %d to 2 to build a bridge.", "text": "Summary %d of article %d (%s) says %d.", "human": %d}`+"\n",
					salt, c, k, salt, c, c+3, k, c, salt, 9-k, (3*c+5*k)%7)
			}
		}
		p := filepath.Join(dir, name+".jsonl")
		if err := os.WriteFile(p, []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ws = filepath.Join(dir, "ws.db")
	MustRun(t, "data", "import", "jsonl", dataset("train", 6, 4, "t"), "--name", "train", "--workspace", ws)
	MustRun(t, "data", "import", "jsonl", dataset("fresh", nctx, 3, "f"), "--name", "fresh", "--workspace", ws)
	MustRun(t, "run", "--workspace", ws, "--dataset", "train", "--bank", bankFile, "--backend", "openai", "--model", "m",
		"--base-url", url+"/v1", "--response-format", "none", "--retries", "0")
	cal = filepath.Join(dir, "cal.json")
	MustRun(t, "fit", "--workspace", ws, "--dataset", "train", "--judge", "m", "--bootstrap", "20", "--attributes", "coverage", "--save", cal)
	return ws, cal
}
