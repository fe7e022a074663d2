"""Tests of run.py's row mapping (no Ray, no GPU): python3 -m unittest contrib/ray/test_run.py"""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import run  # noqa: E402


class RowMapping(unittest.TestCase):
    def test_request(self):
        row = {"id": "k:1", "model": "m", "messages": [{"role": "user", "content": "U"}],
               "sampling_params": {"temperature": 0, "max_tokens": 8, "logprobs": 20},
               "json_schema": {"type": "object"}}
        req = run.to_request(row)
        self.assertEqual(req["id"], "k:1")
        self.assertEqual(req["sampling_params"]["logprobs"], 20)
        self.assertEqual(req["sampling_params"]["guided_decoding"], {"json": {"type": "object"}})
        self.assertNotIn("guided_decoding", row["sampling_params"])

    def test_output(self):
        out = run.to_output({"id": "k", "generated_text": '{"score": 7}', "num_input_tokens": 30,
                             "num_generated_tokens": 6, "prompt": "x", "finish_reason": "stop"})
        self.assertEqual(json.loads(json.dumps(out)), {"id": "k", "generated_text": '{"score": 7}',
                                                       "num_input_tokens": 30, "num_generated_tokens": 6,
                                                       "finish_reason": "stop"})
        self.assertEqual(run.to_output({"id": "k", "error": "oom"}), {"id": "k", "error": "oom"})
        self.assertEqual(run.to_output({"id": "k"})["error"], "no generated_text")


if __name__ == "__main__":
    unittest.main()
