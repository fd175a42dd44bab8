"""BM25 ranking over short texts: shared by the lexical example store and the SQLite memory."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

__all__ = ["Bm25", "idf", "tokenize"]

_WORD = re.compile(r"[^\W_]+")


def tokenize(text: str) -> list[str]:
    """Lowercase runs of letters and digits: ``"Order #4417, please!"`` -> order, 4417, please."""
    return _WORD.findall(text.lower())


def idf(count: int, document_frequency: int) -> float:
    # The "plus one" BM25 idf (as in Lucene) never goes negative for very common words.
    return math.log(1.0 + (count - document_frequency + 0.5) / (document_frequency + 0.5))


class Bm25:
    """A BM25 index over ``texts``; ``rank(query)`` gives ``(index, score)`` best first."""

    def __init__(self, texts: Sequence[str], *, k1: float = 1.5, b: float = 0.75) -> None:
        self._k1, self._b = k1, b
        self._terms = [Counter(tokenize(text)) for text in texts]
        self._lengths = [sum(terms.values()) for terms in self._terms]
        frequency: Counter[str] = Counter()
        for terms in self._terms:
            frequency.update(terms.keys())
        self._count = len(texts)
        self._avg = sum(self._lengths) / self._count if self._count else 0.0
        self._idf = {term: idf(self._count, df) for term, df in frequency.items()}

    def rank(self, query: str) -> list[tuple[int, float]]:
        words = set(tokenize(query))
        scores: dict[int, float] = {}
        for index, terms in enumerate(self._terms):
            total = 0.0
            for word in words:
                frequency = terms.get(word)
                if frequency:
                    total += self._idf[word] * self._weight(frequency, self._lengths[index])
            if total > 0:
                scores[index] = total
        return sorted(scores.items(), key=lambda item: (-item[1], item[0]))

    def _weight(self, frequency: int, length: int) -> float:
        norm = 1.0 - self._b + self._b * (length / self._avg if self._avg else 0.0)
        return frequency * (self._k1 + 1.0) / (frequency + self._k1 * norm)
