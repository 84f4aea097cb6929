"""Human-readable explanations of one reranked row, term by term (App. B.4: "debug retrieval
failures with clear causal chains")."""

from __future__ import annotations

import math

import numpy as np

from fr_graph.core.codes import MaskReason
from fr_graph.core.rerank import Arm, Ranked


def explain(ranked: Ranked, row: int) -> list[str]:
    """Explain why ``row`` got its score (or why it was masked).

    Args:
        ranked: a result of :func:`fr_graph.core.rerank.rerank`.
        row: a row index of the batch that was ranked.

    Returns:
        One line for the verdict, then one line per score term, indented.

    Raises:
        IndexError: ``row`` is not a row of the batch.
    """
    k = ranked.scores.shape[0]
    if not 0 <= row < k:
        raise IndexError(f"row {row} is outside the batch of {k}")
    terms = {name: float(values[row]) for name, values in ranked.terms.items()}
    code = MaskReason(int(ranked.mask_code[row]))
    if code is MaskReason.NONE:
        rank = int(np.flatnonzero(ranked.order == row)[0]) + 1
        head = (f"row {row}: rank {rank} of {ranked.order.shape[0]}, score "
                f"{terms['score']:.4f} ({ranked.arm.value} arm, {ranked.intent.value} intent)")
    else:
        head = (f"row {row}: masked, {code.label} ({ranked.arm.value} arm, "
                f"{ranked.intent.value} intent)")
    lines = [head]
    relevance = (f"  relevance {terms['relevance']:.4f} = max(semantic {terms['semantic']:.4f}, "
                 f"weighted fulltext of {terms['fulltext']:.4f})")
    if ranked.arm is Arm.UNTYPED:
        lines.append(f"  semantic {terms['semantic']:.4f}: the untyped arm ranks by it alone")
        return lines
    lines.append(relevance)
    lines.append(f"  decay S = {terms['decay']:.4f}: age {terms['age_hours']:.1f}h at "
                 f"lambda_eff {terms['lambda_eff']:.5f}/h (half-life "
                 f"{_half_life_days(terms['lambda_eff'])})")
    if terms["event_weight"] > 0.0:
        lines.append(f"  validity V = {terms['validity']:.4f} on {terms['event_weight']:.0%} "
                     f"event-time membership (anticipation before, collapse after)")
    if terms["emotion_boost"] > 0.0:
        lines.append(f"  emotional boost {terms['emotion_boost']:.4f} (transient)")
    if terms.get("strength_protection", 0.0) > 0.0:
        lines.append(f"  strength protection {terms['strength_protection']:.4f} (durable "
                     f"premise: activation lifted toward 1 by its strength, StageMem)")
    lines.append(f"  activation a = {terms['activation']:.4f}")
    lines.append(f"  blend {terms['blend']:.4f} = alpha {terms['alpha']:.2f} x a + "
                 f"{1 - terms['alpha']:.2f} x relevance")
    if terms["floor"] > 0.0:
        held = " (applies)" if terms["floor"] > terms["blend"] else ""
        lines.append(f"  semantic floor {terms['floor']:.4f}{held}")
    if terms["numeric_rescue"] > 0.0:
        lines.append(f"  numeric rescue floor {terms['numeric_rescue']:.4f} "
                     "(the fact carries a number)")
    lines.append(f"  base {terms['base']:.4f}")
    for name, label in (("routing", "routing factor (category prior)"),
                        ("omega", "supersession factor Omega"),
                        ("state_weight", "state weight for this intent")):
        if terms[name] != 1.0:
            lines.append(f"  x {label} {terms[name]:.4f}")
    return lines


def _half_life_days(rate_per_hour: float) -> str:
    return f"{math.log(2.0) / rate_per_hour / 24.0:.1f}d" if rate_per_hour > 0 else "inf"
