"""The pure policy core: plain data in, plain data out.

Nothing in this package performs I/O, reads a clock or imports a graph driver; ``now`` is
always an argument. A unit test enforces the import rule.
"""
