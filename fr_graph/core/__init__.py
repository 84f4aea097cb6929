"""The pure policy core: plain data in, plain data out.

Nothing in this package performs I/O, reads a clock or imports a graph driver; ``now`` is
always an argument. The one exception is :mod:`fr_graph.core.policy`, which reads the policy
files (the packaged ``default_policy.toml`` and a deployment's override) once, at startup;
every function that uses the policy takes it as an argument. A unit test enforces both rules.
"""
