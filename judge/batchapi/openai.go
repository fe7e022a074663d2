package batchapi

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/judge/openai"
)

// DefaultOpenAIBaseURL is where OpenAI's API is when base_url is unset.
const DefaultOpenAIBaseURL = "https://api.openai.com/v1"

// openAIBatches is OpenAI's Batch API: POST /v1/files (purpose batch),
// POST /v1/batches, GET /v1/batches/{id}, GET /v1/files/{id}/content.
type openAIBatches struct {
	api  *goopenai.Client
	key  string
	base string
}

func newOpenAI(cfg judge.Config, opts []openai.Option) *openAIBatches {
	base := strings.TrimRight(cfg.BaseURL, "/")
	if base == "" {
		base = DefaultOpenAIBaseURL
	}
	oc := goopenai.DefaultConfig(string(cfg.APIKey))
	oc.BaseURL = base
	oc.HTTPClient = &http.Client{Transport: openai.NewTransport(cfg, opts...)}
	return &openAIBatches{api: goopenai.NewClientWithConfig(oc), key: string(cfg.APIKey), base: base}
}

func (o *openAIBatches) Name() string     { return ProviderOpenAI }
func (o *openAIBatches) Endpoint() string { return endpoint(o.base) }

// Submit uploads the file and creates a batch on it (24 h window, the
// job's tag as metadata prism_job). A repeated upload leaves at most an
// unused file; the create call is sent once (openai.SendOnce).
func (o *openAIBatches) Submit(ctx context.Context, in Input) (Status, error) {
	cctx, stats := openai.TrackCall(ctx)
	f, err := o.api.CreateFileBytes(cctx, goopenai.FileBytesRequest{Name: in.Name, Bytes: in.Data, Purpose: goopenai.PurposeBatch})
	if err != nil {
		return Status{}, classify(ctx, "upload "+in.Name, o.key, err, stats())
	}
	cctx, stats = openai.TrackCall(openai.SendOnce(ctx))
	b, err := o.api.CreateBatch(cctx, goopenai.CreateBatchRequest{InputFileID: f.ID, Endpoint: goopenai.BatchEndpointChatCompletions,
		CompletionWindow: "24h", Metadata: map[string]any{"prism_job": in.Tag}})
	if err != nil {
		e := createError(ctx, "create batch on "+f.ID, o.key, err, stats())
		return Status{Files: map[string]string{"input_file_id": f.ID}}, e
	}
	st := openAIStatus(b.Batch)
	st.Files["input_file_id"] = f.ID
	return st, nil
}

func (o *openAIBatches) Status(ctx context.Context, id string) (Status, error) {
	cctx, stats := openai.TrackCall(ctx)
	b, err := o.api.RetrieveBatch(cctx, id)
	if err != nil {
		return Status{}, classify(ctx, "batch "+id, o.key, err, stats())
	}
	return openAIStatus(b.Batch), nil
}

// Results downloads the output file (answered requests) and the error
// file (failed and, in an expired batch, unrun ones), when there are.
func (o *openAIBatches) Results(ctx context.Context, st Status) ([]Result, error) {
	var out []Result
	for _, which := range []string{"output_file_id", "error_file_id"} {
		id := st.Files[which]
		if id == "" {
			continue
		}
		cctx, stats := openai.TrackCall(openai.RawReply(ctx))
		raw, err := o.api.GetFileContent(cctx, id)
		if err != nil {
			return nil, classify(ctx, "download "+id, o.key, err, stats())
		}
		data, err := io.ReadAll(raw)
		raw.Close()
		if err != nil {
			return nil, classify(ctx, "download "+id, o.key, err, stats())
		}
		out = append(out, Result{Name: fmt.Sprintf("batch %s %s %s", st.ID, strings.TrimSuffix(which, "_id"), id), Data: data})
	}
	return out, nil
}

// Find looks for the tag among the 100 latest batches.
func (o *openAIBatches) Find(ctx context.Context, tag string) (Status, bool, error) {
	limit := 100
	cctx, stats := openai.TrackCall(ctx)
	l, err := o.api.ListBatch(cctx, nil, &limit)
	if err != nil {
		return Status{}, false, classify(ctx, "list batches", o.key, err, stats())
	}
	for _, b := range l.Data {
		if v, _ := b.Metadata["prism_job"].(string); v == tag {
			st := openAIStatus(b)
			st.Files["input_file_id"] = b.InputFileID
			return st, true, nil
		}
	}
	return Status{}, false, nil
}

// openAIStatus reads a batch object. Its counts are total, completed and
// failed; an expired batch's requests neither completed nor failed are
// counted expired (its error file lists them as batch_expired).
func openAIStatus(b goopenai.Batch) Status {
	rc := b.RequestCounts
	st := Status{ID: b.ID, Status: b.Status, Files: map[string]string{},
		Counts: Counts{Total: rc.Total, Succeeded: rc.Completed, Errored: rc.Failed}}
	rest := max(0, rc.Total-rc.Completed-rc.Failed)
	if b.OutputFileID != nil && *b.OutputFileID != "" {
		st.Files["output_file_id"] = *b.OutputFileID
	}
	if b.ErrorFileID != nil && *b.ErrorFileID != "" {
		st.Files["error_file_id"] = *b.ErrorFileID
	}
	switch b.Status {
	case "completed":
		st.Done = true
	case "expired":
		st.Done, st.Counts.Expired = true, rest
	case "cancelled":
		st.Done, st.Counts.Canceled = true, rest
	case "failed":
		st.Done, st.Failed = true, true
		st.Reason = "OpenAI refused the input file"
		if b.Errors != nil {
			var why []string
			for _, d := range b.Errors.Data {
				w := d.Message
				if d.Line != nil {
					w = fmt.Sprintf("line %d: %s", *d.Line, w)
				}
				why = append(why, w)
			}
			if len(why) > 0 {
				st.Reason += ": " + judge.SanitizeServerText(strings.Join(why, "; "))
			}
		}
	case "validating":
		st.Counts.Processing = rest
		st.Waiting = "OpenAI to validate the input file"
	case "finalizing":
		st.Counts.Processing = rest
		st.Waiting = "OpenAI to write the results files"
	case "cancelling":
		st.Counts.Processing = rest
		st.Waiting = "the cancellation to finish"
	default: // in_progress
		st.Counts.Processing = rest
		st.Waiting = fmt.Sprintf("%d of %d requests to run (within the 24 h window)", rest, rc.Total)
	}
	return st
}
