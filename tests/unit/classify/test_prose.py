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


def test_a_signed_email_is_set_aside_to_its_sign_off_even_when_its_writer_says_i() -> None:
    email = ("From: Valentina Ortiz <v@bodega.example>\nSubject: Re: website ideas\n\n"
             "Hi!! My father and I loved the first draft.\n\n1. An online shop\n"
             "2. A booking calendar\n\nUn abrazo,\nValentina")
    text = f"I'm a freelance web developer.\n\n{email}\n\nShould I send a second quote?"
    regions = pasted_regions(text)
    letters = pasted_letters(text, regions)
    covered = "".join(text[r.start:r.end] for r in sorted(regions + letters,
                                                          key=lambda r: r.start))
    assert "My father and I" in covered and "Un abrazo" in covered
    assert "freelance" not in covered and "second quote" not in covered


@pytest.mark.parametrize("document", [
    "Easy Weekend Sourdough (1 loaf)\n\n100 g active starter\n375 g water\n500 g flour\n\n"
    "1. Mix starter and water.\n2. Add flour and rest 1 hour.",
    "House Rules - Machiya Suzuran\n1. Check-in 16:00-21:00.\n2. No shoes inside.\n"
    "3. Quiet hours 21:00-8:00.",
    "[14/05 21:02] Rocío: No vamos a vender la casa.\n[14/05 21:05] Beto: Nadie ha dicho "
    "vender.\n[14/05 21:06] Rocío: Eso mismo dijo Lupita.",
    "Pay period: 29/09/2026 - 12/10/2026\nGross earnings               3,846.15\n"
    "Net pay                      2,644.15",
])
def test_pasted_documents_give_no_prose_to_extract(document: str) -> None:
    text = f"I'm trying to make sense of this.\n\n{document}\n\nI think it's fine?"
    regions = pasted_regions(text)
    regions += pasted_letters(text, regions)
    masked = mask_regions(text, regions)
    assert " ".join(masked.split()) == "I'm trying to make sense of this. I think it's fine?"
