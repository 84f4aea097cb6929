"""A real, local OpenAI-compatible embeddings server whose vectors mean something.

It stands in for a paid embeddings API (OpenAI's ``text-embedding-3-small``, 1536-d, or an
Ollama/vLLM server) at the HTTP boundary, so Graphiti's real ``OpenAIEmbedder`` and the
``openai`` SDK run unchanged: ``base_url=<server.url>/v1``. ``POST /v1/embeddings`` answers
each input with the local e5 passage vector sent through a fixed random projection to
``dim`` dimensions (seeded, so every run agrees), normalized. A projection keeps neighbours
roughly where they were, so search quality on these vectors is comparable to e5's, while
their numbers and dimension are another model's: comparing them with e5 vectors is
meaningless, which is what the tests need to catch. Binds 127.0.0.1 on a free port and
records how many texts it embedded.
"""

from __future__ import annotations

import base64
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np

from fr_graph.clients import LocalEmbedder

MODEL = "fake-embedding-3-small"


class FakeEmbeddings:
    def __init__(self, dim: int = 1536, seed: int = 7) -> None:
        self.dim = dim
        self._local = LocalEmbedder()
        rng = np.random.default_rng(seed)
        self._projection = rng.standard_normal((self._local.dim, dim)).astype(np.float32)
        self.texts = 0
        self._server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def vectors(self, texts: list[str]) -> np.ndarray:
        projected = self._local.embed_passages(texts) @ self._projection
        norms = np.linalg.norm(projected, axis=1, keepdims=True)
        return projected / np.maximum(norms, 1e-12)  # type: ignore[no-any-return]

    def start(self) -> FakeEmbeddings:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                body = json.loads(self.rfile.read(length))
                if self.path.rstrip("/") != "/v1/embeddings":
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                inputs = body["input"]
                texts = [inputs] if isinstance(inputs, str) else list(inputs)
                fake.texts += len(texts)
                vectors = fake.vectors(texts)
                as_base64 = body.get("encoding_format") == "base64"
                data = [{"object": "embedding", "index": i,
                         "embedding": (base64.b64encode(v.astype("<f4").tobytes()).decode()
                                       if as_base64 else v.tolist())}
                        for i, v in enumerate(vectors)]
                self._send(200, {"object": "list", "data": data, "model": body["model"],
                                 "usage": {"prompt_tokens": 0, "total_tokens": 0}})

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                raw = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeEmbeddings:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
