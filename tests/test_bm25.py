"""The incremental BM25 index ranks exactly as the textbook loop over the current texts."""

from __future__ import annotations

import math
import random
from collections import Counter

from yadk._bm25 import Bm25, Bm25Index, tokenize

VOCABULARY = (
    "invoice march april paid late dog rex park cat tom porto lisbon color blue green order"
    " parcel shipped refund account password weather rain sun meeting monday 2024 ação café"
).split()


def textbook(texts: list[str], query: str) -> list[tuple[int, float]]:
    """BM25 (k1=1.5, b=0.75, Lucene's idf) scored document by document, as yadk ranked before
    the index existed: the oracle the index must match to the last bit."""
    terms = [Counter(tokenize(text)) for text in texts]
    lengths = [sum(t.values()) for t in terms]
    count = len(texts)
    avg = sum(lengths) / count if count else 0.0
    frequency: Counter[str] = Counter()
    for t in terms:
        frequency.update(t.keys())
    scores = {}
    for index, t in enumerate(terms):
        total = 0.0
        for word in set(tokenize(query)):
            f = t.get(word)
            if f:
                df = frequency[word]
                weight = math.log(1.0 + (count - df + 0.5) / (df + 0.5))
                norm = 1.0 - 0.75 + 0.75 * (lengths[index] / avg if avg else 0.0)
                total += weight * (f * (1.5 + 1.0) / (f + 1.5 * norm))
        if total > 0:
            scores[index] = total
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))


def sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(VOCABULARY) for _ in range(rng.randint(0, 14)))


QUERIES = ["invoice", "late invoice", "rex the dog", "Porto, Lisbon!", "café ação", "nothing", ""]


def test_an_index_built_by_adds_replacements_and_removals_ranks_as_the_textbook() -> None:
    rng = random.Random(7)
    index: Bm25Index[str] = Bm25Index()
    current: dict[str, str] = {}  # key -> text, in the order last added
    for step in range(600):
        key = f"k{rng.randrange(300)}"
        if step % 17 == 0 and current:
            victim = rng.choice(list(current))
            index.remove(victim)
            del current[victim]
            continue
        text = sentence(rng)
        index.add(key, text)
        current.pop(key, None)
        current[key] = text  # added again: the newest
        if step % 50 == 0 or step == 599:
            keys = list(current)
            for query in QUERIES:
                expected = [(keys[i], s) for i, s in textbook(list(current.values()), query)]
                assert index.rank(query) == expected
                assert index.rank(query, limit=5) == expected[:5]
    assert len(index) == len(current)
    assert any(index.rank(q) for q in QUERIES)  # the corpus is not degenerate


def test_ties_keep_the_order_texts_were_added() -> None:
    texts = ["rex", "the dog rex", "rex", "a cat"]
    assert Bm25(texts).rank("rex") == textbook(texts, "rex")
    assert [i for i, _ in Bm25(texts).rank("rex")] == [0, 2, 1]
    index: Bm25Index[str] = Bm25Index()
    for key, text in [("a", "rex"), ("b", "rex"), ("a", "rex")]:
        index.add(key, text)
    assert [key for key, _ in index.rank("rex")] == ["b", "a"]


def test_an_empty_index_ranks_nothing() -> None:
    assert Bm25([]).rank("rex") == []
    assert Bm25(["", "..."]).rank("rex") == []
