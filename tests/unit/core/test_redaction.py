"""Removing a purged fact's sentences from Graphiti's prose (fr_graph.core.redaction)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from fr_graph.core.redaction import fact_phrases, mentions, redact

FACT = "Priya is allergic to peanuts"


def test_removes_only_the_sentences_holding_the_fact() -> None:
    summary = "Priya lives in Denver. PRIYA is  allergic to peanuts! She plays chess."
    result = redact(summary, FACT)
    assert result.text == "Priya lives in Denver. She plays chess."
    assert result.removed == 1 and result.paraphrases == ()
    assert not mentions(result.text, FACT) and mentions(summary, FACT)


def test_a_sentence_that_also_says_more_goes_whole() -> None:
    result = redact("Priya is allergic to peanuts and shellfish, and likes tea.", FACT)
    assert result.empty and result.removed == 1


def test_lines_are_kept_and_an_emptied_text_says_so() -> None:
    episode = "user: Priya is allergic to peanuts.\nassistant: Noted. I will remember."
    assert redact(episode, FACT).text == "assistant: Noted. I will remember."
    assert redact("user: Priya is allergic to peanuts.", FACT).empty


def test_paraphrases_are_reported_not_removed() -> None:
    text = "Priya has an allergy: peanuts make Priya allergic. Priya likes tea."
    result = redact(text, FACT)
    assert result.removed == 0 and result.text == text
    assert result.paraphrases == ("Priya has an allergy: peanuts make Priya allergic.",)


def test_each_sentence_of_a_longer_fact_is_found_on_its_own() -> None:
    fact = "Priya moved to Denver in May. She works at the zoo."
    assert fact_phrases(fact) == ["priya moved to denver in may",
                                  "priya moved to denver in may. she works at the zoo",
                                  "she works at the zoo"]
    result = redact("Priya works remotely. She works at the zoo. Priya moved to Denver in May.",
                    fact)
    assert result.text == "Priya works remotely." and result.removed == 2


def test_unrelated_text_is_returned_unchanged() -> None:
    text = "Line one.\n\n  Line   two."
    result = redact(text, FACT)
    assert result.text == text and result.removed == 0


def test_short_fragments_never_match() -> None:
    assert fact_phrases("Ok.") == [] and redact("Ok. Fine.", "Ok.").removed == 0


@given(st.lists(st.sampled_from(["Priya lives in Denver.", "She plays chess.", FACT + ".",
                                 "Tea is nice!", "Priya is allergic to peanuts, sadly."]),
                max_size=8))
def test_no_sentence_with_the_fact_survives(sentences: list[str]) -> None:
    result = redact(" ".join(sentences), FACT)
    assert not mentions(result.text, FACT)
    assert result.removed == sum(FACT.lower() in s.lower() for s in sentences)
