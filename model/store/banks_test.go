package store

import (
	"context"
	"strings"
	"testing"
)

func TestBankSnapshots(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	b := BankSnapshot{Hash: "abc123", Name: "quality", Source: "builtin:quality", Text: "name = \"quality\"\n"}
	if err := s.PutBank(ctx, b); err != nil {
		t.Fatal(err)
	}
	if err := s.PutBank(ctx, b); err != nil {
		t.Fatalf("storing the same snapshot twice: %v", err)
	}
	changed := b
	changed.Text += "# edited\n"
	if err := s.PutBank(ctx, changed); err == nil || !strings.Contains(err.Error(), "different text") {
		t.Fatalf("a different text under one hash: err = %v", err)
	}
	got, err := s.Bank(ctx, "abc123")
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != b.Text || got.Name != b.Name || got.Source != b.Source || got.Created.IsZero() {
		t.Fatalf("Bank = %+v, want %+v", got, b)
	}
	all, err := s.Banks(ctx)
	if err != nil || len(all) != 1 {
		t.Fatalf("Banks = %v, %v", all, err)
	}
	if err := s.PutBank(ctx, BankSnapshot{Text: "x"}); err == nil {
		t.Error("snapshot without hash accepted")
	}
}
