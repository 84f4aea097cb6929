// server_version — the Neo4j server's name, version and edition (benchmark provenance, and
// whether the facts' vector index can filter by group). Neo4j 2026 also lists its Cypher
// versions as a component; only the kernel's row is returned.
// Params:  none
// Returns: version (e.g. "Neo4j Kernel 5.26.0 community")
CALL dbms.components() YIELD name, versions, edition
WHERE name = 'Neo4j Kernel'
RETURN name + ' ' + versions[0] + ' ' + edition AS version
