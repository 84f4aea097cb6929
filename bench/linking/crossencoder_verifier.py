"""The fine-tuned cross-encoder as a link verifier on the write path (a bench candidate).

A :class:`~fr_graph.classify.linking.LinkVerifier` that reads each pair as one passage,
``joint_text(older, newer)``: the bundled engine's embedding layer (``token_states.c``,
compiled with gcc), then the twelve encoder layers fine-tuned in float by
``finetune_probe.py --split-layers 0 --save-weights W.npz`` run in JAX, mean-pooled, and
that run's 6-way head. Float, because rounding the trained weights to the engine's 4-bit
blocks loses the gain (``crossencoder_export.py``, BENCHMARKS.md). Hard bands per acting
relation are given (chosen on the probe's test fold).

With ``gate`` set it is a cascade: the shipped verifier reads every pair first, and only
pairs it gives less than ``gate`` of ``unrelated`` are read again by the cross-encoder (the
expensive pass is paid on few pairs); the rest keep the shipped reading, read with these
bands too (with ``gate`` at 0.5 or more their most probable relation is ``unrelated``, so
they never link).

Not shipped (JAX is not a dependency): ``timelines.py --cross-encoder W.npz`` runs the
store-level bench with it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from finetune_probe import Engine, batch, jax_model, load_weights
from joint_probe import joint_text

from fr_graph.classify.linking import OfflineVerifier, PairInput
from fr_graph.core.linking import RELATIONS, LinkBands, Relation

UNRELATED = RELATIONS.index(Relation.UNRELATED)
ROWS = 32  # pairs per JAX call, padded: one compiled shape per 16-token length bucket


class CrossEncoderVerifier:
    """Relation probabilities from the fine-tuned encoder, optionally behind the shipped one."""

    def __init__(self, weights: Path, hard_bands: tuple[float, float, float],
                 gate: float | None = None, build: Path = Path("/tmp/finetune_probe/build")
                 ) -> None:
        import jax

        self.layers, self.head = load_weights(weights)
        _pooled, logits = jax_model()
        self.predict = jax.jit(lambda p, x, mask: jax.nn.softmax(logits(p, x, mask)))
        self.engine = Engine(build)
        shipped = OfflineVerifier()
        hard = dict(zip((Relation.UPDATES, Relation.CANCELS, Relation.COMPLETES), hard_bands,
                        strict=True))
        self._bands = LinkBands(hard=max(hard.values()),
                                soft=min(shipped.bands.soft, *hard.values()),
                                contradicts=shipped.bands.contradicts, hard_by_relation=hard)
        self.shipped = shipped if gate is not None else None
        self.gate = gate
        self.pairs_seen = 0
        self.pairs_read = 0

    @property
    def bands(self) -> LinkBands:
        return self._bands

    def cross_probabilities(self, pairs: Sequence[PairInput]) -> np.ndarray:
        states = [self.engine.states(joint_text(p.older, p.newer), 0) for p in pairs]
        offsets = np.concatenate([[0], np.cumsum([len(s) for s in states])])
        flat = np.concatenate(states)
        params: dict[str, Any] = {"layers": self.layers, "head": self.head}
        out = np.zeros((len(pairs), len(RELATIONS)))
        for start in range(0, len(pairs), ROWS):
            index = np.arange(start, min(start + ROWS, len(pairs)))
            padded = np.concatenate([index, np.full(ROWS - len(index), index[0])])
            x, mask = batch(flat, offsets, padded)
            out[index] = np.asarray(self.predict(params, x, mask))[:len(index)]
        return out

    async def assess(self, pairs: Sequence[PairInput]) -> np.ndarray:
        self.pairs_seen += len(pairs)
        if not pairs:
            return np.zeros((0, len(RELATIONS)))
        if self.shipped is None or self.gate is None:
            self.pairs_read += len(pairs)
            return self.cross_probabilities(pairs)
        out = self.shipped.probabilities(pairs)
        again = np.flatnonzero(out[:, UNRELATED] < self.gate)
        if len(again):
            self.pairs_read += len(again)
            out[again] = self.cross_probabilities([pairs[i] for i in again])
        return out
