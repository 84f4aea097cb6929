"""The fine-tuned cross-encoder under onnxruntime: float32 and int8, quality and time.

    .venv/bin/pip install --target /tmp/ortlib onnx   # then delete numpy* there
    PYTHONPATH=/tmp/ortlib .venv/bin/python bench/linking/crossencoder_onnx.py \\
        --weights W.npz [--cache DIR] [--seed 0] [--out F.json] [--ship PATH]

``--ship PATH`` writes the graph the package ships instead (``fr_graph.classify.cross_encoder``).

The twelve layers that
``finetune_probe.py --split-layers 0 --save-weights W.npz`` trained are written as an ONNX
graph (opset 20: MatMul, Softmax, LayerNormalization, Gelu; states [1, T, 384] in, the
mean-pooled vector out), run by onnxruntime on fold 0 one pair at a time from the probe's
cached embedding states (``DIR/layer0_seed0.npz``), with the run's head: the fold-0 scores
and the mean time per pair. Then the same graph with ``quantize_dynamic`` (int8 weights per
output channel, int8 activations per call).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import finetune_probe  # this script's folder: the probe
import numpy as np
from crossencoder_export import softmax
from finetune_probe import load_weights
from joint_probe import RELATIONS, grouped_folds, load_pairs, relation_scores

HERE = Path(__file__).resolve().parent


def onnx_encoder(layers: list[dict[str, np.ndarray]], head: dict[str, np.ndarray] | None = None,
                 half: bool = False) -> bytes:
    """The layers as an ONNX graph (opset 20): states [1, T, H] -> mean-pooled [1, H]; with
    ``head``, -> relation probabilities [1, 6] (``probabilities``). ``half``: weight
    matrices stored as float16, cast to float32 once when onnxruntime loads the graph."""
    from onnx import TensorProto, helper, numpy_helper

    nodes, weights = [], []

    def const(name: str, value: np.ndarray) -> str:
        if half and value.ndim == 2:
            weights.append(numpy_helper.from_array(
                np.ascontiguousarray(value.astype(np.float16)), name + ".half"))
            return op("Cast", [name + ".half"], name, to=TensorProto.FLOAT)
        weights.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def op(kind: str, inputs: list[str], output: str, **attributes: Any) -> str:
        nodes.append(helper.make_node(kind, inputs, [output], **attributes))
        return output

    heads, width = finetune_probe.NH, finetune_probe.H // finetune_probe.NH
    split = const("split", np.array([1, -1, heads, width], dtype=np.int64))
    joined = const("joined", np.array([1, -1, finetune_probe.H], dtype=np.int64))
    scale = const("scale", np.array(1.0 / np.sqrt(width), dtype=np.float32))
    x = "states"
    for i, p in enumerate(layers):
        def dense(source: str, part: str, i: int = i, p: dict[str, np.ndarray] = p) -> str:
            product = op("MatMul", [source, const(f"l{i}.{part}.wt", p[f"{part}.w"].T)],
                         f"l{i}.{part}.mm")
            return op("Add", [product, const(f"l{i}.{part}.b", p[f"{part}.b"])], f"l{i}.{part}")

        q, k, v = (op("Reshape", [dense(x, n), split], f"l{i}.{n}.r") for n in ("q", "k", "v"))
        q = op("Transpose", [q], f"l{i}.qt", perm=[0, 2, 1, 3])
        k = op("Transpose", [k], f"l{i}.kt", perm=[0, 2, 3, 1])
        v = op("Transpose", [v], f"l{i}.vt", perm=[0, 2, 1, 3])
        scores = op("Mul", [op("MatMul", [q, k], f"l{i}.qk"), scale], f"l{i}.scores")
        attention = op("Softmax", [scores], f"l{i}.attention", axis=-1)
        context = op("Transpose", [op("MatMul", [attention, v], f"l{i}.ctx")], f"l{i}.ctxt",
                     perm=[0, 2, 1, 3])
        context = op("Reshape", [context, joined], f"l{i}.ctxr")
        x = op("LayerNormalization", [op("Add", [x, dense(context, "ao")], f"l{i}.res1"),
                                      const(f"l{i}.aln.w", p["aln.w"]),
                                      const(f"l{i}.aln.b", p["aln.b"])], f"l{i}.x1",
               axis=-1, epsilon=1e-12)
        middle = op("Gelu", [dense(x, "fi")], f"l{i}.gelu")
        x = op("LayerNormalization", [op("Add", [x, dense(middle, "fo")], f"l{i}.res2"),
                                      const(f"l{i}.oln.w", p["oln.w"]),
                                      const(f"l{i}.oln.b", p["oln.b"])], f"l{i}.x2",
               axis=-1, epsilon=1e-12)
    pooled = op("ReduceMean", [x, const("time", np.array([1], dtype=np.int64))], "pooled",
                keepdims=0)
    output = helper.make_tensor_value_info("pooled", TensorProto.FLOAT, [1, finetune_probe.H])
    if head is not None:
        logits = op("Add", [op("MatMul", [pooled, const("head.w", head["w"])], "head.mm"),
                            const("head.b", head["b"])], "logits")
        op("Softmax", [logits], "probabilities", axis=-1)
        output = helper.make_tensor_value_info("probabilities", TensorProto.FLOAT,
                                               [1, len(RELATIONS)])
    graph = helper.make_graph(
        nodes, "encoder",
        [helper.make_tensor_value_info("states", TensorProto.FLOAT,
                                       [1, "T", finetune_probe.H])],
        [output], weights)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])
    return bytes(model.SerializeToString())


def fold_scores(model: str, head: dict[str, np.ndarray], states: np.ndarray,
                offsets: np.ndarray, y: np.ndarray, test: np.ndarray) -> dict[str, Any]:
    """Fold-0 scores of one ONNX encoder with the head, and its mean ms per pair."""
    import onnxruntime

    session = onnxruntime.InferenceSession(model)
    vectors = np.zeros((len(test), finetune_probe.H))
    start = time.perf_counter()
    for row, i in enumerate(test):
        pair = states[offsets[i]:offsets[i + 1]].astype(np.float32)[None]
        vectors[row] = session.run(None, {"states": pair})[0][0]
    ms = 1000 * (time.perf_counter() - start) / len(test)
    return {"ms_per_pair": ms, "megabytes": os.path.getsize(model) / 1e6,
            **relation_scores(y[test], softmax(vectors @ head["w"] + head["b"]))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--weights", required=True, help="finetune_probe.py --save-weights")
    parser.add_argument("--cache", default=str(finetune_probe.CACHE))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=str(HERE / "results" / "crossencoder_onnx.json"))
    parser.add_argument("--ship", metavar="PATH",
                        help="only write the shipped graph (weights as float16, the head and "
                             "a softmax: states -> probabilities) to PATH, e.g. "
                             "fr_graph/classify/cross_encoder.onnx")
    args = parser.parse_args()
    if args.ship:
        layers, head = load_weights(args.weights)
        Path(args.ship).write_bytes(onnx_encoder(layers, head, half=True))
        print(f"{args.ship}: {os.path.getsize(args.ship) / 1e6:.1f} MB")
        return
    from onnxruntime.quantization import QuantType, quantize_dynamic

    layers, head = load_weights(args.weights)
    rows = load_pairs(0.3, args.seed)
    y = np.array([RELATIONS.index(r["relation"]) for r in rows])
    _train, test = grouped_folds(rows, args.seed)[0]
    cached = np.load(Path(args.cache) / f"layer0_seed{args.seed}.npz")
    result: dict[str, Any] = {"test": len(test)}
    with tempfile.TemporaryDirectory() as folder:
        plain, int8 = f"{folder}/encoder.onnx", f"{folder}/encoder-int8.onnx"
        Path(plain).write_bytes(onnx_encoder(layers))
        quantize_dynamic(plain, int8, per_channel=True, weight_type=QuantType.QInt8)
        for name, model in (("onnxruntime float32", plain), ("onnxruntime int8", int8)):
            result[name] = fold_scores(model, head, cached["states"], cached["offsets"], y, test)
            print(name, {k: round(v, 3) for k, v in result[name].items()}, flush=True)
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
