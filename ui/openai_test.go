package ui

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	runtab "github.com/prism-eval/prism/ui/tabs/run"

	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/model/datasets"
	"github.com/prism-eval/prism/ui/widgets"
)

// A run against an OpenAI-compatible server configured in the form: the
// key comes from the variable the form names, reaches the server, and is
// nowhere in the frame or the workspace files.
func TestRunOpenAIFromForm(t *testing.T) {
	const key = "sk-uitest-0123456789abcdef"
	t.Setenv("PRISM_UI_TEST_KEY", key)
	var mu sync.Mutex
	auth := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth[r.Header.Get("Authorization")]++
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"c1","object":"chat.completion","created":1,"model":"test-model",`+
			`"choices":[{"index":0,"message":{"role":"assistant","content":"{\"score\": 6}"},"finish_reason":"stop"}],`+
			`"usage":{"prompt_tokens":100,"completion_tokens":6,"total_tokens":106}}`)
	}))
	defer srv.Close()

	s := demoStudy(t)
	small := *datasets.Demo()
	small.Name, small.Contexts = "small", small.Contexts[:2]
	if err := s.Store.PutDataset(context.Background(), &small, false); err != nil {
		t.Fatal(err)
	}
	s.Dataset = &small
	a := New(s)
	a.Update(tea.WindowSizeMsg{Width: 120, Height: 36})
	drive(a, a.Init())
	press(a, "3", "enter") // backend → openai
	for _, f := range []struct{ key, val string }{{runtab.FieldModel, "test-model"}, {runtab.FieldBaseURL, srv.URL + "/v1"}, {runtab.FieldKeyEnv, "PRISM_UI_TEST_KEY"}} {
		for a.run.Field() != f.key {
			press(a, "down")
		}
		press(a, "enter", "ctrl+u")
		typeText(a, f.val)
		press(a, "enter")
	}
	if a.run.Plan() == nil {
		t.Fatalf("no estimate: %v", a.run.PlanErr())
	}
	if f := frame(a); !strings.Contains(f, `no price for "test-model"`) {
		t.Errorf("the estimate does not say the model is unpriced:\n%s", f)
	}
	want := 10 * len(a.bank.Conditions())
	press(a, "s")
	lr := a.run.Live()
	if lr.Phase() != runtab.PhaseDone || lr.Err() != nil || (*lr.Progress()).Answered != want {
		t.Fatalf("run: phase %d err %v answered %d, want %d", lr.Phase(), lr.Err(), (*lr.Progress()).Answered, want)
	}
	if auth["Bearer "+key] != want || len(auth) != 1 {
		t.Errorf("server saw Authorization %v, want %d × the key", auth, want)
	}
	f := frame(a)
	if !strings.Contains(f, fmt.Sprintf("tokens %s in", widgets.HumanCount(int64(100*want)))) {
		t.Errorf("progress does not show the tokens used:\n%s", f)
	}
	if strings.Contains(f, key) {
		t.Error("the key is on screen")
	}
	// Nothing written holds the key: the workspace, its WAL and shm.
	files, _ := filepath.Glob(s.Store.Path() + "*")
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(data, []byte(key)) {
			t.Errorf("%s holds the API key", p)
		}
	}
	if len(files) == 0 {
		t.Fatal("no workspace files found")
	}
}
