"""LexicalExampleStore: offline, per-query example selection by BM25 over the examples' inputs."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable
from typing import Any

from yadk._bm25 import idf as _idf
from yadk._bm25 import tokenize
from yadk.errors import ExampleError
from yadk.examples._example import (
    BaseExampleProvider,
    Example,
    coerce_examples,
    example_input_text,
)
from yadk.examples._files import load_examples_file

__all__ = ["LexicalExampleStore", "tokenize"]


class LexicalExampleStore(BaseExampleProvider):
    """Picks the examples whose input best matches the query, ranked by BM25.

    A local alternative to a hosted example store: no network, no embeddings, deterministic.
    The index (term statistics of every example's input text) is built once, at construction.

    Scores are normalised to ``[0, 1]``: an example's BM25 score divided by the score the query
    would get against itself (with the same term statistics), so ``1.0`` means "matches as well
    as a copy of the query would" and query words that no example contains lower every score.
    ``get_examples`` returns at most ``top_k`` examples scoring at least ``min_score`` (and always
    above zero: an example sharing no word with the query is never returned), best first, ties in
    the order given.
    """

    def __init__(
        self,
        examples: Iterable[Example | dict[str, Any]],
        *,
        top_k: int = 5,
        min_score: float = 0.0,
        k1: float = 1.5,
        b: float = 0.75,
    ) -> None:
        if top_k < 1:
            raise ExampleError(f"top_k must be at least 1, got {top_k}.")
        if not 0.0 <= min_score <= 1.0:
            raise ExampleError(f"min_score must be between 0 and 1, got {min_score}.")
        if k1 < 0 or not 0.0 <= b <= 1.0:
            raise ExampleError(f"BM25 needs k1 >= 0 and 0 <= b <= 1, got k1={k1}, b={b}.")
        self.examples = coerce_examples(examples)
        self.top_k = top_k
        self.min_score = min_score
        self._k1 = k1
        self._b = b
        self._doc_terms: list[Counter[str]] = []
        self._doc_lengths: list[int] = []
        document_frequency: Counter[str] = Counter()
        for example in self.examples:
            terms = Counter(tokenize(example_input_text(example)))
            self._doc_terms.append(terms)
            self._doc_lengths.append(sum(terms.values()))
            document_frequency.update(terms.keys())
        count = len(self.examples)
        self._avg_length = (sum(self._doc_lengths) / count) if count else 0.0
        self._idf = {term: _idf(count, df) for term, df in document_frequency.items()}
        self._count = count
        # Postings let a query touch only the examples sharing one of its words.
        self._postings: dict[str, list[int]] = {}
        for index, terms in enumerate(self._doc_terms):
            for term in terms:
                self._postings.setdefault(term, []).append(index)

    @classmethod
    def from_file(
        cls,
        path: str | os.PathLike[str],
        *,
        top_k: int = 5,
        min_score: float = 0.0,
        k1: float = 1.5,
        b: float = 0.75,
    ) -> LexicalExampleStore:
        """A store over the examples in a ``.yaml``/``.yml``/``.json``/``.jsonl`` file."""
        return cls(load_examples_file(path), top_k=top_k, min_score=min_score, k1=k1, b=b)

    def get_examples(self, query: str) -> list[Example]:
        """The best ``top_k`` examples for ``query`` scoring at least ``min_score``."""
        return [example for _, example in self.scores(query)]

    def scores(self, query: str) -> list[tuple[float, Example]]:
        """``(score, example)`` pairs that ``get_examples`` would return, best first (for tuning)."""
        terms = set(tokenize(query))
        if not terms or not self._count:
            return []
        self_score = self._self_score(query)
        totals: dict[int, float] = {}
        for term in terms:
            idf = self._idf.get(term)
            if idf is None:
                continue
            for index in self._postings[term]:
                totals[index] = totals.get(index, 0.0) + idf * self._weight(
                    self._doc_terms[index][term], self._doc_lengths[index]
                )
        ranked = sorted(totals.items(), key=lambda item: (-item[1], item[0]))
        results: list[tuple[float, Example]] = []
        for index, raw in ranked:
            score = min(raw / self_score, 1.0) if self_score > 0 else 0.0
            if score <= 0.0 or score < self.min_score:
                break
            results.append((score, self.examples[index]))
            if len(results) == self.top_k:
                break
        return results

    def _weight(self, frequency: int, length: int) -> float:
        norm = 1.0 - self._b + self._b * (length / self._avg_length if self._avg_length else 0.0)
        return frequency * (self._k1 + 1.0) / (frequency + self._k1 * norm)

    def _self_score(self, query: str) -> float:
        counts = Counter(tokenize(query))
        length = sum(counts.values())
        return sum(
            self._idf.get(term, _idf(self._count, 0)) * self._weight(frequency, length)
            for term, frequency in counts.items()
        )

    def __repr__(self) -> str:
        return (
            f"LexicalExampleStore({len(self.examples)} examples, top_k={self.top_k}, "
            f"min_score={self.min_score})"
        )
