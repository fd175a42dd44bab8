"""The Porter stemmer as NLTK runs it by default (``NLTK_EXTENSIONS`` mode).

google-adk's ``response_match_score`` stems ASCII tokens with NLTK's ``PorterStemmer()``, whose
default mode adds a few departures from Porter's 1980 paper: a pool of irregular forms
(``dying`` -> ``die``), ``ies``/``ied`` on four-letter words, ``y`` -> ``i`` only after a
consonant, ``bli`` -> ``ble``, ``alli`` re-entering step 2, ``fulli`` and ``logi`` rules, and a
two-letter "cvc" case. Scores must equal google-adk's to the last bit, so every one of those is
kept here; tests compare against stems recorded from NLTK.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["stem"]

_VOWELS = frozenset("aeiou")

_IRREGULAR = {
    "skies": "sky",
    "sky": "sky",
    "dying": "die",
    "lying": "lie",
    "tying": "tie",
    "news": "news",
    "innings": "inning",
    "inning": "inning",
    "outings": "outing",
    "outing": "outing",
    "cannings": "canning",
    "canning": "canning",
    "howe": "howe",
    "proceed": "proceed",
    "exceed": "exceed",
    "succeed": "succeed",
}

Condition = Callable[[str], bool] | None
Rule = tuple[str, str, Condition]


def _consonants(word: str) -> list[bool]:
    flags: list[bool] = []
    for index, char in enumerate(word):
        if char in _VOWELS:
            flags.append(False)
        elif char == "y":
            # `y` is a consonant at the start and after a vowel, a vowel after a consonant.
            flags.append(True if index == 0 else not flags[index - 1])
        else:
            flags.append(True)
    return flags


def _measure(stem: str) -> int:
    """Porter's m: the number of vowel-consonant sequences in ``stem``."""
    count = 0
    previous_vowel = False
    for consonant in _consonants(stem):
        if consonant and previous_vowel:
            count += 1
        previous_vowel = not consonant
    return count


def _positive(stem: str) -> bool:
    return _measure(stem) > 0


def _above_one(stem: str) -> bool:
    return _measure(stem) > 1


def _has_vowel(stem: str) -> bool:
    return not all(_consonants(stem))


def _double_consonant(word: str) -> bool:
    return len(word) >= 2 and word[-1] == word[-2] and _consonants(word)[-1]


def _cvc(word: str) -> bool:
    flags = _consonants(word)
    if len(word) >= 3 and flags[-3] and not flags[-2] and flags[-1] and word[-1] not in "wxy":
        return True
    # NLTK's extension: a two-letter vowel-consonant word counts too.
    return len(word) == 2 and not flags[0] and flags[1]


def _apply(word: str, rules: list[Rule]) -> str:
    """The first rule whose suffix ``word`` ends with decides, whether its condition holds or not."""
    for suffix, replacement, condition in rules:
        if suffix == "*d":
            if _double_consonant(word):
                stem = word[:-2]
                return stem + replacement if condition is None or condition(stem) else word
            continue
        if word.endswith(suffix):
            stem = word[: len(word) - len(suffix)]
            return stem + replacement if condition is None or condition(stem) else word
    return word


def _step1a(word: str) -> str:
    if word.endswith("ies") and len(word) == 4:
        return word[:-3] + "ie"
    return _apply(
        word, [("sses", "ss", None), ("ies", "i", None), ("ss", "ss", None), ("s", "", None)]
    )


def _step1b(word: str) -> str:
    if word.endswith("ied"):
        return word[:-3] + ("ie" if len(word) == 4 else "i")
    if word.endswith("eed"):
        stem = word[:-3]
        return stem + "ee" if _measure(stem) > 0 else word
    for suffix in ("ed", "ing"):
        if word.endswith(suffix) and _has_vowel(word[: -len(suffix)]):
            stem = word[: -len(suffix)]
            break
    else:
        return word
    last = stem[-1]
    return _apply(
        stem,
        [
            ("at", "ate", None),
            ("bl", "ble", None),
            ("iz", "ize", None),
            ("*d", last, lambda _: last not in "lsz"),
            ("", "e", lambda s: _measure(s) == 1 and _cvc(s)),
        ],
    )


def _step1c(word: str) -> str:
    return _apply(word, [("y", "i", lambda s: len(s) > 1 and _consonants(s)[-1])])


_STEP2: list[Rule] = [
    ("ational", "ate", _positive),
    ("tional", "tion", _positive),
    ("enci", "ence", _positive),
    ("anci", "ance", _positive),
    ("izer", "ize", _positive),
    ("bli", "ble", _positive),
    ("alli", "al", _positive),
    ("entli", "ent", _positive),
    ("eli", "e", _positive),
    ("ousli", "ous", _positive),
    ("ization", "ize", _positive),
    ("ation", "ate", _positive),
    ("ator", "ate", _positive),
    ("alism", "al", _positive),
    ("iveness", "ive", _positive),
    ("fulness", "ful", _positive),
    ("ousness", "ous", _positive),
    ("aliti", "al", _positive),
    ("iviti", "ive", _positive),
    ("biliti", "ble", _positive),
    ("fulli", "ful", _positive),
]


def _step2(word: str) -> str:
    if word.endswith("alli") and _positive(word[:-4]):
        return _step2(word[:-4] + "al")
    # `logi` -> `log` when the word minus `ogi` (the stem plus its `l`) has a positive measure.
    return _apply(word, [*_STEP2, ("logi", "log", lambda _: _positive(word[:-3]))])


_STEP3: list[Rule] = [
    ("icate", "ic", _positive),
    ("ative", "", _positive),
    ("alize", "al", _positive),
    ("iciti", "ic", _positive),
    ("ical", "ic", _positive),
    ("ful", "", _positive),
    ("ness", "", _positive),
]

_STEP4: list[Rule] = [
    ("al", "", _above_one),
    ("ance", "", _above_one),
    ("ence", "", _above_one),
    ("er", "", _above_one),
    ("ic", "", _above_one),
    ("able", "", _above_one),
    ("ible", "", _above_one),
    ("ant", "", _above_one),
    ("ement", "", _above_one),
    ("ment", "", _above_one),
    ("ent", "", _above_one),
    ("ion", "", lambda s: _measure(s) > 1 and s[-1] in "st"),
    ("ou", "", _above_one),
    ("ism", "", _above_one),
    ("ate", "", _above_one),
    ("iti", "", _above_one),
    ("ous", "", _above_one),
    ("ive", "", _above_one),
    ("ize", "", _above_one),
]


def _step5a(word: str) -> str:
    if word.endswith("e"):
        stem = word[:-1]
        measure = _measure(stem)
        if measure > 1 or (measure == 1 and not _cvc(stem)):
            return stem
    return word


def _step5b(word: str) -> str:
    return _apply(word, [("ll", "l", lambda _: _measure(word[:-1]) > 1)])


def stem(word: str) -> str:
    """The stem of ``word`` (lowercased first), exactly as NLTK's default ``PorterStemmer``."""
    lowered = word.lower()
    if lowered in _IRREGULAR:
        return _IRREGULAR[lowered]
    if len(word) <= 2:
        return lowered
    result = _step1a(lowered)
    result = _step1b(result)
    result = _step1c(result)
    result = _step2(result)
    result = _apply(result, _STEP3)
    result = _apply(result, _STEP4)
    result = _step5a(result)
    return _step5b(result)
