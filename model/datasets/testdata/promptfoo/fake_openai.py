# A fake OpenAI-compatible chat server on loopback for running promptfoo offline.
import hashlib, json, sys
from http.server import BaseHTTPRequestHandler, HTTPServer
class H(BaseHTTPRequestHandler):
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers['Content-Length'])))
        text = json.dumps(body.get("messages"))
        h = int(hashlib.sha256(text.encode()).hexdigest(), 16)
        if "rubric" in text.lower() or "<Rubric>" in text:
            reply = json.dumps({"reason": "fake grader", "pass": h % 3 != 0, "score": (h % 11) / 10})
        else:
            reply = "Score: %d" % (1 + h % 5)
        out = {"id": "x", "object": "chat.completion", "created": 0, "model": body.get("model"),
               "choices": [{"index": 0, "message": {"role": "assistant", "content": reply}, "finish_reason": "stop"}],
               "usage": {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13}}
        b = json.dumps(out).encode()
        self.send_response(200); self.send_header("Content-Type", "application/json"); self.send_header("Content-Length", str(len(b))); self.end_headers(); self.wfile.write(b)
    def log_message(self, *a): pass
HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
