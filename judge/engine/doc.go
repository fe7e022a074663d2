// Package engine owns acquisition: it turns a study (dataset × probe bank ×
// judge × repeats) into keyed judge requests, sends only those the
// workspace has no answer for, and records every answer and failure in the
// store. A Plan lists the requests with an estimate of tokens, cost and
// time; a Run sends them through a worker pool under a concurrency cap and
// request- and token-per-minute limits that adapt to the server's
// rate-limit headers, writes results in batched transactions, and streams
// Events for a progress display. A listwise study (Spec.Orders, batched.go)
// makes one call per context, condition and presentation order, each
// candidate's score stored as its own answer; OrderDataOf reads such
// studies for the order diagnostics. Batch export and import (OpenAI Batch
// JSONL, also read by vLLM's run-batch) send the same requests elsewhere.
//
// Where things are: the plan (plan.go; estimate.go, what it finds
// answered, cached and to send, and EstimatePlan, a plan without its
// requests; stream.go and cursor.go, a plan made while it runs; staged.go,
// a budget's stages; rubric.go and batched.go, the other study kinds); the
// run (run.go, the Run, Start, Acquire and its control; run_send.go, its loop, workers and
// breaker; run_store.go, its writer and lease; limiter.go, jobs.go); batch
// files (batch.go, export and import; batch_read.go, the providers' result
// lines; batch_format.go, batch_rubric.go, batch_split.go,
// batch_submit.go); prices.go.
package engine
