"""A small hand-made LifecycleBench suite: one persona per split, every attack vector.

Used by the benchmark's unit and integration tests; independent of the generator.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from fr_graph.bench.dataset import AttackVector, GoldFact, Persona, Question, Split, Suite
from fr_graph.core.lifecycle import LifecycleState, Marker
from fr_graph.core.ontology import Category

START = datetime(2025, 1, 6, 9, tzinfo=UTC)
A, S, R, X = (LifecycleState.ACTIVE, LifecycleState.SUPERSEDED, LifecycleState.RETRACTED,
              LifecycleState.EXPIRED)
C = Category


def _day(n: float) -> datetime:
    return START + timedelta(days=n)


def persona(pid: str, split: Split) -> Persona:
    facts: list[GoldFact] = []

    def fact(key: str, text: str, day: float, category: Category, slot: str | None, *,
             marker: Marker = Marker.ASSERTION,
             changes: tuple[tuple[float, LifecycleState], ...] = (),
             event: float | None = None, noise: bool = False) -> str:
        fid = f"{pid}-{key}"
        facts.append(GoldFact(
            id=fid, text=text, observed_at=_day(day), session=int(day // 7),
            category=category, slot_key=slot, marker=marker,
            states=((_day(day), A), *((_day(d), s) for d, s in changes)),
            family=f"fam-{key}", split=split,
            event_time=_day(event) if event is not None else None, noise=noise))
        return fid

    coffee = fact("coffee", "I drink a big mug of black coffee every morning", 1,
                  C.PREFERENCES, "user|morning_drink", changes=((60, S),))
    tea = fact("tea", "I switched my morning coffee for green tea", 60, C.PREFERENCES,
               "user|morning_drink")
    dentist = fact("dentist", "I have a dentist appointment on March 20 at 3pm", 50,
                   C.OBLIGATIONS, "user|dentist_appointment", changes=((74, X),), event=73)
    nurse = fact("nurse", "I work as a pediatric nurse at the children's hospital", 2,
                 C.IDENTITY, "user|occupation")
    flat1 = fact("flat1", "I live in a studio flat in Leeds", 3, C.LOGISTICAL,
                 "user|home_city", changes=((40, S),))
    flat2 = fact("flat2", "I moved to Manchester into a two-bedroom flat", 40, C.LOGISTICAL,
                 "user|home_city", changes=((90, S),))
    flat3 = fact("flat3", "I moved again, I live in Bristol now", 90, C.LOGISTICAL,
                 "user|home_city")
    guitar = fact("guitar", "I play acoustic guitar in the evenings", 5, C.HOBBIES,
                  "user|hobby_guitar")
    climbing = fact("climbing", "I go bouldering at the climbing gym on weekends", 20,
                    C.HOBBIES, "user|hobby_climbing")
    veggie = fact("veggie", "I'm vegetarian and don't eat any meat or fish", 8, C.HEALTH,
                  "user|diet", changes=((70, S),))
    fish = fact("fish", "I started eating fish again, I'm pescatarian now", 70, C.HEALTH,
                "user|diet")
    tokyo = fact("tokyo", "I'm planning a trip to Tokyo in May", 30, C.PROJECTS,
                 "user|trip_tokyo", changes=((45, R),), event=120)
    cancel = fact("cancel", "I cancelled the Tokyo trip, it's not happening", 45, C.PROJECTS,
                  "user|trip_tokyo", marker=Marker.RETRACTION)
    rent = fact("rent", "My rent is $1,850 per month", 42, C.FINANCIAL, "user|rent")
    cycling = fact("cycling", "I cycle to work every day", 10, C.HOBBIES, "user|commute")
    running = fact("running", "I might start running to work instead of cycling", 80,
                   C.HOBBIES, "user|commute", marker=Marker.TENTATIVE)
    for n, text in enumerate((
            "The weather was lovely today", "Paris is the capital of France",
            "My colleague brought donuts to the office", "I watched a documentary about owls",
            "The train was ten minutes late this morning", "Water boils at 100 degrees",
            "I bought a new phone charger", "We talked about football at lunch")):
        fact(f"noise{n}", text, 4 + 11 * n, C.OTHER, None, noise=True)

    questions: list[Question] = []

    def ask(key: str, av: AttackVector, text: str, day: float, support: tuple[str, ...],
            stale: tuple[str, ...] = (), min_support: int = 1) -> None:
        questions.append(Question(
            id=f"{pid}-q-{key}", persona=pid, attack_vector=av, text=text,
            query_time=_day(day), support_ids=support, stale_ids=stale,
            family=f"qfam-{key}", split=split, min_support=min_support))

    av = AttackVector
    ask("drink", av.SUPERSEDED_PREFERENCE, "What do I drink in the morning?", 95, (tea,),
        (coffee,))
    ask("dentist-before", av.EXPIRED_LOGISTICS, "When is my dentist appointment?", 55,
        (dentist,))
    ask("dentist-after", av.EXPIRED_LOGISTICS, "Do I have any appointments coming up?", 100,
        (rent,), (dentist,))
    ask("job", av.BURIED_IDENTITY, "What do I do for a living?", 100, (nurse,))
    ask("home", av.MULTI_VERSION, "Where do I live?", 95, (flat3,), (flat1, flat2))
    ask("hobbies", av.BROAD_AGGREGATION, "What are my hobbies?", 60, (guitar, climbing),
        min_support=2)
    ask("diet", av.CROSS_SESSION_CONTRADICTION, "Do I eat fish?", 80, (fish,), (veggie,))
    ask("travel", av.SELECTIVE_FORGETTING, "What trips am I planning?", 50, (cancel,),
        (tokyo,))
    ask("rent", av.NUMERIC_PRESERVATION, "How much is my rent?", 100, (rent,))
    ask("commute", av.SOFT_SUPERSESSION, "How do I get to work?", 85, (cycling, running))
    return Persona(id=pid, facts=tuple(facts), questions=tuple(questions), sessions=15)


def tiny_suite(seed: int = 7) -> Suite:
    return Suite(seed=seed, size="quick",
                 personas=(persona("p1", "dev"), persona("p2", "heldout")))
