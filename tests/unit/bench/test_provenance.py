"""A report says which fr-graph settings its run was given through the environment."""

from __future__ import annotations

import pytest

from fr_graph.bench.provenance import provenance, settings_environment
from fr_graph.bench.report import _provenance_lines


def test_fr_graph_variables_are_recorded_and_secrets_left_out() -> None:
    env = {"FR_GRAPH_LINK_VERIFIER": "cross-encoder", "FR_GRAPH_EMBEDDING_API_KEY": "sk-x",
           "FR_GRAPH_DB": "/tmp/db", "NEO4J_PASSWORD": "pw", "HOME": "/root"}
    assert settings_environment(env) == {"FR_GRAPH_DB": "/tmp/db",
                                         "FR_GRAPH_LINK_VERIFIER": "cross-encoder"}


def test_the_report_line_shows_them_before_the_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FR_GRAPH_LINK_VERIFIER", "cross-encoder")
    [line, _] = _provenance_lines(provenance(command="fr-graph bench lifecycle"))
    assert "`FR_GRAPH_LINK_VERIFIER=cross-encoder fr-graph bench lifecycle`" in line
    monkeypatch.delenv("FR_GRAPH_LINK_VERIFIER")
    for name in list(settings_environment()):
        monkeypatch.delenv(name)
    [line, _] = _provenance_lines(provenance(command="fr-graph bench lifecycle"))
    assert "as `fr-graph bench lifecycle` on" in line
