#!/usr/bin/env python3
"""Run a prism Ray export through Ray Data LLM + vLLM on a cluster.

    prism batch export --format ray --bank quality --backend openai --model M -o in.jsonl
    python3 contrib/ray/run.py in.jsonl out.jsonl --model M [--replicas 4] [--tp 1]
    prism batch import out.jsonl

Each input row is {"id", "model", "messages", "sampling_params",
"json_schema"?} (docs/engine.md, "prism batch"); each output row is what
prism batch import reads: {"id", "generated_text", "num_input_tokens",
"num_generated_tokens", "finish_reason"} or {"id", "error"}.

The pure functions (to_request, to_output) are tested without Ray or a GPU
by test_run.py; main() needs ray[data,llm] and vllm on a GPU cluster.
"""
import argparse
import json
import sys


def to_request(row):
    """The Ray Data LLM request of an exported row: chat messages and
    vLLM sampling parameters (guided JSON when the row has a schema)."""
    sp = dict(row.get("sampling_params") or {})
    if row.get("json_schema"):
        sp["guided_decoding"] = {"json": row["json_schema"]}
    return {"id": row["id"], "messages": row["messages"], "sampling_params": sp}


def to_output(row):
    """The row prism batch import reads, from a processed row."""
    if row.get("error"):
        return {"id": row["id"], "error": str(row["error"])}
    text = row.get("generated_text")
    if text is None:
        return {"id": row["id"], "error": "no generated_text"}
    out = {
        "id": row["id"],
        "generated_text": text,
        "num_input_tokens": int(row.get("num_input_tokens") or 0),
        "num_generated_tokens": int(row.get("num_generated_tokens") or 0),
    }
    if row.get("finish_reason"):
        out["finish_reason"] = row["finish_reason"]
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("input")
    ap.add_argument("output")
    ap.add_argument("--model", required=True)
    ap.add_argument("--replicas", type=int, default=1, help="vLLM engine replicas (Ray actors)")
    ap.add_argument("--tp", type=int, default=1, help="tensor parallel size per replica")
    ap.add_argument("--batch-size", type=int, default=64)
    args = ap.parse_args(argv)

    import ray  # noqa: imported here so the tests need no Ray
    from ray.data.llm import build_llm_processor, vLLMEngineProcessorConfig

    config = vLLMEngineProcessorConfig(
        model_source=args.model,
        engine_kwargs={"tensor_parallel_size": args.tp},
        concurrency=args.replicas,
        batch_size=args.batch_size,
    )
    processor = build_llm_processor(
        config,
        preprocess=to_request,
        postprocess=lambda row: to_output(row),
    )
    ds = processor(ray.data.read_json(args.input))
    with open(args.output, "w", encoding="utf-8") as f:
        for row in ds.iter_rows():
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
