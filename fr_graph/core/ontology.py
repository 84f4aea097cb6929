"""The 10+1 behavioral ontology (Fortunate Recall, Table 1).

A fact's category says how it changes over time, not what it is about: the category picks
its decay rate, supersession semantics, expiry logic and retrieval routing.
"""

from __future__ import annotations

from enum import StrEnum


class Category(StrEnum):
    """Behavioral categories; the value is the stable identifier stored in the graph."""

    IDENTITY = "identity"
    RELATIONAL = "relational"
    INTELLECTUAL = "intellectual"
    HEALTH = "health"
    PROJECTS = "projects"
    HOBBIES = "hobbies"
    PREFERENCES = "preferences"
    FINANCIAL = "financial"
    OBLIGATIONS = "obligations"
    LOGISTICAL = "logistical"
    OTHER = "other"


CATEGORY_LABELS: dict[Category, str] = {
    Category.IDENTITY: "Identity & Self-Concept",
    Category.RELATIONAL: "Relational Bonds",
    Category.INTELLECTUAL: "Intellectual Interests",
    Category.HEALTH: "Health & Wellbeing",
    Category.PROJECTS: "Projects & Endeavors",
    Category.HOBBIES: "Hobbies & Recreation",
    Category.PREFERENCES: "Preferences & Habits",
    Category.FINANCIAL: "Financial & Material",
    Category.OBLIGATIONS: "Obligations",
    Category.LOGISTICAL: "Logistical Context",
    Category.OTHER: "Other / Open-Set",
}
