"""What yadk asks a judge model, in its own words, for each judged metric.

The answer formats are the ones the parsers read (and google-adk's parsers read): rubric blocks
of ``ID:`` / ``Property:`` / ``Rationale:`` / ``Verdict:`` lines; ``<sentence>`` tags from the
segmenter; ``sentence:`` / ``label:`` / ``rationale:`` / ``supporting_excerpt:`` /
``contradicting_excerpt:`` blocks from the sentence validator. Placeholders are filled with
``str.format``, so literal braces are doubled.
"""

from __future__ import annotations

__all__ = [
    "FINAL_RESPONSE_QUALITY",
    "MULTI_TURN_TRAJECTORY",
    "SEGMENTER",
    "SENTENCE_VALIDATOR",
    "TOOL_USE_QUALITY",
]

_ANSWER_FORMAT = """\
Answer with one block per property, in the order given, and nothing after the last block:

ID: <the id from the property's "[id: ...]" tag, copied exactly>
Property: <the property text after the tag, copied exactly>
Rationale: <your reasoning, on one line>
Verdict: <yes or no>

Write plain text, not JSON."""

FINAL_RESPONSE_QUALITY = (
    """\
You review the final answer an AI agent gave to a user. Check it against each property listed
under PROPERTIES and give a verdict per property:
- yes: the answer fulfils the property, or the property's condition does not apply to it;
- no: the property applies and the answer does not fulfil it, or it rests on a claim that the
  evidence below cannot confirm.

Evidence you may trust: the user's request, and the outputs of tool calls that were sound (the
right tool, sensible arguments, a logical order). Do not trust the agent's own answer, its
summaries of tool results, or the output of a flawed call. If the agent skipped a tool call it
needed and could have made, claims depending on it are unconfirmed. Accept answers that say the
same thing in other words, and numbers that differ only by rounding that changes no conclusion.

AGENT INSTRUCTIONS:
{developer_instructions}

AGENT TOOLS:
{tool_declarations}

USER REQUEST:
{user_input}

TOOL CALLS AND RESULTS:
{response_steps}

FINAL ANSWER:
{final_response}

PROPERTIES:
{rubrics}

"""
    + _ANSWER_FORMAT
)

TOOL_USE_QUALITY = (
    """\
You review how an AI agent used its tools to serve a user's request. Check the tool calls
against each property listed under PROPERTIES and give a verdict per property:
- yes: the agent's tool use fulfils the property, or the property does not apply;
- no: the property applies and the tool use does not fulfil it.

Judge only the calls that were made, their arguments, their order and their results, given the
tools the agent had and what the user asked.

AGENT TOOLS:
{tool_declarations}

USER REQUEST:
{user_input}

TOOL CALLS AND RESULTS:
{tool_usage}

PROPERTIES:
{rubrics}

"""
    + _ANSWER_FORMAT
)

MULTI_TURN_TRAJECTORY = """\
You review a whole conversation between a user and an AI agent, including the agent's tool calls
and their outputs. Check the agent's behaviour over all turns against each property listed under
PROPERTIES (a JSON list with an "id" and a "property" each) and give a verdict per property:
- yes: the agent's turns, taken together, fulfil the intent of the property;
- no: they do not.

AGENT INSTRUCTIONS:
{agent_instructions}

AGENT TOOLS:
{agent_tool_definitions}

CONVERSATION:
{user_agent_dialogue}

PROPERTIES:
{properties}

Answer with one block per property, in the order given, and nothing after the last block:

ID: <the property's "id", copied exactly>
Property: <the property's text, copied exactly>
Rationale: <your reasoning, on one line, naming the turns you relied on>
Verdict: <yes or no>

Write plain text, not JSON."""

SEGMENTER = """\
Split the response below into sentences so that each can be checked on its own.

- Cover the whole response; copy every sentence exactly as written, punctuation included.
- Every bullet or numbered item (and every sub-item) is a sentence of its own, and so is the
  text that introduces a list.
- A table stays whole, as one sentence.
- Do not output sentences made only of symbols, and do not add anything of your own.

Wrap each sentence in tags, one per line:
<sentence>...</sentence>

RESPONSE:
{response}
END OF RESPONSE"""

SENTENCE_VALIDATOR = """\
Check each sentence of an AI agent's response against the context the agent had. Label every
sentence with exactly one of:
- supported: the context fully entails it (quote the excerpt that does);
- unsupported: the context does not entail it;
- contradictory: the context shows it is false (quote the excerpt);
- disputed: the context both supports and contradicts it (quote both);
- not_applicable: it needs no factual support (a greeting, opinion, plan, question, disclaimer
  or a calculation).

Be strict: without clear evidence in the context, a factual sentence is unsupported; use world
knowledge only when it is trivial. Tool outputs count as evidence only when the call that
produced them was sound and did not fail.

CONTEXT:
{context}
END OF CONTEXT

SENTENCES:
{sentences}
END OF SENTENCES

For each sentence, in order, answer with this block (use null for an excerpt you do not give),
separated by a blank line:
sentence: <the sentence, copied>
label: <supported | unsupported | contradictory | disputed | not_applicable>
rationale: <why, briefly>
supporting_excerpt: <excerpt or null>
contradicting_excerpt: <excerpt or null>"""
