"""Per-row explanations."""

from __future__ import annotations

import pytest

from fr_graph.core.explain import explain
from fr_graph.core.intent import Intent, QueryAnalysis
from fr_graph.core.lifecycle import LifecycleState
from fr_graph.core.ontology import Category
from fr_graph.core.policy import PolicyTable
from fr_graph.core.rerank import UNTYPED, rerank
from tests.unit.core.factory import NOW_S, Row, batch

POLICY = PolicyTable.default()


def test_explains_every_active_term() -> None:
    rows = [Row(category=Category.OBLIGATIONS, event_in_hours=20, emotional_loading=0.8,
                slot="a", age_hours=30),
            Row(category=Category.FINANCIAL, semantic=0.95, has_number=True, slot="a",
                age_hours=900),
            Row(state=LifecycleState.RETRACTED)]
    query = QueryAnalysis.for_intent(Intent.CURRENT, categories=[Category.FINANCIAL])
    result = rerank(batch(rows), query, POLICY, NOW_S)
    first = "\n".join(explain(result, 0))
    assert first.startswith("row 0: rank ")
    for fragment in ("relevance", "decay S =", "validity V =", "emotional boost",
                     "activation a =", "blend", "x routing factor"):
        assert fragment in first
    second = "\n".join(explain(result, 1))
    assert "semantic floor" in second and "numeric rescue floor" in second
    assert "App." not in first + second  # user-facing: plain words, no appendix tags
    assert "(applies)" in second
    masked = explain(result, 2)
    assert masked[0] == "row 2: masked, retracted (state mask) (full arm, current intent)"


def test_explains_supersession_and_state_weight() -> None:
    rows = [Row(slot="k", age_hours=10), Row(slot="k", age_hours=1, confidence=0.5)]
    current = rerank(batch(rows), QueryAnalysis.for_intent(Intent.CURRENT), POLICY, NOW_S)
    assert any("Omega" in line for line in explain(current, 0))
    historical = rerank(batch(rows), QueryAnalysis.for_intent(Intent.HISTORICAL), POLICY,
                        NOW_S)
    assert any("state weight" in line for line in explain(historical, 0))


def test_untyped_explanation_and_bounds() -> None:
    result = rerank(batch([Row()]), QueryAnalysis.for_intent(Intent.CURRENT), POLICY, NOW_S,
                    UNTYPED)
    lines = explain(result, 0)
    assert "untyped arm" in lines[0] and "alone" in lines[1]
    with pytest.raises(IndexError):
        explain(result, 1)
