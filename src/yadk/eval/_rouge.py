"""ROUGE-1 F1 between a response and a reference, tokenized as google-adk's ``response_match_score``.

The tokenizer: NFKC-normalize and lowercase; every CJK character (ideographs, kana, hangul) is
a token of its own; in Thai, Lao, Khmer and Myanmar a base character starts a new token and
combining marks stay attached to it; other letters, digits and combining marks build words, and
everything else separates them. A word made only of ASCII characters is stemmed (Porter, NLTK's
default mode) when longer than 3 characters; a word with any non-ASCII character is kept whole.
ROUGE-1 is then clipped unigram overlap: precision over the response's tokens, recall over the
reference's, F1 their harmonic mean (0 when both are 0).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from typing import NamedTuple

from yadk.eval._porter import stem

__all__ = ["RougeScore", "clear_token_cache", "rouge_1", "tokenize"]


class RougeScore(NamedTuple):
    precision: float
    recall: float
    fmeasure: float


def _is_cjk(code: int) -> bool:
    return (
        0x4E00 <= code <= 0x9FFF
        or 0x3040 <= code <= 0x309F
        or 0x30A0 <= code <= 0x30FF
        or 0xAC00 <= code <= 0xD7AF
    )


def _is_unspaced(code: int) -> bool:
    # Thai, Lao, Myanmar, Khmer: written without spaces between words.
    return 0x0E00 <= code <= 0x0EFF or 0x1000 <= code <= 0x109F or 0x1780 <= code <= 0x17FF


_ASCII_WORD = re.compile(r"[a-z0-9]+")


def tokenize(text: str) -> list[str]:
    """The tokens google-adk's ROUGE scorer compares (see the module docstring)."""
    if text.isascii():
        # ASCII is NFKC-stable and holds no CJK, unspaced-script or combining characters: the
        # words are the runs of letters and digits.
        words = _ASCII_WORD.findall(text.lower())
        found: list[str | None] = list(map(_TOKENS.get, words))
        if None in found:
            return [
                t if t is not None else _ascii_token(w) for t, w in zip(found, words, strict=True)
            ]
        return found  # type: ignore[return-value]  # no None left
    chars: list[str] = []
    append = chars.append
    for char in unicodedata.normalize("NFKC", text).lower():
        if char.isascii():
            # The common case first: ASCII letters and digits build words; anything else splits.
            append(char if char.isalnum() else " ")
            continue
        code = ord(char)
        if _is_cjk(code):
            chars.extend((" ", char, " "))
        elif _is_unspaced(code):
            if unicodedata.category(char).startswith("M"):
                append(char)
            else:
                chars.extend((" ", char))
        elif char.isalnum() or unicodedata.category(char).startswith("M"):
            append(char)
        else:
            append(" ")
    known = _TOKENS.get
    return [
        (known(word) or _ascii_token(word)) if word.isascii() else word
        for word in "".join(chars).split()
    ]


# ASCII word -> its token (stemmed when longer than 3 characters). Responses repeat a small
# vocabulary, so each distinct word is stemmed once, not at every occurrence.
_TOKENS: dict[str, str] = {}
_TOKENS_LIMIT = 100_000


def _ascii_token(word: str) -> str:
    token = stem(word) if len(word) > 3 else word
    if len(_TOKENS) >= _TOKENS_LIMIT:
        _TOKENS.clear()
    _TOKENS[word] = token
    return token


def clear_token_cache() -> None:
    """Forget the stemmed vocabulary (for benchmarks of the cold path)."""
    _TOKENS.clear()


def rouge_1(response: str, reference: str) -> RougeScore:
    """ROUGE-1 precision, recall and F1 of ``response`` against ``reference``."""
    reference_tokens = tokenize(reference)
    response_tokens = tokenize(response)
    reference_counts = Counter(reference_tokens)
    response_counts = Counter(response_tokens)
    overlap = sum(
        min(count, response_counts[token])
        for token, count in reference_counts.items()
        if token in response_counts
    )
    precision = overlap / max(len(response_tokens), 1)
    recall = overlap / max(len(reference_tokens), 1)
    if precision + recall > 0:
        return RougeScore(precision, recall, 2 * precision * recall / (precision + recall))
    return RougeScore(precision, recall, 0.0)
