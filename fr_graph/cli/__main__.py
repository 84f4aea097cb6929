"""``python -m fr_graph.cli``: the ``fr-graph`` command."""

from fr_graph.cli import main

main()
