"""`kb faq quiz`: ask, wait for Enter, reveal, move on. I/O comes in as callables so tests script it."""
from __future__ import annotations

import random
from collections.abc import Callable, Iterable

from kb.schema import FaqDocument

QUIT = {"q", "quit", "exit"}


def pick(questions: Iterable[FaqDocument], count: int | None, seed: int | None) -> list[FaqDocument]:
    """Shuffle with an optional seed (reproducible runs) and keep `count` questions."""
    chosen = list(questions)
    random.Random(seed).shuffle(chosen)
    return chosen[:count] if count else chosen


def run(
    questions: list[FaqDocument],
    ask: Callable[[str], str | None],
    say: Callable[[str], None],
    lang: str = "en",
) -> int:
    """Run the quiz; returns how many answers were revealed. `ask` returns None at end of input."""
    shown = 0
    total = len(questions)
    for n, doc in enumerate(questions, 1):
        q = doc.question
        say(f"[{n}/{total}] {q.id} ({q.topic})")
        say(q.question_zh if lang == "zh" else q.question)
        reply = ask("按回车显示答案（q 退出）" if lang == "zh" else "Press Enter to reveal the answer (q to quit)")
        if reply is None or reply.strip().lower() in QUIT:
            break
        say("")
        say((q.answer_zh if lang == "zh" else doc.body).strip())
        say("")
        say(("相关条目: " if lang == "zh" else "Related: ") + ", ".join(q.related))
        say("-" * 40)
        shown += 1
        if n < total:
            reply = ask("按回车继续（q 退出）" if lang == "zh" else "Press Enter for the next question (q to quit)")
            if reply is None or reply.strip().lower() in QUIT:
                break
    say(f"{shown}/{total} " + ("道题已复习" if lang == "zh" else "questions reviewed"))
    return shown
