// server_version — the Neo4j server's name, version and edition (benchmark provenance).
// Params:  none
// Returns: version (e.g. "Neo4j Kernel 5.26.0 community")
CALL dbms.components() YIELD name, versions, edition
RETURN name + ' ' + versions[0] + ' ' + edition AS version
