"""Per-pair inference time, one pair at a time, on the test fold's first 50 pairs.

    PYTHONPATH=/tmp/jaxlib .venv/bin/python bench/linking/finetune_timing.py [--cache DIR]

Run after ``finetune_probe.py`` (it reads the cached states from the same ``--cache``).

Engine part (frozen lower layers, C) and JAX part (trained layers; untrained weights have the
same cost); also the engine's full 12 layers on one text (what F+V pays per text, twice), and
the twelve layers in plain numpy float32 (what a shipped float cross-encoder would run: no
JAX), checked against JAX on the same pair.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import finetune_probe  # this script's folder: the probe
import numpy as np
from finetune_probe import (
    Engine,
    batch,
    grouped_folds,
    jax_model,
    joint_text,
    load_pairs,
    load_top_layers,
    median_ms,
    split_states,
)


def numpy_pooled(layers: list[dict[str, np.ndarray]], x: np.ndarray) -> np.ndarray:
    """Mean-pooled states of one text after ``layers`` (post-LN BERT), numpy float32."""
    from scipy.special import erf

    heads, width = finetune_probe.NH, finetune_probe.H // finetune_probe.NH

    def norm(z: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
        z = z - z.mean(-1, keepdims=True)
        return z / np.sqrt((z * z).mean(-1, keepdims=True) + 1e-12) * w + b

    t = len(x)
    for p in layers:
        q, k, v = ((x @ p[f"{n}.w"].T + p[f"{n}.b"]).reshape(t, heads, width).transpose(1, 0, 2)
                   for n in ("q", "k", "v"))
        scores = q @ k.transpose(0, 2, 1) / np.sqrt(width)
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        context = ((scores / scores.sum(-1, keepdims=True)) @ v).transpose(1, 0, 2).reshape(t, -1)
        x = norm(x + context @ p["ao.w"].T + p["ao.b"], p["aln.w"], p["aln.b"])
        middle = x @ p["fi.w"].T + p["fi.b"]
        middle = 0.5 * middle * (1.0 + erf(middle / np.sqrt(2.0)))
        x = norm(x + middle @ p["fo.w"].T + p["fo.b"], p["oln.w"], p["oln.b"])
    return x.mean(0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", default=str(finetune_probe.CACHE))
    finetune_probe.CACHE = Path(parser.parse_args().cache)
    import jax
    import jax.numpy as jnp

    rows = load_pairs(0.3, 0)
    _, test = grouped_folds(rows, 0)[0]
    sample = [joint_text(rows[i]["older"], rows[i]["newer"]) for i in test[:50]]
    engine = Engine(finetune_probe.CACHE / "build")
    out: dict[str, float] = {
        "engine_12_layers_joint_text_ms": median_ms(engine.states, sample),
        "engine_12_layers_newer_text_ms": median_ms(engine.states,
                                                    [rows[i]["newer"] for i in test[:50]])}
    _, logits_fn = jax_model()
    for split in (8, 0):
        out[f"engine_first_{split}_layers_ms"] = median_ms(lambda t, s=split: engine.states(t, s),
                                                          sample)
        states, offsets, _ = split_states(rows, engine, 0, split)
        params = {"layers": [{k: jnp.asarray(v) for k, v in p.items()}
                             for p in load_top_layers(split)],
                  "head": {"w": jnp.zeros((384, 6)), "b": jnp.zeros(6)}}
        predict = jax.jit(lambda p, x, m: jax.nn.softmax(logits_fn(p, x, m)))

        def one(i: int, st: np.ndarray = states, of: np.ndarray = offsets,
                pr=predict, pa=params) -> None:
            x, mask = batch(st, of, np.array([i]))
            pr(pa, x, mask).block_until_ready()

        for i in test[:50]:
            one(i)
        out[f"jax_layers_{split}..11_batch1_ms"] = median_ms(one, list(test[:50]))
        if split == 0:
            plain = [{k: v.astype(np.float32) for k, v in p.items()} for p in load_top_layers(0)]
            first = states[offsets[test[0]]:offsets[test[0] + 1]].astype(np.float32)
            mine = numpy_pooled(plain, first)
            pooled_fn = jax.jit(jax_model()[0])
            reference = np.asarray(pooled_fn(params["layers"], first[None],
                                             jnp.ones((1, len(first)), jnp.float32)))[0]
            out["numpy_vs_jax_pooled_cosine"] = float(
                mine @ reference / (np.linalg.norm(mine) * np.linalg.norm(reference)))
            out["numpy_layers_0..11_one_pair_ms"] = median_ms(
                lambda i, pl=plain, st=states, of=offsets: numpy_pooled(
                    pl, st[of[i]:of[i + 1]].astype(np.float32)), list(test[:50]))
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
