"""Pasted material in chat messages: found by shape, blanked with offsets kept."""

from __future__ import annotations

import pytest

from fr_graph.classify.prose import mask_regions, pasted_letters, pasted_regions


def kinds(text: str) -> list[tuple[str, str]]:
    return [(r.kind, text[r.start:r.end]) for r in pasted_regions(text)]


def test_a_fenced_block_is_code_even_when_its_lines_read_like_prose() -> None:
    text = "My app is in Flask.\n```\nI love my wife and my dog\nx = 1\n```\nThanks!"
    ((kind, region),) = kinds(text)
    assert kind == "code"
    assert region.startswith("```") and region.rstrip().endswith("```")


def test_an_unclosed_fence_runs_to_the_end() -> None:
    text = "here:\n```python\ndef f():\n    return my_partner\n"
    ((kind, region),) = kinds(text)
    assert kind == "code" and region.endswith("return my_partner\n")


@pytest.mark.parametrize(("paste", "kind"), [
    ("Traceback (most recent call last):\n  File \"app.py\", line 3, in <module>\n"
     "    main()\nKeyError: 'partner'", "trace"),
    ("2026-03-01 12:00:01 INFO server started\n2026-03-01 12:00:02 ERROR worker died",
     "log"),
    ("> You said I should use Postgres.\n> And that I should move to Berlin.", "quote"),
    ("| item | qty |\n| --- | --- |\n| flour | 2 |", "table"),
    ("def order():\n    qty = int(request.form['qty'])\n    return qty", "code"),
    ("date,amount,balance\n2026-02-01,-42.10,1200.00\n2026-02-02,-3.50,1196.50", "table"),
    ("src/app.tsx:48:23 - error TS2345: Argument of type 'string' is not assignable", "trace"),
    ("{\n  \"message\": \"Cannot return null for my field\",\n  \"code\": 500\n}", "code"),
    ("Test Name       Result    Units\nGlucose         104       mg/dL", "table"),
])
def test_unfenced_pastes_are_found_by_their_shape(paste: str, kind: str) -> None:
    text = f"I run a bakery in Leeds.\n{paste}\nMy deadline is Friday."
    regions = kinds(text)
    assert [k for k, _ in regions] == [kind]
    assert regions[0][1].strip() == paste.strip()


@pytest.mark.parametrize("prose", [
    "My rent is $1,450/month (up from $1,300), which is a lot.",
    "- I have two kids, Mia (5) and Leo (8), both at Oakfield Primary.",
    "1. Moved to Kraków in May\n2. Started a new job at Müller & Co in June",
    "We switched from Postgres to SQLite last week; it's just me and Zoë.",
    "Problem: my partner is vegetarian and I'm not.",
])
def test_the_users_own_writing_is_not_a_paste(prose: str) -> None:
    assert pasted_regions(prose) == []


def test_masking_keeps_offsets_and_line_breaks() -> None:
    text = "I live in Leeds.\n```\ncode here\n```\nI have a cat."
    masked = mask_regions(text, pasted_regions(text))
    assert len(masked) == len(text)
    assert masked.count("\n") == text.count("\n")
    assert "code" not in masked
    assert masked.index("I have a cat.") == text.index("I have a cat.")


def test_a_pasted_letter_addressing_its_reader_is_set_aside() -> None:
    letter = ("Dear Parents and Carers, we are delighted to confirm the Year 4 residential "
              "trip. The total cost is £235 per child and your deposit is due by Friday 20 "
              "March. Kind regards, Mrs Patel")
    text = f"My son Theo is going on this trip and I'm worried.\n\n{letter}\n\nCan you help?"
    region, *rest = pasted_letters(text, pasted_regions(text))
    assert text[region.start:region.end] == letter
    # The letter runs until the user speaks in the first person again.
    assert [text[r.start:r.end] for r in rest] == ["Can you help?"]
    reply = f"{text}\n\nI think the deposit is too much."
    assert len(pasted_letters(reply, [])) == 2
    # The user's own third-person paragraph is not a letter: it does not address a reader.
    story = ("Mia started Year 2 in September. She is struggling with reading and her "
             "teacher thinks a tutor could help before the spring term begins.")
    assert pasted_letters(f"I need advice.\n\n{story}", []) == []


def test_a_document_under_a_title_in_capitals_is_set_aside_until_the_user_speaks() -> None:
    itinerary = ("YOUR VIETNAM ADVENTURE - 10 DAYS\n\nDay 1: transfer to Hanoi La Siesta "
                 "Hotel.\n\nDay 2: kayaking at Luon Cave, sunset on the sundeck.")
    text = f"Our anniversary trip, booked!\n\n{itinerary}\n\nI think day 2 is too much."
    regions = pasted_letters(text, pasted_regions(text))
    assert [text[r.start:r.end] for r in regions] == itinerary.split("\n\n")
