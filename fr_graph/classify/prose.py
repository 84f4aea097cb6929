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
    r"|at [\w$./<>]+\(.*\)\s*$|Caused by: |Exception in thread |\.\.\. \d+ more\s*$"
    r"|at (?:async )?[\w$.<>]+ \(.*:\d+:\d+\)\s*$|[\w.]*(?:Error|Exception|Warning)"
    r"(?:: .*)?\s*$|panic: |goroutine \d+ \[|\^+\s*$|~+\^~*\s*$)"
    # A source position or a memory address anywhere in a line: compiler and runtime output.
    r"|^\s*\S*[\w/-]\.[A-Za-z]{1,5}:\d+(?::\d+)?\b|\b0x[0-9a-fA-F]{4,}\b|\bgoroutine \d+\b"
    r"|^\s*\w*(?:Error|Exception)\s+Traceback\b|^\s*(?:error|warning)\[\w+\]:"
    r"|^\s*[\u2500-\u257f]|^\s*(?:FAILURE|BUILD FAILED|FAILED|PASSED|ERROR):?\s"
)
_LOG = re.compile(
    r"^\s*(?:\[?\d{4}[-/.]\d{2}[-/.]\d{2}[ T,]\d{2}:\d{2}|\S+ - \S+ \[|\[?\d{2}:\d{2}:\d{2}[.,\]\s]"
    r"|\[?(?:TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL|CRITICAL)\]?[\s:]"
    r"|\w+\s+\|\s+(?:TRACE|DEBUG|INFO|WARN|ERROR)|[$#] |>>> |\.\.\. |PS [A-Z]:\\|C:\\)"
)
_CODE_START = re.compile(
    r"^\s*(?:def |class \w+[:(]|import \w|from [\w.]+ import |return\b|if .*:\s*$"
    r"|for .* in .*:\s*$|while .*:\s*$|elif |else:|try:|except\b|finally:|with .* as .*:"
    r"|async def |await |function\b|const |let |var |public |private |protected |static "
    r"|package |#include|#!/|@[\w.]+(?:\(|\s*$)|SELECT |INSERT |UPDATE \w+ SET|CREATE TABLE"
    r"|DELETE FROM|ALTER TABLE|<\/?[a-zA-Z][\w-]*(?:\s[^>]*)?\/?>|\}|\{|\)|\]|//|/\*|\*/"
    r"|--\s|<!--|\w+\s*=\s*[\w\"'\[{(]|\w+\.\w+\(|\w+\(.*\)\s*;?\s*$|\$\w+\s*="
    r"|\"[\w -]+\":\s|\[\w+ \"[^\"]*\"\]|[-=*#~]{3,}.*[-=*#~]{3,}\s*$)"
)
# Columns aligned with runs of spaces, and ruled lines under a table's header.
_ALIGNED = re.compile(r"\S {3,}\S.*? {3,}\S")
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
    r"|^[^,\s]+(?:,[^,\s]*){2,}$"
    r"|^\s*[A-Z][\w ./()-]{0,30}:\s+\S"
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
        kind = _line_kind(line)
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
            next_kind = _line_kind(lines[probe])
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
    return regions


_FIRST_SINGULAR = re.compile(r"\b(?:i|i'm|im|i've|i'll|i'd|me|my|mine|myself)\b",
                             re.IGNORECASE)
_ADDRESSING = re.compile(
    r"\b(?:you|your|yours)\b|^\s*(?:dear|hi|hello|subject|from|to|date|re|ref|booking"
    r"|reservation|confirmation)\b[^\n]{0,60}[,:]|\b(?:kind|best|warm) regards\b"
    r"|\bsincerely\b", re.IGNORECASE | re.MULTILINE)
_LETTER_START = re.compile(
    r"\s*(?:(?i:dear\b|subject:|from:|to:|re:|fwd?:|forwarded message|-+ ?original message)"
    # A title in capitals opens a pasted document: an itinerary, a recipe, a discharge sheet.
    r"|[^a-z\n]*[A-Z]{3,}[^a-z\n]*\s[^a-z\n]*[A-Z]{3,}[^a-z\n]*$)", re.MULTILINE)
_BLOCK = re.compile(r"\S(?:.|\n(?![ \t]*\n))*", re.MULTILINE)


def pasted_letters(text: str, regions: list[Region]) -> list[Region]:
    """Paragraphs the user pasted rather than wrote: a school letter, a booking email, a
    contract clause. In a message where the user speaks in the first person elsewhere, a
    paragraph with no first-person-singular word is someone else's text when it opens a
    letter or document ("Dear ...", "Subject: ...", "From: ...", a title in capitals; it runs
    until the user speaks again) or has 150+ characters and addresses its reader ("you",
    "Kind regards")."""
    masked = mask_regions(text, regions)
    blocks = [(m.start(), m.end()) for m in _BLOCK.finditer(masked)]
    if len(blocks) < 2:
        return []
    personal = [bool(_FIRST_SINGULAR.search(masked, a, b)) for a, b in blocks]
    if not any(personal):
        return []
    letters: list[Region] = []
    in_letter = False
    for (start, end), mine in zip(blocks, personal, strict=True):
        if mine:
            in_letter = False
            continue
        # A letter's header or salutation opens it; its later paragraphs need no "you".
        opens = bool(_LETTER_START.match(masked, start))
        if opens or in_letter or (end - start >= 150 and _ADDRESSING.search(masked, start, end)):
            letters.append(Region("letter", start, end))
            in_letter = in_letter or opens
    return letters


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
