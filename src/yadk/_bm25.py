"""BM25 ranking over short texts: shared by the lexical example store and the memory stores.

``Bm25Index`` is incremental: a text is tokenized once, when added, and kept as postings
(term -> document -> frequency) with its length, so a query touches only the documents that
contain one of its words. ``Bm25`` is the same index built from a list in one go.
"""

from __future__ import annotations

import heapq
import math
import re
from collections import Counter
from collections.abc import Hashable, Sequence
from typing import Generic, TypeVar

__all__ = ["Bm25", "Bm25Index", "idf", "tokenize"]

_WORD = re.compile(r"[^\W_]+")

K = TypeVar("K", bound=Hashable)


def tokenize(text: str) -> list[str]:
    """Lowercase runs of letters and digits: ``"Order #4417, please!"`` -> order, 4417, please."""
    return _WORD.findall(text.lower())


def idf(count: int, document_frequency: int) -> float:
    # The "plus one" BM25 idf (as in Lucene) never goes negative for very common words.
    return math.log(1.0 + (count - document_frequency + 0.5) / (document_frequency + 0.5))


class Bm25Index(Generic[K]):
    """A BM25 index of texts by key: ``add`` (a key added again is replaced and counts as the
    newest), ``rank(query)`` gives ``(key, score)`` best first, equal scores oldest first.

    Whatever the history of adds and removals, a score is the same arithmetic in the same order
    as over a fresh index of the current texts, so scores are equal to the last bit and every
    store ranks a corpus alike (``tests/test_bm25.py`` checks it against the textbook loop).
    """

    def __init__(self, *, k1: float = 1.5, b: float = 0.75) -> None:
        self._k1, self._b = k1, b
        # key -> (added as the n-th text, length in words, word counts)
        self._docs: dict[K, tuple[int, int, Counter[str]]] = {}
        self._postings: dict[str, dict[K, int]] = {}
        self._total_length = 0
        self._added = 0
        self._saturation_avg = -1.0
        self._saturation_of: dict[K, float] = {}

    def __len__(self) -> int:
        return len(self._docs)

    def add(self, key: K, text: str) -> None:
        self.remove(key)
        self._saturation_avg = -1.0
        terms = Counter(tokenize(text))
        length = sum(terms.values())
        self._docs[key] = (self._added, length, terms)
        self._added += 1
        self._total_length += length
        for term, frequency in terms.items():
            self._postings.setdefault(term, {})[key] = frequency

    def remove(self, key: K) -> None:
        found = self._docs.pop(key, None)
        if found is None:
            return
        self._saturation_avg = -1.0
        _, length, terms = found
        self._total_length -= length
        for term in terms:
            posting = self._postings[term]
            del posting[key]
            if not posting:
                del self._postings[term]

    def rank(self, query: str, *, limit: int | None = None) -> list[tuple[K, float]]:
        count = len(self._docs)
        if not count:
            return []
        avg = self._total_length / count
        saturation = self._saturation(avg)
        boost = self._k1 + 1.0
        scores: dict[K, float] = {}
        for word in set(tokenize(query)):
            posting = self._postings.get(word)
            if not posting:
                continue
            weight = idf(count, len(posting))
            for key, frequency in posting.items():
                # BM25's term weight, frequency * (k1 + 1) / (frequency + k1 * norm), inlined.
                gain = weight * (frequency * boost / (frequency + saturation[key]))
                scores[key] = scores.get(key, 0.0) + gain
        docs = self._docs
        ranked = [(-score, docs[key][0], key) for key, score in scores.items() if score > 0]
        best = sorted(ranked) if limit is None else heapq.nsmallest(limit, ranked)
        return [(key, -negated) for negated, _, key in best]

    def _saturation(self, avg: float) -> dict[K, float]:
        """``k1 * norm`` of every document for this average length (computed once per average:
        it changes only when texts are added or removed)."""
        if self._saturation_avg != avg:
            k1, b = self._k1, self._b
            self._saturation_of = {
                key: k1 * (1.0 - b + b * (length / avg if avg else 0.0))
                for key, (_, length, _) in self._docs.items()
            }
            self._saturation_avg = avg
        return self._saturation_of


class Bm25:
    """A BM25 index over ``texts``; ``rank(query)`` gives ``(index, score)`` best first."""

    def __init__(self, texts: Sequence[str], *, k1: float = 1.5, b: float = 0.75) -> None:
        self._index: Bm25Index[int] = Bm25Index(k1=k1, b=b)
        for position, text in enumerate(texts):
            self._index.add(position, text)

    def rank(self, query: str) -> list[tuple[int, float]]:
        return self._index.rank(query)
