"""What in a chat message is the user talking, and what is pasted material.

Users paste code, stack traces, logs, tables and the assistant's own words into their
messages. None of it is a statement about the user, and extracting from it produces junk
facts ("User's partner = request.args.get('partner')"). :func:`pasted_regions` finds those
regions line by line; :func:`mask_regions` blanks them out while keeping every offset (and
line break) of the message, so sentence spans still point into the original text.

The rules are about the *shape* of a line, not its vocabulary: fences, indentation, quote
markers, the layout of tracebacks and log lines, and how much of a line is punctuation
that prose does not use.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Literal

RegionKind = Literal["code", "trace", "log", "quote", "table", "letter"]


@dataclass(frozen=True, slots=True)
class Region:
    """A pasted region of a message: ``text[start:end]`` is of ``kind``."""

    kind: RegionKind
    start: int
    end: int


#: A line's kind is judged on its first characters (bounds the work on a huge line).
LINE_HEAD = 300

_FENCE = re.compile(r"^\s*(?:```|~~~)")
_QUOTE = re.compile(r"^\s*>")
_TRACE = re.compile(
    r"^\s*(?:Traceback \(most recent call last\)|File \"[^\"]*\", line \d+"
    r"|at [\w$./<>]+\(.*\)\s*$|Caused by: |[\w.-]+:[\w/.-]+:\d+\s*$|Exception in thread "
    r"|\.\.\. \d+ more\s*$"
    r"|at (?:async |new )?[\w$.<>]+ \(.*:\d+:\d+\)\s*$|[\w.]*(?:Error|Exception|Warning)"
    r"(?: \[\w+\])?(?:: .*)?\s*$|panic: |goroutine \d+ \[|\^+\s*$|~+\^~*\s*$)"
    # A source position or a memory address anywhere in a line: compiler and runtime output.
    r"|^\s*\S*[\w/-]\.[A-Za-z]{1,5}:\d+(?::\d+)?\b|\b0x[0-9a-fA-F]{4,}\b|\bgoroutine \d+\b"
    r"|^\s*\w*(?:Error|Exception)\s+Traceback\b|^\s*(?:error|warning)\[\w+\]:"
    r"|^\s*[\u2500-\u257f]|^\s*(?:FAILURE|BUILD FAILED|FAILED|PASSED|ERROR):?\s"
    # A numbered stack frame naming a file ("#0 /srv/app/x.php(88): f()").
    r"|^\s*#\d+\s+\S*[/\\]\S*\(\d+\)"
    # A tool's error label: "PHP Fatal error:  ...", "Error (Xcode): ...", "Build warning: ...".
    r"|^\s*(?:[A-Z][\w.-]*\s+){0,2}(?:[Ff]atal\s+)?(?:[Ee]rror|[Ww]arning|ERROR|WARNING)"
    r"(?:\s*\([^)\n]{1,30}\))?:\s"
)
_LOG = re.compile(
    r"^\s*(?:\[?\d{4}[-/.]\d{2}[-/.]\d{2}[ T,]\d{2}:\d{2}|\S+ - \S+ \[|\[?\d{2}:\d{2}:\d{2}[.,\]\s]"
    r"|\[?(?:TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL|CRITICAL)\]?[\s:]"
    # A chat export: "[14/05 21:02] Rocío: ...", "12/05/2026, 21:02 - Beto: ..."
    r"|\[?\d{1,2}[/.]\d{1,2}(?:[/.]\d{2,4})?,?\s+\d{1,2}:\d{2}(?::\d{2})?\]?\s*(?:-\s*)?[^:]{1,40}:"
    # ... or its time alone in brackets: "[10:04] Mel: ...", "[9:15 PM] Dad: ..."
    r"|\[\d{1,2}:\d{2}(?::\d{2})?(?:\s?[AaPp]\.?[Mm]\.?)?\]\s*(?:-\s*)?[^:\]]{1,40}:"
    r"|\w+\s+\|\s+(?:TRACE|DEBUG|INFO|WARN|ERROR)|[$#] |>>> |\.\.\. |PS [A-Z]:\\|C:\\)"
)
_CODE_START = re.compile(
    r"^\s*(?:def |class \w+[:(]|import \w|from [\w.]+ import |return\b|if .*:\s*$"
    r"|for .* in .*:\s*$|while .*:\s*$|elif |else:|try:|except\b|finally:|with .* as .*:"
    r"|async def |await |function\b|const |let |var |public |private |protected |static "
    r"|package |#include|#!/|@[\w.]+(?:\(|\s*$)|SELECT |INSERT |UPDATE \w+ SET|CREATE TABLE"
    r"|DELETE FROM|ALTER TABLE|GROUP BY |ORDER BY |(?:LEFT|RIGHT|INNER|OUTER) JOIN "
    # A one-word SQL clause with code in it ("WHERE r.ts > now()"), not capitalised emphasis
    # ("AND my landlord raised the rent").
    r"|(?:WHERE|HAVING|FROM|AND|OR|JOIN|LIMIT|VALUES|RETURNING|UNION|WITH) (?=.*(?:[=<>()*]"
    r"|\w\.\w))"
    # Dockerfile instructions, by their arguments' shape.
    r"|(?:CMD|ENTRYPOINT|VOLUME) \[|EXPOSE \d|(?:ENV|ARG|LABEL) [\w.-]+[= ]\S"
    r"|(?:COPY|ADD|WORKDIR) \S*[/.]|RUN (?:apt|apk|pip|npm|yarn|pnpm|go |cargo|make|mkdir|chmod"
    r"|curl|wget|cd |\S+ -)"
    r"|<\/?[a-zA-Z][\w-]*(?:\s[^>]*)?\/?>|\}|\{|\)|\]|//|/\*|\*/"
    r"|--\s|<!--|\w+\s*=\s*[\w\"'\[{(]|\w+\.\w+\(|\w+\(.*\)\s*;?\s*$|\$\w+\s*="
    r"|\"[\w -]+\":\s|\[\w+ \"[^\"]*\"\]|[-=*#~]{3,}.*[-=*#~]{3,}\s*$)"
)
# Columns aligned with runs of spaces, and ruled lines under a table's header.
_ALIGNED = re.compile(
    r"\S {3,}\S.*? {3,}\S|\S {4,}[-+$\u00a3\u20ac(]?\d[\d,.]*\s?[a-zA-Z%]{0,3}\)?\s*$"
    # A header row: three or more single-word columns, every gap two spaces or more.
    r"|^\S+(?: {2,}\S+){2,}$")
_RULE = re.compile(r"[-=_*+|: ]{8,}$")
_PROSE_WORD = re.compile(r"\b[a-zA-Z][a-z]+\b")
# Punctuation code uses and prose rarely does; brackets count half ("(finally)" is prose).
_SYMBOLS = frozenset("{}[]<>=;_\\|`~^#@")
_BULLET = re.compile(r"^\s*(?:[-*\u2022]|\d+[.)])\s+\S")


def _symbol_share(line: str) -> float:
    visible = [c for c in line if not c.isspace()]
    if not visible:
        return 0.0
    weight = sum(c in _SYMBOLS for c in visible) + 0.5 * sum(c in "()" for c in visible)
    return weight / len(visible)


def reads_as_prose(line: str) -> bool:
    """Several ordinary words and sentence punctuation, little code punctuation."""
    words = _PROSE_WORD.findall(line)
    return len(words) >= 4 and _symbol_share(line) < 0.08


# Machine output inside a line: a hex address, a source position, a CSV row, a header.
_MACHINE = re.compile(
    r"0x[0-9a-fA-F]{3,}|[\w./-]+\.[A-Za-z]{1,5}:\d+|^[^,\s]*(?:,[^,\n]{0,40}){3,}$"
    r"|^[^,\s]+(?:,[^,\s]*){2,}$|\bv?\d+\.\d+\.\d+\b"
    r"|^\s*[A-Z][\w ./()-]{0,30}:\s+\S"
    # A file path with directories and an extension: "lib/main.dart", "/var/log/x.log".
    r"|(?:^|[\s(\"'])[~.]{0,2}/?[\w.-]+(?:/[\w.-]+)+\.[A-Za-z]{1,5}\b"
)


def _dense(line: str) -> bool:
    """Looks like a row of data or machine output: few letters, or a machine pattern.
    Alone such a line may be the user's own shorthand; in a run it is a paste."""
    line = line[:LINE_HEAD]
    visible = [c for c in line if not c.isspace()]
    if not visible:
        return False
    letters = sum(c.isalpha() for c in visible)
    return letters / len(visible) < 0.6 or bool(_MACHINE.search(line.strip()))


def _line_kind(line: str) -> RegionKind | None:
    """The kind of pasted material one line looks like, or None for conversation."""
    line = line[:LINE_HEAD]
    stripped = line.strip()
    if not stripped:
        return None
    if _QUOTE.match(line):
        return "quote"
    if _TRACE.match(line):
        return "trace"
    if _LOG.match(line):
        return "log"
    if (stripped.count("|") >= 2 or line.count("\t") >= 2 or _ALIGNED.search(stripped)
            or _RULE.match(stripped)):
        return "table"
    if _BULLET.match(line) and reads_as_prose(line):
        return None
    indented = line.startswith(("    ", "\t"))
    if _CODE_START.match(line) and not (reads_as_prose(line) and stripped[-1:] in ".!?"):
        return "code"
    if indented and not reads_as_prose(line):
        return "code"
    if _symbol_share(line) >= 0.15 and not reads_as_prose(line):
        return "code"
    if stripped.endswith((";", "{", "}", "):", "=>", ",")) and _symbol_share(line) >= 0.06:
        return "code"
    return None


def pasted_regions(text: str) -> list[Region]:
    """Fenced blocks (an unclosed fence runs to the end), and runs of code, trace, log,
    quote and table lines, in order. Blank lines inside a run stay in the run; data-looking
    lines (:func:`_dense`) join a run, and three of them in a row make one."""
    regions: list[Region] = []
    lines = text.splitlines(keepends=True)
    offsets: list[int] = []
    position = 0
    for line in lines:
        offsets.append(position)
        position += len(line)

    labelled = _repeated_labels(lines)

    def kind_of(i: int) -> RegionKind | None:
        return _line_kind(lines[i]) or ("log" if i in labelled else None)

    index = 0
    while index < len(lines):
        line = lines[index]
        if _FENCE.match(line):
            close = index + 1
            while close < len(lines) and not _FENCE.match(lines[close]):
                close += 1
            end_line = min(close, len(lines) - 1)
            regions.append(Region("code", offsets[index],
                                  offsets[end_line] + len(lines[end_line])))
            index = end_line + 1
            continue
        kind = kind_of(index)
        if kind is None and not _dense(line):
            index += 1
            continue
        # A run: strongly marked lines, and data-looking lines next to them or each other.
        run_end, kinds = index, [kind]
        probe = index + 1
        while probe < len(lines):
            if not lines[probe].strip():
                probe += 1
                continue
            next_kind = kind_of(probe)
            if _FENCE.match(lines[probe]) or (next_kind is None and not _dense(lines[probe])):
                break
            kinds.append(next_kind)
            run_end = probe
            probe += 1
        marked = [k for k in kinds if k is not None]
        if marked or len(kinds) >= 3:
            main: RegionKind = (max(sorted(set(marked)), key=marked.count) if marked
                                else "table")
            end = offsets[run_end] + len(lines[run_end].rstrip("\r\n"))
            regions.append(Region(main, offsets[index], end))
        index = run_end + 1
    return _absorb_block_lines(text, lines, offsets, regions)


# The start of a line up to its first ":", "!", "]" or ">" within three words: a speaker
# ("Ren:", "Ana Ruiz:"), a tool's prefix ("npm ERR!"), a level or a prompt.
_LINE_LABEL = re.compile(r"^\s*((?:[^\s:!\]>]{1,25} ){0,2}[^\s:!\]>]{1,25}[:!\]>])(?:\s|$)")


def _repeated_labels(lines: list[str]) -> set[int]:
    """Lines opening with a label that repeats: on three lines of the message, or on two
    lines in a row. A chat transcript or a tool's output, not the user writing."""
    labels = [m.group(1) if (m := _LINE_LABEL.match(line[:LINE_HEAD])) else None
              for line in lines]
    counts: dict[str, int] = {}
    for label in labels:
        if label is not None:
            counts[label] = counts.get(label, 0) + 1
    found: set[int] = set()
    previous: tuple[int, str] | None = None
    for i, label in enumerate(labels):
        if label is None:
            if lines[i].strip():
                previous = None
            continue
        if counts[label] >= 3:
            found.add(i)
        if previous is not None and previous[1] == label:
            found.update((previous[0], i))
        previous = (i, label)
    return found


_FIRST_PERSON_ANY = re.compile(
    r"(?<![\w-])(?:i|i'm|im|i've|i'll|i'd|me|my|mine|myself|we|we're|we've|our|ours|us)"
    r"(?![\w-])",
    re.IGNORECASE)


def _absorb_block_lines(text: str, lines: list[str], offsets: list[int],
                        regions: list[Region]) -> list[Region]:
    """In a paragraph (lines without a blank line between) of three or more lines that is
    mostly pasted, the other lines after the first pasted one are pasted too ("Failed to
    build iOS app" between build log lines) unless the user speaks in them: a first-person
    word or a question."""
    if not regions:
        return regions
    flagged = [False] * len(lines)
    owner: list[Region | None] = [None] * len(lines)
    cursor = 0
    for i, line in enumerate(lines):
        start, end = offsets[i], offsets[i] + len(line)
        while cursor < len(regions) and regions[cursor].end <= start:
            cursor += 1
        if cursor < len(regions) and regions[cursor].start < end and line.strip():
            # A fence closes its block itself: what follows it is the user's again.
            region = regions[cursor]
            if not _FENCE.match(text[region.start:region.start + LINE_HEAD]):
                flagged[i], owner[i] = True, region
    added: list[Region] = []
    i = 0
    while i < len(lines):
        if not lines[i].strip():
            i += 1
            continue
        j = i
        while j < len(lines) and lines[j].strip():
            j += 1
        block = range(i, j)
        marked = sum(flagged[k] or _dense(lines[k]) for k in block)
        kind = next((r.kind for r in owner[i:j] if r is not None), None)
        if len(block) >= 3 and marked * 2 >= len(block) and kind is not None:
            seen = False
            for k in block:
                seen = seen or flagged[k]
                if flagged[k] or "?" in lines[k] or _FIRST_PERSON_ANY.search(
                        lines[k][:LINE_HEAD]):
                    continue
                # Before the first pasted line only data-looking lines: the paragraph may
                # open with the user's own words ("same error on staging:").
                if seen or _dense(lines[k]):
                    end = offsets[k] + len(lines[k].rstrip("\r\n"))
                    added.append(Region(kind, offsets[k], end))
        i = j
    if not added:
        return regions
    return _coalesce(text, sorted(regions + added, key=lambda r: r.start))


def _coalesce(text: str, regions: list[Region]) -> list[Region]:
    """Regions of one kind with only white space between them become one."""
    out: list[Region] = []
    for region in regions:
        if out and out[-1].kind == region.kind and not text[out[-1].end:region.start].strip():
            out[-1] = Region(region.kind, out[-1].start, max(out[-1].end, region.end))
        elif out and region.start < out[-1].end:
            out[-1] = Region(out[-1].kind, out[-1].start, max(out[-1].end, region.end))
        else:
            out.append(region)
    return out


# Not inside a hyphenated name ("Shah-i-Zinda", "Me-Time").
_FIRST_SINGULAR = re.compile(r"(?<![\w-])(?:i|i'm|im|i've|i'll|i'd|me|my|mine|myself)(?![\w-])",
                             re.IGNORECASE)
_ADDRESSING = re.compile(
    r"\b(?:you|your|yours)\b|^\s*(?:dear|hi|hello|subject|from|to|date|re|ref|booking"
    r"|reservation|confirmation)\b[^\n]{0,60}[,:]|\b(?:kind|best|warm) regards\b"
    r"|\bsincerely\b", re.IGNORECASE | re.MULTILINE)
_LETTER_HEADER = re.compile(
    r"\s*(?i:dear\b|subject:|from:|to:|re:|fwd?:|date:.*\n\s*(?:from|to|subject):"
    r"|forwarded message|-+ ?original message)")
_HEADER_LINE = re.compile(r"^\s*(?:from|to|subject|date|cc|sent):\s+\S", re.I | re.M)
_CAPS_TITLE = re.compile(
    r"[^a-z\n]*[A-Z]{3,}[^a-z\n]*\s[^a-z\n]*[A-Z]{3,}[^a-z\n]*$")
_SIGN_OFF = re.compile(
    r"^\s*(?:best|best regards|best wishes|kind regards|regards|warm regards|warmly|many thanks"
    r"|thanks|thanks again|thank you|cheers|sincerely|yours sincerely|yours faithfully|yours"
    r"|love|all the best|saludos|un abrazo|abrazos|gr(?:ü|ue)(?:ß|ss)e|cordialement|bisous"
    r"|take care)\b[ ,!.]*(?:\n\s*[A-Z][\w.' -]{0,40})?\s*$",
    re.IGNORECASE | re.MULTILINE)
# A list item, a "Key: value" line, or a quantity ("100 g flour", "2 tbsp oil").
_STRUCTURED = re.compile(
    r"\s*(?:[-*\u2022]|\d+[.)]|[A-Z][\w ./()&-]{0,30}:|\d[\d.,/]*\s*[a-zA-Z%]{0,5})\s+\S")
_BLOCK = re.compile(r"\S(?:.|\n(?![ \t]*\n))*", re.MULTILINE)


def pasted_letters(text: str, regions: list[Region]) -> list[Region]:
    """Paragraphs the user pasted rather than wrote: a letter or email, a booking
    confirmation, a recipe, house rules, a discharge summary, a contract clause.

    - An email header or salutation ("From: ...", "Subject: ...", "Dear ...") opens a
      letter. When a sign-off ("Best,", "Kind regards", "Saludos") follows, the letter runs
      to it, whoever says "I" inside it; otherwise it runs until the user speaks again.
    - A title line over structured lines (a list, "Key: value" lines, data rows), or a title
      in capitals, opens a document that runs until the user speaks again in the first
      person.
    - In a message where the user speaks in the first person elsewhere, a paragraph of 150+
      characters with no first-person-singular word that addresses its reader ("you",
      "Kind regards") is someone else's text.
    """
    masked = mask_regions(text, regions)
    blocks = [(m.start(), m.end()) for m in _BLOCK.finditer(masked)]
    if not blocks:
        return []
    personal = [bool(_FIRST_SINGULAR.search(masked, a, b)) for a, b in blocks]
    voiced = [bool(_FIRST_PERSON_ANY.search(masked, a, b)) for a, b in blocks]
    signs = [_signs_off(masked[a:b]) for a, b in blocks]
    closing = [bool(_SIGN_OFF.search(masked, a, b) or shaped or _signature(masked[a:b]))
               for (a, b), shaped in zip(blocks, signs, strict=True)]
    starts = [r.start for r in sorted(regions, key=lambda r: r.start)]
    impersonal = _impersonal_runs(masked, blocks, voiced) if any(personal) else set()
    letters: list[Region] = []
    mode: Literal["letter", "document"] | None = None
    for index, ((start, end), mine) in enumerate(zip(blocks, personal, strict=True)):
        block = masked[start:end]
        # An email header already set aside as a key-value table still opens the letter.
        before = blocks[index - 1][1] if index else 0
        if mode is None and _HEADER_LINE.search(text, before, start):
            mode = "letter" if any(closing[index:]) else "document"
        if mode == "letter":
            letters.append(Region("letter", start, end))
            if closing[index]:
                mode = None
            continue
        # A paragraph the user points at, just before or after it; not when the pointer's
        # paste was already found (the paragraph after it is the user's again).
        introduced = (_introduction(masked[blocks[index - 1][0]:before])
                      if index and not _region_between(starts, before, start) else None)
        if introduced == "theirs" or (introduced == "pointed" and not voiced[index]) or (
                index == 0 and len(blocks) > 1 and not voiced[index]
                and not _region_between(starts, start, blocks[1][1])
                and _POINTS_BACK.match(masked, blocks[1][0])):
            letters.append(Region("letter", start, end))
            following = masked[start:blocks[index + 1][1]] if index + 1 < len(blocks) else block
            mode = "document" if _opens_document(following) else None
            continue
        if _LETTER_HEADER.match(block) or (
                index and _salutation(block, mine, any(closing[index:]))
                and not _OWN_DRAFT.search(masked, 0, start)):
            letters.append(Region("letter", start, end))
            signed = any(closing[index:])
            mode = None if closing[index] else "letter" if signed else "document"
            continue
        if mine:
            mode = None
            continue
        # Right after a paste, a section under its own heading ("NOTES", "Alternative:")
        # without the user's voice is more of it; so is a short stretch between two pastes.
        after_paste = _region_between(starts, before, start)
        if after_paste and not voiced[index] and "?" not in block:
            following_paste = _region_between(
                starts, end, blocks[index + 1][0] if index + 1 < len(blocks) else len(text))
            if _heading(block) or (following_paste and block.count("\n") < 3):
                letters.append(Region("letter", start, end))
                mode = "document" if _heading(block) else mode
                continue
        if index in impersonal:
            letters.append(Region("letter", start, end))
            continue
        following = masked[start:blocks[index + 1][1]] if index + 1 < len(blocks) else block
        if mode == "document" or _opens_document(following):
            letters.append(Region("letter", start, end))
            mode = "document"
            continue
        if (any(personal) and end - start >= 150
                and _ADDRESSING.search(masked, start, end)):
            letters.append(Region("letter", start, end))
    return letters


# The user's sentence before a paste, pointing at it: "My sister sent me this article:",
# "This is from one of the brochures:", "the landlord cites this clause:". Someone else
# wrote what follows ("theirs", whoever says "I" in it), or the pointer names something
# ("pointed") that is pasted unless it speaks in the first person. "This" naming a time
# ("this week", "this morning") points at nothing.
#: Not followed by a time word: "this morning", "these weeks" point at no paste.
NOT_A_TIME_WORD = (r"(?!\s+(?:morning|afternoon|evening|night|week|weekend|month|year|time"
                   r"|summer|winter|spring|autumn|fall|term|semester|season|quarter)\b)")
_POINTER = re.compile(
    r"\b(?:(?:this|these|the following)" + NOT_A_TIME_WORD + r"(?:\s+[\w'-]+){0,5}|following|below"
    r"|as follows|it says|says|reads)\s*:$", re.IGNORECASE)
_THEIRS = re.compile(
    r"\b(?:sent|forwarded|got|received|found|gave|wrote|posted|shared|texted|emailed"
    r"|messaged|left|pulled|copied)(?:\s+(?:me|us|him|her|them|assigned))?\s+(?:this|these"
    r"|the following)\b" + NOT_A_TIME_WORD +
    r"|\b(?:this|these|it)\s+(?:is|are|was|'s)\s+(?:\w+\s+){0,2}?from\b",
    re.IGNORECASE)
# The user's paragraph after a paste that opened the message, pointing back at it: "this
# is my son's report card", "that's the reply from the clinic".
_POINTS_BACK = re.compile(
    r"(?:this|that|the above|above)(?:\s+(?:is|was|are|were)|'s|\u2019s)\s+(?:my|our|the|a"
    r"|an|from|what|his|her|their)\b", re.IGNORECASE)


def _introduction(block: str) -> Literal["theirs", "pointed"] | None:
    """How a paragraph ending with a colon introduces the next one: it says someone else
    wrote it (:data:`_THEIRS`), or its last sentence points at it (:data:`_POINTER`);
    ``None`` otherwise, or when the user says the text is their own draft."""
    stripped = block.rstrip()
    if not stripped.endswith(":"):
        return None
    sentence = re.split(r"(?<=[.!?])\s+|\n", stripped)[-1]
    if _OWN_DRAFT.search(stripped):
        return None
    if _THEIRS.search(stripped):
        return "theirs"
    return "pointed" if _POINTER.search(sentence) else None


# "Hi Mirela,", "Cara Chiara,", "Hello team,": a greeting and whom it greets, on a line
# of its own. After the user has spoken, it opens a letter they are quoting.
_SALUTATION_LINE = re.compile(r"[^\W\d_][\w'.-]*(?:\s+[\w'.-]+){1,3},")


# The user says the letter is theirs, to be sent or improved: its "I" is the user, so it
# stays prose ("can you polish this email to my boss", "check this before I send it").
_OWN_DRAFT = re.compile(
    r"\b(?:(?:i|i've|i have|i just)\s+(?:wrote|written|drafted)|my\s+draft|draft(?:ed)?\b"
    r"|before\s+i\s+send|(?:am|i'm|im)\s+(?:about|going)\s+to\s+send|polish|proofread"
    r"|re-?word|rephrase|tone\s+of\s+this|my\s+(?:email|letter|message|note)\s+to)",
    re.IGNORECASE)


def _salutation(block: str, mine: bool, signed: bool) -> bool:
    """A letter opens here: a salutation line, with a sign-off somewhere after it or no
    first-person word in the rest of the paragraph."""
    first, _, rest = block.partition("\n")
    return bool(_SALUTATION_LINE.fullmatch(first.strip())) and (signed or not mine) and bool(
        rest.strip() or signed)


def _short_line(line: str, words: int) -> bool:
    stripped = line.strip()
    return 0 < len(stripped.split()) <= words and stripped[-1:] not in ".?!;:"


def _signs_off(block: str) -> bool | None:
    """A sign-off by shape: a short line ending in a comma over a name ("Let me know,\n
    Dragan", "Ti voglio bene,\nNonna"). ``None`` when the paragraph is not one at all."""
    lines = [line.strip() for line in block.splitlines() if line.strip()]
    for cut in range(max(0, len(lines) - 4), len(lines) - 1):
        head, names = lines[cut], lines[cut + 1:]
        if (len(head.split()) <= 5 and head.endswith(",") and names[0][:1].isupper()
                and all(_short_line(name, 6) for name in names)):
            return True
    return None


def _signature(block: str) -> bool:
    """A closing block of a letter: two to four short lines without sentence punctuation
    ("Med vennlig hilsen\nKari Johnsen, teacher 2B\nKroken school")."""
    lines = [line for line in block.splitlines() if line.strip()]
    # Not a list ("1. An online shop") nor header lines ("Subject: Re: ideas").
    return 2 <= len(lines) <= 4 and all(
        _short_line(line, 6) and ":" not in line and not _BULLET.match(line)
        and not line.lstrip()[:1].isdigit() for line in lines) and not (
        _FIRST_SINGULAR.search(block))


def _heading(block: str) -> bool:
    """The paragraph opens with a heading line: a few words, no sentence punctuation
    (a trailing colon allowed), and more lines under it."""
    first, _, rest = block.partition("\n")
    stripped = first.strip().rstrip(":")
    return (bool(rest.strip()) and 0 < len(stripped.split()) <= 6 and len(stripped) <= 60
            and stripped[-1:] not in ".?!,;" and not _FIRST_PERSON_ANY.search(stripped))


def _region_between(starts: list[int], low: int, high: int) -> bool:
    at = bisect.bisect_left(starts, low)
    return at < len(starts) and starts[at] < high


#: A run of paragraphs this long without any first-person word is someone else's text.
IMPERSONAL_RUN_CHARS = 700


def _impersonal_runs(masked: str, blocks: list[tuple[int, int]], voiced: list[bool]
                     ) -> set[int]:
    """Indices of paragraphs in runs of three or more (and at least
    :data:`IMPERSONAL_RUN_CHARS`) that never say "I", "my", "we" or "our": an article or
    a document pasted in a message where the user speaks in the first person elsewhere."""
    found: set[int] = set()
    index = 0
    while index < len(blocks):
        if voiced[index]:
            index += 1
            continue
        end = index
        while end < len(blocks) and not voiced[end]:
            end += 1
        size = sum(b - a for a, b in blocks[index:end])
        if end - index >= 3 and size >= IMPERSONAL_RUN_CHARS:
            found.update(range(index, end))
        index = end
    return found


def _opens_document(text: str) -> bool:
    """A title line (short, no sentence punctuation) over structured lines, or a title in
    capitals: "Easy Weekend Sourdough (1 loaf)" then ingredients, "House Rules - ..." then
    numbered rules."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return False
    title = lines[0].strip()
    # A parenthetical ("(8 days / 7 nights)") does not make a title in capitals prose.
    if _CAPS_TITLE.match(re.sub(r"\([^)]*\)", "", title)) or (
            len(lines) > 1 and re.fullmatch(r"[A-Z]{4,}:?", title)):
        return True
    words = title.split()
    if not (1 <= len(words) <= 10 and len(title) <= 80 and title[:1].isupper() | (
            title[:1] in "[(#0123456789") and title[-1:] not in ".?!,;:"
            and not _FIRST_SINGULAR.search(title)):
        return False
    structured = sum(bool(_STRUCTURED.match(line)) or _dense(line) for line in lines[1:12])
    if structured >= 2 and structured * 2 >= min(len(lines) - 1, 11):
        return True
    # A headline in title case over long impersonal prose: a pasted article.
    capitalized = sum(w[:1].isupper() for w in words if len(w) > 3)
    body = "\n".join(lines[1:])
    return (len(words) >= 3 and capitalized * 3 >= 2 * max(1, sum(len(w) > 3 for w in words))
            and len(body) >= 300 and not _FIRST_SINGULAR.search(body))


def mask_regions(text: str, regions: list[Region]) -> str:
    """``text`` with every region's characters blanked (line breaks kept, offsets kept)."""
    if not regions:
        return text
    chars = list(text)
    for region in regions:
        for position in range(region.start, region.end):
            if chars[position] not in "\r\n":
                chars[position] = " "
        # The region ends a sentence: text before and after it never joins into one.
        if region.start > 0 and chars[region.start - 1] not in "\r\n":
            chars[region.start] = "\n"
    return "".join(chars)


_INLINE_CODE = re.compile(r"`[^`\n]{1,200}`")


def mask_inline_code(text: str) -> str:
    """Inline code spans keep their length but lose their symbols (``x = y()`` -> ``x y``)
    so they neither split sentences nor look like a first-person clause."""
    return _INLINE_CODE.sub(lambda m: re.sub(r"[^\w\s]", " ", m.group(0)), text)
