"""fr-graph's exceptions: one root, a few branches.

    FrGraphError                 anything fr-graph raises on purpose
    ├── ConfigError              bad settings, policy file, or missing optional extra
    ├── InputError               bad user input (a JSONL line, an argument); names the record
    │   └── ImportValidationError  --strict import found bad lines; nothing was written
    ├── StoreError               the graph store failed or is unreachable
    │   ├── StoreUnavailable     still unreachable after the configured retries
    │   └── QueryNotFoundError   a named Cypher query does not exist
    └── NotFoundError            a fact, group or query target that does not exist

The CLI turns any ``FrGraphError`` into one line on stderr and a non-zero exit.
"""

from __future__ import annotations


class FrGraphError(Exception):
    """Root of every error fr-graph raises on purpose."""


class ConfigError(FrGraphError):
    """Settings, a policy file or an optional dependency is wrong or missing."""


class InputError(FrGraphError):
    """User input is invalid. The message names the record, line or argument."""


class ImportValidationError(InputError):
    """A strict import found invalid lines and wrote nothing.

    Attributes:
        problems: ``(line_number, reason)`` for every rejected line.
    """

    def __init__(self, problems: list[tuple[int, str]]) -> None:
        self.problems = problems
        first_line, first_reason = problems[0]
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        super().__init__(
            f"strict import aborted, nothing written: line {first_line}: {first_reason}{more}"
        )


class StoreError(FrGraphError):
    """The graph store failed. Carries the name of the query that was running, if any."""

    def __init__(self, message: str, *, query: str | None = None) -> None:
        self.query = query
        super().__init__(f"{message} (query {query})" if query else message)


class StoreUnavailable(StoreError):
    """The store could not be reached when opened, or kept failing transiently through
    every retry afterwards; the unit of work that was running wrote nothing."""


class QueryNotFoundError(StoreError):
    """No Cypher file with that name ships with fr-graph."""


class NotFoundError(FrGraphError):
    """A fact, group or other named target does not exist."""
