"""Pasted material recognised by the shape of its lines and paragraphs (issue 16): tool
output, transcripts, letters opened by a salutation, headed sections after a paste, long
impersonal articles. The user's own words next to a paste are still extracted."""

from __future__ import annotations

from datetime import UTC, datetime

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
