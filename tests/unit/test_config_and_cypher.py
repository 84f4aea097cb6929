"""Settings parsing and the named-query loader."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fr_graph import cypher
from fr_graph.config import Settings
from fr_graph.core.text import lucene_escape
from fr_graph.errors import ConfigError, QueryNotFoundError


@pytest.mark.parametrize(("db", "backend"), [
    (None, "embedded"), ("./mem", "embedded"), ("bolt://h:7687", "neo4j"),
    ("neo4j+s://h", "neo4j"), ("falkordb://localhost:6379", "falkordb"),
])
def test_backend_follows_the_db_setting(db: str | None, backend: str) -> None:
    assert Settings(db=db).backend == backend


def test_unknown_scheme_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="--db"):
        _ = Settings(db="mysql://x").backend


def test_from_env_reads_variables_and_overrides_win() -> None:
    env = {"FR_GRAPH_DB": "bolt://a:1", "NEO4J_USER": "u", "NEO4J_PASSWORD": "p",
           "FR_GRAPH_LLM_BASE_URL": "http://127.0.0.1:11434/v1"}
    s = Settings.from_env(env)
    assert (s.db, s.neo4j_user, s.neo4j_password, s.llm.configured) == ("bolt://a:1", "u",
                                                                         "p", True)
    assert Settings.from_env(env, db="/tmp/x").db == "/tmp/x"
    assert not Settings.from_env({}).llm.configured


def test_scan_partitions_come_from_the_environment_and_are_checked() -> None:
    assert Settings.from_env({}).scan_partitions == 2
    assert Settings.from_env({"FR_GRAPH_SCAN_PARTITIONS": "4"}).scan_partitions == 4
    with pytest.raises(ConfigError, match="setting scan_partitions"):
        Settings.from_env({"FR_GRAPH_SCAN_PARTITIONS": "0"})


def test_embedded_path_accepts_a_folder_or_a_file(tmp_path: Path) -> None:
    assert Settings(db=str(tmp_path / "mem")).embedded_path == tmp_path / "mem" / "fr-graph.db"
    assert Settings(db=str(tmp_path / "x.db")).embedded_path == tmp_path / "x.db"


def test_every_cypher_file_documents_params_and_returns() -> None:
    files = sorted(cypher.cypher_root().rglob("*.cypher"))
    assert len(files) >= 10
    for path in files:
        head = path.read_text(encoding="utf-8").splitlines()[:12]
        text = "\n".join(head)
        assert head[0].startswith("// "), path
        assert re.search(r"^// Params:", text, re.M), path
        assert re.search(r"^// Returns:", text, re.M), path


def test_dialect_variant_wins_over_common() -> None:
    assert "queryRelationships('RELATES_TO'" in cypher.load("fulltext_candidates", "falkordb")
    assert "edge_name_and_fact" in cypher.load("fulltext_candidates", "neo4j")
    assert cypher.load("group_census", "neo4j") == cypher.load("group_census", "falkordb")


def test_unknown_or_hostile_query_names_are_refused() -> None:
    with pytest.raises(QueryNotFoundError):
        cypher.load("nope", "neo4j")
    with pytest.raises(QueryNotFoundError):
        cypher.load("../../etc/passwd", "neo4j")


@pytest.mark.parametrize("text", ['a "quoted" (b) [c] {d}', "x AND y OR NOT z", "1+1-2",
                                  "a:b ~ c* d? e\\ f/ g^ h!", "&& ||"])
def test_lucene_escape_leaves_no_operator(text: str) -> None:
    escaped = lucene_escape(text)
    unescaped = re.sub(r"\\.", "", escaped)
    assert not re.search(r'[+\-!(){}\[\]^"~*?:\\/]', unescaped)
    assert not re.search(r"\b(AND|OR|NOT|TO)\b", escaped)


@pytest.mark.parametrize(("version", "filters"), [
    ("Neo4j Kernel 5.26.30 community", False),
    ("Neo4j Kernel 2025.12.1 community", False),
    ("Neo4j Kernel 2026.01.3 community", True),
    ("Neo4j Kernel 2026.08.1 enterprise", True),
    ("Neo4j Kernel 2027.1.0 community", True),
    ("Neo4j Kernel dev community", False),
])
def test_in_index_group_filtering_needs_neo4j_2026_01(version: str, filters: bool) -> None:
    from fr_graph.stores.neo4j import filters_in_index

    assert filters_in_index(version) is filters
