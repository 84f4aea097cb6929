"""Write the linker's list of other languages' function words (``ako``, ``dass``, ``porque``).

Code-switched notes ("Took the NCLEX today, kinakabahan ako" / "PASSED!!! US RN na ako")
share the function words of their other language, and the linker read a shared "ako" as
evidence that two notes are about one thing. A word is listed when, in one of the languages
wordfreq covers (Latin-script words only):

* it is among that language's most frequent words (Zipf frequency >= 5.8, about once in
  1,600 words),
* a curated stop list of that language (stopwords-iso) names it, which keeps out frequent
  nouns and place names ("casa", "brasil", "oslo"), and
* it is rare in English (Zipf < 3.6), so no English word is lost ("son", "die", "man" stay).

The list is data, made once; neither package is a dependency of fr-graph. To remake it:

    python -m venv /tmp/ffw && /tmp/ffw/bin/pip install wordfreq==3.1.1 stopwordsiso==0.7.1
    /tmp/ffw/bin/python tools/foreign_function_words.py \
        > fr_graph/classify/foreign_function_words.txt
"""

from __future__ import annotations

import re

import stopwordsiso  # type: ignore[import-not-found]
import wordfreq  # type: ignore[import-not-found]

MIN_ZIPF_IN_LANGUAGE = 5.8
MAX_ZIPF_IN_ENGLISH = 3.6
#: wordfreq codes whose stopwords-iso code differs.
ISO_CODES = {"fil": "tl", "nb": "no", "sh": "hr"}
#: Scripts wordfreq tokenizes with extra packages (MeCab, jieba); their words are not Latin.
SKIPPED = {"en", "ja", "ko", "zh"}
_LATIN_WORD = re.compile(r"[a-z]{3,}")


def foreign_function_words() -> list[str]:
    found: set[str] = set()
    for language in sorted(wordfreq.available_languages(wordlist="best")):
        code = ISO_CODES.get(language, language)
        if language in SKIPPED or not stopwordsiso.has_lang(code):
            continue
        stop_list = stopwordsiso.stopwords(code)
        for word in wordfreq.top_n_list(language, 400):
            if not _LATIN_WORD.fullmatch(word):
                continue
            if wordfreq.zipf_frequency(word, language) < MIN_ZIPF_IN_LANGUAGE:
                break  # the list is in frequency order
            if word in stop_list and wordfreq.zipf_frequency(word, "en") < MAX_ZIPF_IN_ENGLISH:
                found.add(word)
    return sorted(found)


if __name__ == "__main__":
    print("# Made by tools/foreign_function_words.py (wordfreq 3.1.1, stopwordsiso 0.7.1).")
    print("\n".join(foreign_function_words()))
