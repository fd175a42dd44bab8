"""Rubrics: reading them from eval files, reading a judge's verdicts on them, and combining them.

google-adk's rules, which yadk follows so the same judge answers give the same scores:

- A judge answer lists, per rubric, ``ID:`` (optional), ``Property:``, ``Rationale:`` and
  ``Verdict:`` lines. A verdict containing "yes" scores 1.0, else one containing "no" 0.0, else
  no score. If the numbers of properties, rationales and verdicts differ, the whole answer is
  discarded (a partial parse could drop a failed rubric and inflate the score).
- A verdict belongs to the rubric its ID names, else to the rubric whose text equals the
  echoed property once both are normalised (NFKC, smart quotes, markdown decoration, case).
- Samples of one invocation are combined per rubric by majority vote (a tie is a "no"); an
  invocation scores the mean of its rubric scores; a case scores the mean of every rubric score
  of every invocation (not the mean of the invocation scores).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Any

from yadk.config import KeyPath
from yadk.eval._located import Fields, JsonFile, is_object, is_opt_str, is_str
from yadk.eval._model import Invocation, Rubric, RubricScore

__all__ = [
    "RubricVerdict",
    "check_shared_ids",
    "majority_vote",
    "mean_score",
    "parse_rubric_answer",
    "read_rubrics",
    "score_answer",
    "summarize",
]

_RUBRIC: Fields = {
    "rubric_id": (is_str, "a string"),
    "rubric_content": (is_object, 'an object such as {"text_property": "..."}'),
    "description": (is_opt_str, "a string"),
    "type": (is_opt_str, "a string"),
}
_CONTENT: Fields = {"text_property": (is_str, "a string")}
_EXAMPLE = '{"rubric_id": "concise", "rubric_content": {"text_property": "The answer is short."}}'


def read_rubrics(file: JsonFile, raw: list[Any], at: KeyPath) -> list[Rubric]:
    """The rubrics of a ``rubrics`` list, every problem reported on ``file``."""
    rubrics: list[Rubric] = []
    seen: set[str] = set()
    for index, item in enumerate(raw):
        where = (*at, index)
        checked = file.check_object(
            item,
            where,
            what="rubric",
            fields=_RUBRIC,
            required=("rubric_id", "rubric_content"),
        )
        if checked is None or "rubric_id" not in checked or "rubric_content" not in checked:
            continue
        content_key = "rubric_content" if "rubric_content" in item else "rubricContent"
        content = file.check_object(
            checked["rubric_content"],
            (*where, content_key),
            what="rubric content",
            fields=_CONTENT,
            required=("text_property",),
        )
        if content is None or not content.get("text_property", "").strip():
            if content is not None and "text_property" in content:
                file.problem(
                    (*where, content_key),
                    "invalid-rubric",
                    "A rubric's `text_property` must say what the judge checks.",
                    f"e.g. {_EXAMPLE}",
                )
            continue
        rubric_id = checked["rubric_id"]
        if rubric_id in seen:
            file.problem(
                (*where, "rubric_id" if "rubric_id" in item else "rubricId"),
                "duplicate-rubric",
                f"Rubric id `{rubric_id}` is used twice in this list; google-adk refuses it.",
                "Give every rubric its own `rubric_id`.",
            )
            continue
        seen.add(rubric_id)
        rubrics.append(
            Rubric(
                rubric_id, content["text_property"], checked.get("type"), checked.get("description")
            )
        )
    return rubrics


def check_shared_ids(
    file: JsonFile, case_rubrics: Sequence[Rubric], conversation: Sequence[Invocation], at: KeyPath
) -> None:
    """An eval case's rubrics apply to every invocation: an invocation may not reuse their ids
    (google-adk stops the whole eval on it)."""
    ids = {rubric.rubric_id for rubric in case_rubrics}
    for index, invocation in enumerate(conversation):
        for number, rubric in enumerate(invocation.rubrics):
            if rubric.rubric_id in ids:
                file.problem(
                    (*at, index, "rubrics", number, "rubric_id"),
                    "duplicate-rubric",
                    f"Rubric id `{rubric.rubric_id}` is used by the eval case and again by this "
                    "invocation; google-adk refuses it.",
                    "Rename one of them.",
                )


class RubricVerdict:
    """One rubric's block in a judge answer."""

    __slots__ = ("property_text", "rationale", "rubric_id", "score")

    def __init__(
        self, rubric_id: str | None, property_text: str, rationale: str, score: float | None
    ) -> None:
        self.rubric_id = rubric_id
        self.property_text = property_text
        self.rationale = rationale
        self.score = score


_ID_LINE = re.compile(r"^\s*ID: (.*)$", re.MULTILINE)
_PROPERTY_LINE = re.compile(r"^\s*Property: (.*)$", re.MULTILINE)
_RATIONALE = re.compile(r"(?<=Rationale: )(.*)")
_VERDICT = re.compile(r"(?<=Verdict: )(.*)")


def _verdict_score(verdict: str) -> float | None:
    lowered = verdict.lower()
    if "yes" in lowered:
        return 1.0
    if "no" in lowered:
        return 0.0
    return None


def parse_rubric_answer(text: str) -> list[RubricVerdict]:
    """The rubric blocks of a judge answer (none when it cannot be read whole)."""
    properties = list(_PROPERTY_LINE.finditer(text))
    rationales = _RATIONALE.findall(text)
    scores = [_verdict_score(v) for v in _VERDICT.findall(text)]
    if not len(properties) == len(rationales) == len(scores):
        return []
    ids = list(_ID_LINE.finditer(text))
    verdicts = []
    for index, match in enumerate(properties):
        # An ID line belongs to the property right after it, so one missing ID line cannot
        # shift later IDs onto earlier properties.
        after = properties[index - 1].start() if index else -1
        rubric_id = None
        for found in ids:
            if after < found.start() < match.start():
                rubric_id = found.group(1).strip() or None
        verdicts.append(
            RubricVerdict(
                rubric_id, match.group(1).strip(), rationales[index].strip(), scores[index]
            )
        )
    return verdicts


_SMART = str.maketrans(
    {"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-"}
)
_DECORATION = " *_`#>-\u2022\"'"
_SPACES = re.compile(r"\s+")


def _normal(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).translate(_SMART)
    return _SPACES.sub(" ", text).strip(_DECORATION).lower()


def score_answer(text: str, rubrics: Sequence[Rubric]) -> list[RubricScore]:
    """The verdicts of one judge answer on ``rubrics``; verdicts on unknown rubrics are
    dropped."""
    by_id = {rubric.rubric_id: rubric for rubric in rubrics}
    by_text = {_normal(rubric.text): rubric for rubric in rubrics}
    scores = []
    for verdict in parse_rubric_answer(text) if text else []:
        rubric = by_id.get(verdict.rubric_id) if verdict.rubric_id else None
        if rubric is None:
            rubric = by_text.get(_normal(verdict.property_text))
        if rubric is not None:
            scores.append(RubricScore(rubric.rubric_id, verdict.score, verdict.rationale))
    return scores


def mean_score(scores: Iterable[RubricScore]) -> float | None:
    """The mean of the scores that exist (``None`` when none does)."""
    import statistics  # exact mean, as google-adk computes it; loaded only by judged metrics

    values = [s.score for s in scores if s.score is not None]
    return float(statistics.mean(values)) if values else None


def majority_vote(samples: Sequence[Sequence[RubricScore]]) -> list[RubricScore]:
    """One verdict per rubric from several samples: the majority of yes and no (a tie is a
    no); a rubric no sample scored keeps its first unscored verdict."""
    buckets: dict[str, tuple[list[RubricScore], list[RubricScore], list[RubricScore]]] = {}
    for sample in samples:
        for score in sample:
            unscored, yes, no = buckets.setdefault(score.rubric_id, ([], [], []))
            if score.score is None:
                unscored.append(score)
            elif score.score == 1.0:
                yes.append(score)
            else:
                no.append(score)
    combined = []
    for unscored, yes, no in buckets.values():
        if not yes and not no:
            combined.append(unscored[0])
        else:
            combined.append(yes[0] if len(yes) > len(no) else no[0])
    return combined


AGGREGATED_RATIONALE = (
    "This is an aggregated score derived from individual entries. Please refer to individual "
    "entries in each invocation for actual rationale from the model."
)


def summarize(
    per_invocation: Sequence[Sequence[RubricScore] | None],
) -> tuple[float | None, list[RubricScore]]:
    """A case's score (the mean of every rubric score of every invocation) and each rubric's
    mean over the invocations."""
    everything: list[RubricScore] = []
    by_rubric: dict[str, list[RubricScore]] = {}
    for scores in per_invocation:
        for score in scores or ():
            by_rubric.setdefault(score.rubric_id, []).append(score)
            everything.append(score)
    overall = [
        RubricScore(rubric_id, mean_score(scores), AGGREGATED_RATIONALE)
        for rubric_id, scores in by_rubric.items()
    ]
    return mean_score(everything), overall
