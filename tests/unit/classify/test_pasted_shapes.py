"""Pasted material recognised by the shape of its lines and paragraphs (issue 16): tool
output, transcripts, letters opened by a salutation, headed sections after a paste, long
impersonal articles. The user's own words next to a paste are still extracted."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from fr_graph.classify.extract import extract_message
from fr_graph.classify.prose import pasted_letters, pasted_regions

NOW = datetime(2026, 5, 4, 12, 0, tzinfo=UTC)


def covered(text: str) -> str:
    """``text`` with what is not set aside blanked: a pasted part stays a substring."""
    regions = pasted_regions(text)
    regions = regions + pasted_letters(text, regions)
    kept = [" "] * len(text)
    for region in regions:
        kept[region.start:region.end] = text[region.start:region.end]
    return "".join(kept)


def facts(text: str) -> list[str]:
    return [f.fact for f in extract_message(text, NOW).facts]


def test_numbered_stack_frames_and_tool_error_labels_are_traces() -> None:
    text = ("My shop runs on WordPress.\n\n"
            "PHP Fatal error:  Uncaught ValueError: bad date in /srv/www/shop/cart.php:40\n"
            "#0 /srv/www/shop/cart.php(40): Cart->total()\n"
            "#1 /srv/www/shop/index.php(12): render_cart()\n\n"
            "I updated PHP to 8.3 yesterday.")
    assert [r.kind for r in pasted_regions(text)] == ["trace"]
    assert facts(text) == ["User's shop runs on WordPress", "User updated PHP to 8.3 yesterday"]


def test_a_label_repeated_down_the_lines_is_a_transcript_or_tool_output() -> None:
    chat = ("My flatmate Jonas sent these after the party.\n\n"
            "Jonas: the kitchen is a disaster honestly\n"
            "Jonas: I'll clean it up tomorrow but you owe me\n\n"
            "We split the rent 50/50.")
    assert "I'll clean it up" in covered(chat)
    assert all("clean" not in fact for fact in facts(chat))
    tool = ("Our CI broke this morning.\n"
            "yarn ERR! missing lockfile\nyarn ERR! run install first\nyarn ERR! exiting\n")
    assert "missing lockfile" in covered(tool) and "run install" in covered(tool)
    # Different labels on each line are the user's own notes.
    notes = "Pros: it is close to my office\nCons: the rent is high"
    assert pasted_regions(notes) == []


def test_plain_lines_inside_a_mostly_pasted_paragraph_are_pasted_too() -> None:
    text = ("I build my Android game on a 2018 laptop.\n\n"
            "Compiling shaders...                                  12.4s\n"
            "Packing assets...                                      3.1s\n"
            "Build did not finish\n"
            "Error (gradle): task :app:merge failed with status 2\n"
            "Could not launch the emulator.\n\n"
            "It worked last week.")
    assert "Build did not finish" in covered(text)
    assert "Could not launch the emulator." in covered(text)
    assert facts(text) == ["User builds User's Android game on a 2018 laptop"]


def test_a_paragraph_of_the_users_own_voice_stays_even_inside_a_paste() -> None:
    text = ("Compiling shaders...                                  12.4s\n"
            "Packing assets...                                      3.1s\n"
            "I killed it after an hour\n")
    assert "I killed it" not in covered(text)


def test_a_salutation_after_the_user_has_spoken_opens_a_quoted_letter() -> None:
    letter = ("Hello Priya,\n\n"
              "I wanted to let you know that I have moved the team offsite to Porto and "
              "that I expect everyone to book their own flights by Friday.\n\n"
              "Speak soon,\nGordon")
    text = f"My manager sent this to the whole team.\n\n{letter}\n\nI'm vegan, by the way."
    assert covered(text).split() == letter.split()
    assert "User is vegan, by the way" in facts(text)
    assert not any("Porto" in fact for fact in facts(text))


def test_a_letter_signed_with_a_signature_block_ends_there() -> None:
    text = ("My son's nursery sent this and I can't read Dutch well.\n\n"
            "Beste ouders,\n\nDe school is gesloten op vrijdag 12 juni.\n\n"
            "Met vriendelijke groet\nAnke de Vries\nBasisschool De Linde\n\n"
            "My son Daan is four.")
    assert "gesloten" in covered(text) and "Anke de Vries" in covered(text)
    assert "My son Daan is four." not in covered(text)


def test_the_users_own_draft_letter_stays_their_prose() -> None:
    text = ("Could you proofread this before I send it to my landlord?\n\n"
            "Hi Colin,\n\nI have lived in flat 4 for six years and I would like to renew "
            "the lease for another two.\n\nThanks,\nNadia")
    assert "six years" not in covered(text)
    assert any("six years" in fact for fact in facts(text))


def test_a_headed_section_right_after_a_paste_is_more_of_it() -> None:
    text = ("I'm brewing a stout for my dad's birthday.\n\n"
            "Batch size:     20 L\nBoil time:      60 min\nMash temp:      66 C\n\n"
            "NOTES\nKeep fermentation below 20 C for a clean finish.\n\n"
            "I ferment in a chest freezer.")
    assert "Keep fermentation" in covered(text)
    assert "I ferment" not in covered(text)


def test_a_long_run_of_impersonal_paragraphs_is_a_pasted_article() -> None:
    paragraph = ("Tomato plants need steady watering, since irregular moisture causes the "
                 "fruit to split and encourages blossom end rot on the lower trusses. ")
    article = "\n\n".join(paragraph * 2 for _ in range(3))
    text = f"I grow tomatoes on my balcony in Lyon.\n\n{article}\n\nI water them every evening."
    assert " ".join(article.split()) in " ".join(covered(text).split())
    assert facts(text) == ["User grows tomatoes on User's balcony in Lyon",
                           "User waters them every evening"]
    # Without a first-person word anywhere, nothing says it is someone else's text.
    assert pasted_letters(article, []) == []


def test_a_capitals_title_with_a_parenthetical_opens_a_document() -> None:
    text = ("My parents booked this for us.\n\n"
            "ALPINE LAKES — FAMILY HIKING WEEK (6 days / 5 nights)\n"
            "Day 1 — arrival in Annecy, welcome dinner at the lodge.\n"
            "Day 2 — ridge walk above Talloires, picnic at the col.\n\n"
            "Hotel Bellevue, half board, transfers included.\n\n"
            "My knee is still sore from skiing.")
    assert "Hotel Bellevue" in covered(text)
    assert "My knee" not in covered(text)


def test_a_hyphenated_place_name_is_not_a_first_person_word() -> None:
    text = ("My aunt planned our route.\n\n"
            "ROUTE OVERVIEW\nMorning: Tel-i-Kharab ruins and the old bazaar.\n"
            "Afternoon: free time in the market.\n\nI get carsick on mountain roads.")
    assert "Tel-i-Kharab" in covered(text)
    assert "I get carsick" not in covered(text)


def test_a_paragraph_someone_else_wrote_is_set_aside_after_the_user_introduces_it() -> None:
    # First person inside it is the sender's, not the user's.
    note = ("I'm honestly hurt. I cooked for six hours and you left before dessert. "
            "I thought you cared about this family.")
    text = (f"My brother Kofi texted me this after Sunday lunch:\n\n{note}\n\n"
            "I had a work emergency and left at 8. I run a bakery in Accra.")
    assert note in covered(text)
    assert facts(text) == ["User's brother Kofi texted User this after Sunday lunch",
                           "User had a work emergency and left at 8",
                           "User runs a bakery in Accra"]


def test_a_pointed_at_paragraph_without_the_users_voice_is_set_aside() -> None:
    clause = ("7.2 The Employee shall not, for a period of twelve months after termination, "
              "solicit any client of the Company.")
    text = (f"My employer says I breached this clause:\n\n{clause}\n\n"
            "I left in March and one client followed me.")
    assert clause in covered(text)
    assert "User left in March and one client followed User" in facts(text)
    # Only a pointer opens it: a colon alone keeps the user's own notes.
    notes = "Dentist on Tuesday at 3pm, parents' evening on Thursday."
    assert notes not in covered(f"My week:\n\n{notes}\n\nI'm swamped.")


def test_a_paragraph_the_user_points_back_at_is_set_aside() -> None:
    review = ("Priya consistently exceeds targets and mentors junior staff. She should "
              "work on delegating more.")
    text = f"{review}\n\nThat's my annual review from my manager. I've been there 5 years."
    assert review in covered(text)
    assert not any("Priya" in fact for fact in facts(text))


def test_a_chat_export_with_bracketed_times_is_a_transcript() -> None:
    text = ("Group chat from last night, I'm Sam:\n\n[21:02] Lou: we booked the cabin\n"
            "[21:04] Sam: nice\n[21:05] Dee: I can't come, I'm in Rome")
    assert facts(text) == ["User is Sam"]
    assert "Dee: I can't come" in covered(text)


def test_a_header_row_and_sql_or_dockerfile_lines_are_pasted() -> None:
    table = "Date  Pace  Distance  Notes\n01/05  5:40  10 km  easy"
    assert "Date  Pace" in covered(f"My runs this week:\n\n{table}\n\nI run before work.")
    sql = "SELECT id FROM runs\nWHERE pace < 6\nORDER BY day"
    assert "WHERE pace" in covered(f"I log my runs in Postgres.\n\n{sql}\n\nIt is slow.")
    docker = "FROM python:3.12\nRUN pip install flask\nCMD [\"flask\", \"run\"]"
    assert "CMD" in covered(f"I deploy my app on Fly.\n\n{docker}\n\nIt crashes.")


def test_pointers_labels_and_indirect_questions_are_not_facts() -> None:
    # A short pointer at the paste says nothing of its own; a named one is kept.
    trace = "Traceback (most recent call last):\n  File \"app.py\", line 3\nKeyError: 'x'"
    assert facts(f"got this today\n\n{trace}") == []
    kept = facts(f"My mentor Ilse sent me this from our Berlin office\n\n{trace}")
    assert kept == ["User's mentor Ilse sent User this from our Berlin office"]
    # A label over the paste, and a single word, are not statements.
    assert facts(f"I maintain a Flask shop. Output:\n\n{trace}") == ["User maintains a Flask shop"]
    assert facts("Booked!") == ["User Booked"]
    assert facts("Spreadsheet") == []
    # An indirect question, or a question without its mark, is asked, not told.
    assert facts("I honestly don't know how to tell my landlord") == []
    assert facts("is that normal for a toddler or") == []
    assert facts("I don't know any of my neighbours yet") == [
        "User doesn't know any of User's neighbours yet"]


@pytest.mark.parametrize(("message", "kept"), [
    # A pointer at a time, not at a paste; the user's own news after a colon.
    ("Things I found out this week:\n\nMy blood type is O negative.",
     "User's blood type is O negative"),
    ("Some news from the family this week:\n\nMaya got into Oxford.", "Maya got into Oxford"),
    ("I got a new job this month. My plan for the move:\n\nWe're moving to Leeds in June.",
     "We're moving to Leeds in June"),
    ("Quick update on the house:\n\nThe roof is being replaced next week and the kitchen is "
     "finished.\n\nThis is costing way more than we budgeted.",
     "The roof is being replaced next week"),
    # Ordinary sentences next to a paste are not pointers at it.
    ("Got married this weekend!\n\n```\nx = 1\n```", "User Got married this weekend"),
    ("I sent the forms this morning.\n\n```\nx = 1\n```", "User sent the forms this morning"),
    # Indirect questions that state something, statements that look like questions.
    ("We're not sure when the baby is due, probably early March",
     "We're not sure when the baby is due"),
    ("I'm running the Berlin marathon in September whether I'm ready or not",
     "User is running the Berlin marathon in September whether User is ready or not"),
    ("Do 3 sets of squats every morning before work", "3 sets of squats"),
    # Capitalised emphasis is not SQL; a past-tense label before a paste is news.
    ("AND my landlord raised the rent again", "User's landlord raised the rent again"),
    ("Moved to Denver:\n\n```\nrent = 1800\n```", "User Moved to Denver"),
])
def test_ordinary_chat_keeps_its_facts_next_to_the_paste_rules(message: str, kept: str) -> None:
    assert any(kept in fact for fact in facts(message)), facts(message)
