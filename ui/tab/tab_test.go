package tab

import (
	"testing"

	tea "charm.land/bubbletea/v2"
)

func TestBatchAndSend(t *testing.T) {
	if Batch(nil, nil) != nil {
		t.Error("a batch of nil commands is not nil")
	}
	one := Send(OpenMsg{Tab: Fit})
	if msg, ok := Batch(nil, one)().(OpenMsg); !ok || msg.Tab != Fit {
		t.Errorf("a batch of one command is not it: %#v", msg)
	}
	if _, ok := Batch(one, Send(QuitMsg{}))().(tea.BatchMsg); !ok {
		t.Error("two commands are not batched")
	}
}

func TestIDs(t *testing.T) {
	if Count != 8 || Data.String() != "Data" || Compare.String() != "Compare" || Count.String() != "tab?" {
		t.Errorf("tabs %d: %s … %s, %s", Count, Data, Compare, Count)
	}
	for id := range Count {
		if ShortNames[id] == "" || len(ShortNames[id]) > len(Names[id]) {
			t.Errorf("tab %d: short name %q of %q", id, ShortNames[id], Names[id])
		}
	}
}
