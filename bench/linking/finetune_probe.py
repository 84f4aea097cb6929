"""Does a cross-encoder (e5 fine-tuned on the pair read together) read the relation better?

    .venv/bin/pip install --target /tmp/jaxlib jax optax   # then remove numpy*/scipy* there
    PYTHONPATH=/tmp/jaxlib .venv/bin/python bench/linking/finetune_probe.py \\
        [--split-layers 8 0] [--epochs 2] [--budget-min 30] [--seed 0] [--cache DIR] [--out F]
        [--quantization-aware] [--init-weights W.npz] [--save-weights W.npz]

A probe, not shipped. JAX (CPU) is not a dependency of fr-graph, not even of its ``bench``
extra: it is installed beside the venv, as above, so the venv's own numpy and scipy are
used. Needs ``gcc`` (``token_states.c``).

1. Every labeled pair (``bench/linking/pairs``, ``unrelated`` subsampled to 0.3, seed 0, as
   ``joint_probe.py``) is read as one passage, ``joint_text(older, newer)`` ("Before: X. Now:
   Y"), by the bundled engine (``token_states.c`` over the wheel's own ``e5.c``) up to layer
   8 of 12; those states are cached (float16) in ``cache/``.
2. The top four encoder layers (8..11; with ``--split-layers 0`` all twelve, from the cached
   embedding output) are rebuilt in JAX from the dequantized 4-bit weights
   of ``e5-small-q4.bin`` (post-LN BERT, erf GELU, scale 1/sqrt(32)), checked against the
   engine's own 12-layer states (cosine of the mean-pooled vectors), then fine-tuned with a
   mean-pool + linear 6-way head (AdamW, lr 3e-5 encoder / 1e-3 head, batch 32) on folds
   1..4 of the grouped 5-fold split of ``joint_probe.cross_validate``; fold 0 is the test.
   Inputs are not truncated (at most 109 tokens); no dropout.
3. Baseline on the same fold: ``F+V`` as in ``token_probe.py`` (pair features from
   ``feature_matrix`` plus both texts' e5 passage vectors, standardized on the training
   folds, ``LogisticRegression(C=0.05)``), here with ``LocalEmbedder`` vectors.
4. Scores on fold 0 for (a) F+V, (b) the cross-encoder, (c) the mean of both probabilities:
   accuracy and, per acting relation, average precision and recall at precision 0.95 of the
   picked scores (``joint_probe.cross_validate``'s rule). Written to ``result.json`` after
   every epoch, with timings and the number of trained parameters. About 40 minutes on 2
   shared cores for both cross-encoders (8 for layers 8..11, 25 for 0..11, plus caching).
5. ``--save-weights`` (all twelve layers trained) keeps the encoder and head for
   ``crossencoder_export.py`` (the engine's 4-bit file) and ``crossencoder_onnx.py`` (whose
   ``--ship`` writes the package's ``fr_graph/classify/cross_encoder.onnx``);
   ``--quantization-aware`` trains through the engine's 4-bit rounding of the weights, and
   ``--init-weights`` starts from a saved run instead of the engine's weights.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import time
from pathlib import Path
from typing import Any

import numpy as np
from joint_probe import (  # this script's folder: the joint-reading probe
    RELATIONS,
    grouped_folds,
    joint_text,
    load_pairs,
    relation_scores,
    shipped_inputs,
    standardized,
)
from sklearn.linear_model import LogisticRegression
from token_probe import MODEL_BIN, token_states_library  # the engine's states

from fr_graph.classify.cross_encoder import dequantize_q4_0, read_model_file

HERE = Path(__file__).resolve().parent
CACHE = Path("/tmp/finetune_probe")  # cached states and vectors (--cache)
SPLIT_LAYER = 8  # default: the engine runs layers 0..7; JAX runs (and trains) 8..11
MAX_TOKENS = 512
H, NH, FF, QK = 384, 12, 1536, 32
LAYER_TENSORS = ("q", "k", "v", "ao", "aln", "fi", "fo", "oln")


# ------------------------------------------------------------------ engine (C, ctypes)
class Engine:
    """The bundled engine's per-token hidden states, after all or only the first layers."""

    def __init__(self, build: Path) -> None:
        lib = self.lib = token_states_library(build)
        self.model = lib.e5_load(str(MODEL_BIN).encode())
        self.buffer = np.empty((MAX_TOKENS, H), dtype=np.float32)
        self.pointer = self.buffer.ctypes.data_as(ctypes.POINTER(ctypes.c_float))

    def states(self, text: str, layers: int | None = None) -> np.ndarray:
        raw = text.encode("utf-8")
        if layers is None:
            n = self.lib.e5x_token_states(self.model, raw, 0, self.pointer, MAX_TOKENS)
        else:
            n = self.lib.e5x_token_states_upto(self.model, raw, 0, self.pointer, MAX_TOKENS,
                                               layers)
        return self.buffer[:n].copy()


# ------------------------------------------------------------------ weights (numpy)
def _q4(raw: bytes, offset: int, nout: int, nin: int) -> np.ndarray:
    """A Q4_0 [nout, nin] matrix of the model file."""
    blocks = np.frombuffer(raw, dtype=np.uint8, count=nout * nin // QK * 18, offset=offset)
    return dequantize_q4_0(blocks.reshape(-1, 18)).reshape(nout, nin)


LAYER_SHAPES = {"q": (H, H), "k": (H, H), "v": (H, H), "ao": (H, H), "fi": (FF, H), "fo": (H, FF)}


def load_top_layers(first: int = SPLIT_LAYER, last: int = 12) -> list[dict[str, np.ndarray]]:
    """The dequantized weights of encoder layers ``first..last-1`` (W stored as [out, in])."""
    raw = MODEL_BIN.read_bytes()
    directory = read_model_file(raw).tensors
    layers = []
    for layer in range(first, last):
        params: dict[str, np.ndarray] = {}
        for part in LAYER_TENSORS:
            for suffix in ("w", "b"):
                dtype, n, offset = directory[f"l{layer}.{part}.{suffix}"]
                if dtype == 1:
                    params[f"{part}.{suffix}"] = _q4(raw, offset, *LAYER_SHAPES[part])
                else:
                    params[f"{part}.{suffix}"] = np.frombuffer(raw, dtype=np.float32, count=n,
                                                               offset=offset).copy()
        layers.append(params)
    return layers


# ------------------------------------------------------------------ data
def split_states(rows: list[dict[str, Any]], engine: Engine, seed: int, split: int
                 ) -> tuple[np.ndarray, np.ndarray, float]:
    """Concatenated float16 states after ``split`` layers of each joint text, offsets, ms/text."""
    path = CACHE / f"layer{split}_seed{seed}.npz"
    if path.exists():
        saved = np.load(path)
        return saved["states"], saved["offsets"], float(saved["ms"])
    chunks, offsets = [], [0]
    start = time.perf_counter()
    for i, r in enumerate(rows):
        states = engine.states(joint_text(r["older"], r["newer"]), split)
        chunks.append(states.astype(np.float16))
        offsets.append(offsets[-1] + len(states))
        if i % 2000 == 0:
            print(f"  layer-{split} states {i}/{len(rows)}", flush=True)
    ms = 1000 * (time.perf_counter() - start) / len(rows)
    states_all, offsets_arr = np.concatenate(chunks), np.array(offsets)
    CACHE.mkdir(exist_ok=True)
    np.savez(path, states=states_all, offsets=offsets_arr, ms=ms)
    return states_all, offsets_arr, ms


def baseline_inputs(rows: list[dict[str, Any]], seed: int) -> np.ndarray:
    """F+V: pair features and both texts' e5 passage vectors (unstandardized)."""
    path = CACHE / f"fv_seed{seed}.npy"
    if path.exists():
        return np.load(path)
    from fr_graph.clients import LocalEmbedder

    embedder = LocalEmbedder()
    x = shipped_inputs(rows, embedder.embed_passages([r["older"] for r in rows]).astype(np.float64),
                       embedder.embed_passages([r["newer"] for r in rows]).astype(np.float64))
    CACHE.mkdir(exist_ok=True)
    np.save(path, x)
    return x


# ------------------------------------------------------------------ JAX model
def jax_model(quantized: bool = False) -> tuple[Any, Any]:
    """Pooled states and head logits; ``quantized``: every weight matrix is read as the
    engine will hold it (Q4_0, as ``crossencoder_export.quantize_q4_0`` rounds), with the
    gradient passed straight through to the float weights (quantization-aware training)."""
    import jax
    import jax.numpy as jnp

    def as_q4(w: Any) -> Any:
        blocks = w.reshape(-1, QK)
        largest = jnp.take_along_axis(blocks, jnp.abs(blocks).argmax(1)[:, None], 1)
        scale = largest / -8.0
        inverse = jnp.where(scale != 0, 1.0 / jnp.where(scale != 0, scale, 1.0), 0.0)
        q = jnp.clip(jnp.floor(blocks * inverse + 8.5), 0, 15)
        stored = scale.astype(jnp.float16).astype(jnp.float32)  # the file keeps fp16 scales
        back = ((q - 8.0) * stored).reshape(w.shape)
        return w + jax.lax.stop_gradient(back - w)

    def layer_norm(x: Any, w: Any, b: Any) -> Any:
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) / jnp.sqrt(var + 1e-12) * w + b

    def dense(x: Any, p: dict[str, Any], name: str) -> Any:
        w = as_q4(p[f"{name}.w"]) if quantized else p[f"{name}.w"]
        return x @ w.T + p[f"{name}.b"]

    def encoder(layers: list[dict[str, Any]], x: Any, mask: Any) -> Any:
        """Post-LN BERT layers on states x [B, T, H]; mask [B, T] (1 = token)."""
        b, t, _ = x.shape
        bias = jnp.where(mask[:, None, None, :] > 0, 0.0, -1e9)
        hd = H // NH
        for p in layers:
            def heads(z: Any) -> Any:
                return z.reshape(b, t, NH, hd).transpose(0, 2, 1, 3)
            q, k, v = heads(dense(x, p, "q")), heads(dense(x, p, "k")), heads(dense(x, p, "v"))
            attention = jax.nn.softmax(q @ k.transpose(0, 1, 3, 2) / jnp.sqrt(hd) + bias, -1)
            context = (attention @ v).transpose(0, 2, 1, 3).reshape(b, t, H)
            x = layer_norm(x + dense(context, p, "ao"), p["aln.w"], p["aln.b"])
            middle = jax.nn.gelu(dense(x, p, "fi"), approximate=False)
            x = layer_norm(x + dense(middle, p, "fo"), p["oln.w"], p["oln.b"])
        return x

    def pooled(layers: list[dict[str, Any]], x: Any, mask: Any) -> Any:
        x = encoder(layers, x, mask)
        return (x * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)

    def logits(params: dict[str, Any], x: Any, mask: Any) -> Any:
        return pooled(params["layers"], x, mask) @ params["head"]["w"] + params["head"]["b"]

    return pooled, logits


def batch(states: np.ndarray, offsets: np.ndarray, index: np.ndarray, pad_to: int = 16
          ) -> tuple[np.ndarray, np.ndarray]:
    lengths = offsets[index + 1] - offsets[index]
    t = int(-(-lengths.max() // pad_to) * pad_to)
    x = np.zeros((len(index), t, H), dtype=np.float32)
    mask = np.zeros((len(index), t), dtype=np.float32)
    for row, (i, n) in enumerate(zip(index, lengths, strict=True)):
        x[row, :n] = states[offsets[i]:offsets[i] + n]
        mask[row, :n] = 1.0
    return x, mask


def batches_by_length(index: np.ndarray, lengths: np.ndarray, size: int,
                      rng: np.random.Generator) -> list[np.ndarray]:
    """Shuffled batches of similar lengths (less padding): sort within pools of 50 batches."""
    index = rng.permutation(index)
    out = []
    pool = size * 50
    for start in range(0, len(index), pool):
        chunk = index[start:start + pool]
        chunk = chunk[np.argsort(lengths[chunk], kind="stable")]
        out.extend(chunk[i:i + size] for i in range(0, len(chunk), size))
    order = rng.permutation(len(out))
    return [out[i] for i in order]


def median_ms(call: Any, items: list[Any]) -> float:
    timings = []
    for item in items:
        start = time.perf_counter()
        call(item)
        timings.append(time.perf_counter() - start)
    return 1000 * float(np.median(timings))


def fine_tune(split: int, args: argparse.Namespace, data: dict[str, Any], engine: Engine,
              save: Any) -> dict[str, Any]:
    """Fine-tune layers ``split..11`` + a head on the training folds; score the test fold."""
    import jax
    import jax.numpy as jnp
    import optax

    rows, y, train, test, p_base = (data[k] for k in ("rows", "y", "train", "test", "p_base"))
    result: dict[str, Any] = {"split_layer": split, "trained_layers": f"{split}..11"}
    pooled_fn, logits_fn = jax_model(args.quantization_aware)
    layers = [{k: jnp.asarray(v) for k, v in p.items()} for p in load_top_layers(split)]

    # -- check: JAX layers split..11 on the engine's states after `split` layers vs its 12
    checks = [joint_text(rows[i]["older"], rows[i]["newer"]) for i in (0, 7, 100, 5000, 12000)]
    cosines = []
    for text in checks:
        mid, full = engine.states(text, split), engine.states(text)
        mine = np.asarray(pooled_fn(layers, jnp.asarray(mid[None]),
                                    jnp.ones((1, len(mid)), jnp.float32)))[0]
        engine_vector = full.mean(0)
        cosines.append(float(mine @ engine_vector
                             / (np.linalg.norm(mine) * np.linalg.norm(engine_vector))))
    print(f"JAX layers {split}..11 vs engine, pooled cosine: {np.round(cosines, 5)}", flush=True)
    result["jax_vs_engine_pooled_cosine"] = cosines

    # -- the frozen lower layers, run once by the engine and cached
    t0 = time.perf_counter()
    states, offsets, cache_ms = split_states(rows, engine, args.seed, split)
    print(f"layer-{split} states: {states.shape}, {cache_ms:.1f} ms/text "
          f"({time.perf_counter() - t0:.0f} s)", flush=True)
    result["engine_lower_layers_ms_per_pair_while_caching"] = cache_ms
    sample = [joint_text(rows[i]["older"], rows[i]["newer"]) for i in test[:50]]
    result["engine_lower_layers_ms_per_pair"] = median_ms(lambda t: engine.states(t, split),
                                                          sample)
    lengths = np.diff(offsets)
    result["tokens_per_pair"] = {"mean": float(lengths.mean()), "max": int(lengths.max())}

    key = jax.random.PRNGKey(args.seed)
    params = {"layers": layers,
              "head": {"w": jax.random.normal(key, (H, len(RELATIONS))) * 0.02,
                       "b": jnp.zeros(len(RELATIONS))}}
    if args.init_weights:  # continue from an earlier run's encoder and head
        saved_layers, saved_head = load_weights(args.init_weights)
        params = jax.tree_util.tree_map(jnp.asarray, {"layers": saved_layers[split:],
                                                      "head": saved_head})
        result["initialized_from"] = args.init_weights
    result["parameters_trained"] = sum(int(np.prod(v.shape))
                                       for v in jax.tree_util.tree_leaves(params))
    total = -(-len(train) // args.batch) * args.epochs

    def schedule(peak: float) -> Any:
        return optax.warmup_cosine_decay_schedule(0.0, peak, max(1, total // 10), total,
                                                  peak * 0.05)

    optimizer = optax.multi_transform(
        {"encoder": optax.adamw(schedule(args.lr), weight_decay=0.01),
         "head": optax.adamw(schedule(args.head_lr), weight_decay=0.01)},
        {"layers": jax.tree_util.tree_map(lambda _: "encoder", params["layers"]),
         "head": {"w": "head", "b": "head"}})
    state = optimizer.init(params)

    def loss_fn(p: Any, x: Any, mask: Any, labels: Any) -> Any:
        logp = jax.nn.log_softmax(logits_fn(p, x, mask))
        return -jnp.take_along_axis(logp, labels[:, None], 1).mean()

    @jax.jit
    def step(p: Any, s: Any, x: Any, mask: Any, labels: Any) -> Any:
        loss, grads = jax.value_and_grad(loss_fn)(p, x, mask, labels)
        updates, s = optimizer.update(grads, s, p)
        return optax.apply_updates(p, updates), s, loss

    predict = jax.jit(lambda p, x, mask: jax.nn.softmax(logits_fn(p, x, mask)))

    def evaluate(p: Any) -> tuple[np.ndarray, float]:
        out = np.zeros((len(test), len(RELATIONS)))
        order = np.argsort(lengths[test], kind="stable")
        start = time.perf_counter()
        for i in range(0, len(test), 64):
            chosen = order[i:i + 64]
            x, mask = batch(states, offsets, test[chosen])
            out[chosen] = np.asarray(predict(p, x, mask))
        return out, 1000 * (time.perf_counter() - start) / len(test)

    rng = np.random.default_rng(args.seed)
    result["history"] = []
    train_s, done_steps, stopped = 0.0, 0, False
    for epoch in range(args.epochs):
        losses = []
        plan = batches_by_length(train, lengths, args.batch, rng)
        epoch_start = time.perf_counter()
        for i, chosen in enumerate(plan):
            x, mask = batch(states, offsets, chosen)
            params, state, loss = step(params, state, x, mask, jnp.asarray(y[chosen]))
            losses.append(float(loss))
            done_steps += 1
            elapsed = time.perf_counter() - epoch_start
            if i % 50 == 0:
                print(f"epoch {epoch} step {i}/{len(plan)} loss {np.mean(losses[-50:]):.4f} "
                      f"{elapsed:.0f} s", flush=True)
            if train_s + elapsed > args.budget_min * 60:
                stopped = True
                break
        train_s += time.perf_counter() - epoch_start
        epochs_done = epoch + (i + 1) / len(plan)
        p_cross, infer_ms = evaluate(params)
        result.update({"training_wall_s": train_s, "epochs_done": epochs_done,
                       "steps_done": done_steps,
                       "jax_trained_layers_ms_per_pair_batched64": infer_ms,
                       "cross-encoder": relation_scores(y[test], p_cross),
                       "average": relation_scores(y[test], (p_cross + p_base) / 2)})
        result["history"].append({"epochs": epochs_done, "train_s": train_s,
                                  "train_loss_last50": float(np.mean(losses[-50:])),
                                  "cross-encoder": result["cross-encoder"],
                                  "average": result["average"]})
        for name in ("cross-encoder", "average"):
            print(f"[{epochs_done:.2f} epochs] {name}",
                  {k: round(v, 3) for k, v in result[name].items()}, flush=True)
        np.save(CACHE / f"p_cross_split{split}.npy", p_cross)
        save(result)
        if stopped:
            break

    # -- one pair at a time: the JAX part (after compiling each padded length)
    def one(i: int) -> None:
        x, mask = batch(states, offsets, np.array([i]))
        predict(params, x, mask).block_until_ready()

    for i in test[:50]:
        one(i)
    result["jax_trained_layers_ms_per_pair_batch1"] = median_ms(one, list(test[:50]))
    save(result)
    if args.save_weights and split == 0:  # all twelve layers trained: a whole encoder
        save_weights(Path(args.save_weights), params)
    return result


def save_weights(path: Path, params: dict[str, Any]) -> None:
    """The trained layers (``l{i}.{tensor}``, W as [out, in]) and the head, float32, as .npz."""
    arrays = {f"l{i}.{name}": np.asarray(value, dtype=np.float32)
              for i, layer in enumerate(params["layers"]) for name, value in layer.items()}
    arrays.update({f"head.{name}": np.asarray(value, dtype=np.float32)
                   for name, value in params["head"].items()})
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, **arrays)
    print(f"weights: {path}", flush=True)


def load_weights(path: Path | str) -> tuple[list[dict[str, np.ndarray]], dict[str, np.ndarray]]:
    """What :func:`save_weights` wrote: the twelve layers (``{tensor}`` per layer) and the
    head (``w``, ``b``)."""
    saved = np.load(path)
    layers = [{f"{part}.{suffix}": saved[f"l{i}.{part}.{suffix}"]
               for part in LAYER_TENSORS for suffix in ("w", "b")} for i in range(12)]
    return layers, {"w": saved["head.w"], "b": saved["head.b"]}


def main() -> None:
    global CACHE  # one setting, read by the caching helpers
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split-layers", type=int, nargs="+", default=[SPLIT_LAYER, 0],
                        help="one cross-encoder per value: layers below it run by the engine "
                             "(frozen, cached), the rest trained in JAX")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--budget-min", type=float, default=30.0,
                        help="training time per cross-encoder (stops mid-epoch if need be)")
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--lr", type=float, default=3e-5)
    parser.add_argument("--head-lr", type=float, default=1e-3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cache", default=str(CACHE),
                        help="where the engine's states and the baseline's inputs are kept")
    parser.add_argument("--out", default=str(HERE / "results" / "finetune_probe.json"))
    parser.add_argument("--quantization-aware", action="store_true",
                        help="train through the engine's 4-bit rounding of every weight "
                        "matrix (straight-through gradient)")
    parser.add_argument("--init-weights", default="",
                        help="start from these trained weights (--save-weights) instead of "
                        "the engine's and a random head")
    parser.add_argument("--save-weights", default="",
                        help="with --split-layers 0: write the trained encoder and head (.npz)")
    args = parser.parse_args()
    CACHE = Path(args.cache)

    rows = load_pairs(0.3, args.seed)
    y = np.array([RELATIONS.index(r["relation"]) for r in rows])
    train, test = grouped_folds(rows, args.seed)[0]  # fold 0 is the test; folds 1..4 train
    print(f"{len(rows)} pairs: train {len(train)}, test {len(test)}", flush=True)
    result: dict[str, Any] = {
        "pairs": len(rows), "train": len(train), "test": len(test), "test_fold": 0,
        "seed": args.seed, "epochs": args.epochs, "batch": args.batch, "lr": args.lr,
        "head_lr": args.head_lr,
        "test_counts": {r: int((y[test] == i).sum()) for i, r in enumerate(RELATIONS)},
        "cross_encoders": {}}

    def save(part: dict[str, Any] | None = None, split: int | None = None) -> None:
        if part is not None:
            result["cross_encoders"][f"layers {split}..11"] = part
        Path(args.out).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")

    engine = Engine(CACHE / "build")
    # (a) F+V: the shipped verifier's inputs, standardized on the training folds
    fv = baseline_inputs(rows, args.seed)
    baseline = LogisticRegression(C=0.05, max_iter=1000).fit(
        standardized(fv[train], fv[train]), y[train])
    p_base = baseline.predict_proba(standardized(fv[test], fv[train]))
    result["F+V"] = relation_scores(y[test], p_base)
    print("F+V", {k: round(v, 3) for k, v in result["F+V"].items()}, flush=True)
    save()
    data = {"rows": rows, "y": y, "train": train, "test": test, "p_base": p_base}
    for split in args.split_layers:  # (b) each cross-encoder, (c) its mean with F+V
        fine_tune(split, args, data, engine, lambda part, s=split: save(part, s))
    summary = {k: v for k, v in result.items() if k != "cross_encoders"}
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
