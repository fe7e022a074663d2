package store

import (
	"context"
	"encoding/json"
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

func TestReports(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	body := json.RawMessage(`{"methods":{"prism":{"spearman":0.41}}}`)
	id1, err := s.PutReport(ctx, Report{Kind: "fit", Dataset: "summeval", Judge: "j", BankHash: "h", Body: body})
	if err != nil {
		t.Fatal(err)
	}
	id2, err := s.PutReport(ctx, Report{Kind: "fit", Dataset: "hanna", Judge: "j", Body: json.RawMessage(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Report(ctx, id1)
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Body) != string(body) || got.Dataset != "summeval" || got.BankHash != "h" || got.Created.IsZero() {
		t.Fatalf("Report = %+v", got)
	}
	list, err := s.Reports(ctx, "summeval")
	if err != nil || len(list) != 1 || list[0].ID != id1 {
		t.Fatalf("Reports(summeval) = %+v, %v", list, err)
	}
	list, err = s.Reports(ctx, "")
	if err != nil || len(list) != 2 || list[0].ID != id2 {
		t.Fatalf("Reports() = %+v, %v; want both, newest first", list, err)
	}
	if _, err := s.PutReport(ctx, Report{Kind: "fit", Body: json.RawMessage(`{broken`)}); err == nil {
		t.Error("invalid JSON body accepted")
	}
}
