"""The policy table in force for a group, and where it came from (``fr-graph policy
show``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fr_graph.core.policy import PolicyTable, default_policy_source


@dataclass(slots=True)
class PolicyView:
    """The policy in force for one group (or the deployment), and where it came from.

    Attributes:
        table: the resolved table (group overrides applied).
        source: the policy file, or ``defaults`` (the paper's values).
        group_id: the group whose overrides were applied, or None.
        overrides: the group's overrides as dotted keys (``categories.hobbies.alpha``).
        groups: every group the policy file overrides.
        defaults: the packaged default policy file every value not overridden comes from.
        changed: the deployment-level values that differ from the defaults, as dotted keys
            (what the policy file changes, group overrides aside).
    """

    table: PolicyTable
    source: str
    group_id: str | None
    overrides: dict[str, Any]
    groups: list[str]
    defaults: str
    changed: dict[str, Any]

    def render(self) -> list[str]:
        head = [f"policy: {self.source}", f"defaults: {self.defaults}"]
        if self.changed:
            head.append("changed from the defaults: "
                        + ", ".join(f"{k} = {v}" for k, v in self.changed.items()))
        if self.group_id is not None:
            if self.overrides:
                applied = ", ".join(f"{k} = {v}" for k, v in self.overrides.items())
                head.append(f"group {self.group_id}: overrides applied: {applied}")
            else:
                head.append(f"group {self.group_id}: no overrides (the table below applies "
                            "to it as is)")
        lines = self.table.render()
        if self.group_id is None and self.groups:
            lines = [ln for ln in lines if not ln.startswith("group overrides:")]
            lines.append(f"group overrides: {', '.join(self.groups)} (see --group)")
        return [*head, "", *lines]

    def to_json(self) -> dict[str, Any]:
        table = self.table.model_dump(mode="json", exclude={"groups"})
        return {"source": self.source, "defaults": self.defaults, "changed": self.changed,
                "group_id": self.group_id, "overrides": self.overrides, "groups": self.groups,
                "policy": table}


def flatten_overrides(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """A nested override mapping as ``{"categories.hobbies.alpha": 0.3, ...}``."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out.update(flatten_overrides(value, f"{name}."))
        else:
            out[name] = value
    return out


def policy_view(policy: PolicyTable, source: str, group_id: str | None) -> PolicyView:
    """:class:`PolicyView` of ``policy`` for ``group_id`` (None: the deployment table)."""
    override = policy.groups.get(group_id) if group_id is not None else None
    overrides = (flatten_overrides(override.model_dump(exclude_unset=True, mode="json"))
                 if override is not None else {})
    return PolicyView(policy.for_group(group_id), source, group_id, overrides,
                      sorted(policy.groups), default_policy_source(),
                      changed_from_defaults(policy))


def changed_from_defaults(policy: PolicyTable) -> dict[str, Any]:
    """The values of ``policy`` (groups aside) that differ from the packaged defaults, as
    dotted keys: where each value in force came from, the rest being the default file's."""
    def flat(table: PolicyTable) -> dict[str, Any]:
        return flatten_overrides(table.model_dump(mode="json", exclude={"groups"}))

    defaults = flat(PolicyTable.default())
    return {key: value for key, value in flat(policy).items() if defaults.get(key) != value}
