package batchapi

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/judge/anthropic"
	"github.com/prism-eval/prism/judge/openai"
)

// anthropicBatches is Anthropic's Message Batches API: POST
// /v1/messages/batches with the requests inline, GET
// /v1/messages/batches/{id}, GET /v1/messages/batches/{id}/results.
type anthropicBatches struct {
	api  sdk.Client
	key  string
	base string
}

func newAnthropic(cfg judge.Config, opts []openai.Option) *anthropicBatches {
	base := strings.TrimRight(cfg.BaseURL, "/")
	if base == "" {
		base = anthropic.DefaultBaseURL
	}
	// The SDK's own retries are off: the retry layer below it retries.
	api := sdk.NewClient(option.WithAPIKey(string(cfg.APIKey)), option.WithBaseURL(base),
		option.WithHTTPClient(&http.Client{Transport: openai.NewTransport(cfg, opts...)}), option.WithMaxRetries(0))
	return &anthropicBatches{api: api, key: string(cfg.APIKey), base: base}
}

func (a *anthropicBatches) Name() string     { return ProviderAnthropic }
func (a *anthropicBatches) Endpoint() string { return endpoint(a.base) }

// Submit creates a batch of the file's lines (each {"custom_id",
// "params"}, an element of the create call's requests), sent once
// (openai.SendOnce). The body is the lines as exported, so the params
// the SDK's types lack (temperature, top_p) go as they are.
func (a *anthropicBatches) Submit(ctx context.Context, in Input) (Status, error) {
	var body bytes.Buffer
	body.WriteString(`{"requests":[`)
	n := 0
	for _, l := range bytes.Split(in.Data, []byte("\n")) {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		if n > 0 {
			body.WriteByte(',')
		}
		body.Write(l)
		n++
	}
	body.WriteString("]}")
	cctx, stats := openai.TrackCall(openai.SendOnce(ctx))
	b, err := a.api.Messages.Batches.New(cctx, sdk.MessageBatchNewParams{}, option.WithRequestBody("application/json", body.Bytes()))
	if err != nil {
		return Status{}, createError(ctx, "create message batch", a.key, err, stats())
	}
	return anthropicStatus(b), nil
}

func (a *anthropicBatches) Status(ctx context.Context, id string) (Status, error) {
	cctx, stats := openai.TrackCall(ctx)
	b, err := a.api.Messages.Batches.Get(cctx, id, sdk.MessageBatchGetParams{})
	if err != nil {
		return Status{}, classify(ctx, "message batch "+id, a.key, err, stats())
	}
	return anthropicStatus(b), nil
}

// Results streams the results JSONL back, each line as the server wrote
// it (prism's import reads them).
func (a *anthropicBatches) Results(ctx context.Context, st Status) ([]Result, error) {
	cctx, stats := openai.TrackCall(openai.RawReply(ctx))
	stream := a.api.Messages.Batches.ResultsStreaming(cctx, st.ID, sdk.MessageBatchResultsParams{})
	defer stream.Close()
	var buf bytes.Buffer
	for stream.Next() {
		buf.WriteString(stream.Current().RawJSON())
		buf.WriteByte('\n')
	}
	if err := stream.Err(); err != nil {
		return nil, classify(ctx, "results of "+st.ID, a.key, err, stats())
	}
	return []Result{{Name: fmt.Sprintf("message batch %s results", st.ID), Data: buf.Bytes()}}, nil
}

// Find cannot tell: a message batch carries no metadata to find a tag by.
func (a *anthropicBatches) Find(context.Context, string) (Status, bool, error) {
	return Status{}, false, nil
}

// anthropicStatus reads a message batch: in_progress and canceling wait,
// ended is done. Counts other than processing are zero until it ends.
func anthropicStatus(b *sdk.MessageBatch) Status {
	rc := b.RequestCounts
	c := Counts{Succeeded: int(rc.Succeeded), Errored: int(rc.Errored), Expired: int(rc.Expired),
		Canceled: int(rc.Canceled), Processing: int(rc.Processing)}
	c.Total = c.Succeeded + c.Errored + c.Expired + c.Canceled + c.Processing
	st := Status{ID: b.ID, Status: string(b.ProcessingStatus), Counts: c, Files: map[string]string{}}
	if b.ResultsURL != "" {
		st.Files["results_url"] = b.ResultsURL
	}
	switch b.ProcessingStatus {
	case "ended":
		st.Done = true
	case "canceling":
		st.Waiting = "the cancellation to finish"
	default:
		at := ""
		if !b.ExpiresAt.IsZero() {
			at = ", at the latest by " + b.ExpiresAt.UTC().Format("2006-01-02 15:04 UTC")
		}
		st.Waiting = fmt.Sprintf("Anthropic to process %d requests (results come when all have ended%s)", c.Processing, at)
	}
	return st
}
