"""The signature prefilter (diagnoser.matching.prefilter) never drops a signature that can match.

Each test here can fail: a literal the walk wrongly requires (a part that may be absent, a
character IGNORECASE treats as equal to another) makes may_match say False for a text the regex
matches.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from diagnoser.matching.index import default_index
from diagnoser.matching.prefilter import Literals, fold, requirements

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))


def _passes(pattern: str, text: str, ignore_case: bool = False) -> bool:
    clauses = requirements(pattern, ignore_case)
    folded = fold(text)
    return all(any(lit in folded for lit in clause) for clause in clauses)


@pytest.mark.parametrize(("pattern", "want"), [
    ("abc(?:def)?ghi", (("abcdefghi", "abcghi"),)),
    ("Could not (?:find|load) it", (("could not find it", "could not load it"),)),
    ("name '(?P<node>[^'\\n]{0,300})'", (("name '",),)),  # an optional part ends the run
    ("x{0,3}abcd", (("abcd",),)),
    ("(?i:0x)?887A0004", (("0x887a0004", "887a0004"),)),
    ("[Uu]nimplemented", (("unimplemented",),)),
    ("(?:foo\\d+bar|bazz)", (("bazz", "foo"),)),  # one clause per branch, joined
    ("(?:foo|\\d+)", ()),  # a branch that requires nothing: nothing is required
    ("(abc)\\1", (("abc",),)),
    ("(?:abcd)+", (("abcd",),)),
    ("(?:abcd)*", ()),
    ("a.b", ()),
    ("(", ()),  # does not parse: searched always
])
def test_requirements(pattern: str, want: tuple) -> None:
    assert requirements(pattern) == want


@pytest.mark.parametrize(("pattern", "text"), [
    ("(?i)class", "claſs"),  # IGNORECASE: ſ (long s) equals s
    ("(?i)file", "FİLE"),  # İ is one character for re, two for str.lower()
    ("(?i)fıle", "FILE"),
    ("(?i)ΟΔΟΣ", "οδος"),  # σ, ς and Σ are one class
    ("οδος x", "ΟΔΟΣ x".lower()),  # lower() writes ς at a word's end; the pattern says σ
    ("(?i)µm", "μM"),
    ("(?i)kelvin", "\u212aelvin"),
])
def test_casefolding_keeps_matches(pattern: str, text: str) -> None:
    assert re.search(pattern, text)
    assert _passes(pattern, text)


def test_fold_is_one_character_for_one() -> None:
    """On every code point: fold never changes the length, and folding a string is folding its
    characters one by one, so a literal that is in a text is in the folded text."""
    import _sre

    everything = "".join(map(chr, range(0x110000)))
    folded = fold(everything)
    assert len(folded) == len(everything)
    assert folded == "".join(fold(c) for c in everything)
    # the folded character is the one re's IGNORECASE compares (its simple lower case), up to
    # re's extra equivalences
    for x in range(0x110000):
        low = chr(_sre.unicode_tolower(x))
        assert folded[x] == fold(low), hex(x)


def test_fold_ignores_final_sigma() -> None:
    """str.lower() writes Σ as ς at a word's end and σ elsewhere; fold writes σ for both."""
    assert fold("ΑΣ") == fold("Α") + fold("Σ") == fold("ΑΣ ")[:2] == fold("ΑΣΑ")[:2]


def test_fold_matches_ignorecase_classes() -> None:
    """Every character re.IGNORECASE matches to a character of a literal folds the same way."""
    db = default_index()
    chars = {c for ce in db.entries for s in ce.signatures for c in s.source}
    everything = "".join(map(chr, range(0x110000)))
    for c in sorted(chars):
        for t in re.findall(re.escape(c), everything, re.I):
            assert fold(t) == fold(c), (c, t)


def test_literals_both_ways_agree() -> None:
    lits = Literals(["abc", "bcd", "zzz", "ab"])
    text = "xxabcdyy"
    slow = lits.present(text)  # a short text: substring tests
    assert lits._automaton is None
    lits._AUTOMATON_AFTER = 0
    fast = lits.present(text)  # past the threshold: the automaton (when pyahocorasick is installed)
    assert lits._automaton is not None
    assert slow == fast == {"abc", "bcd", "ab"}


def _corpus() -> list[str]:
    from speed_equal import texts

    return [t for _, t in texts(ROOT)]


def test_every_signature_passes_where_it_matches() -> None:
    """Each signature against each example of its own entry: where the regex matches, the
    prefilter lets it through."""
    index = default_index()
    from kb import load

    docs = {d.entry.id: d.entry for d in load(strict=False).documents.values()}
    checked = 0
    for ce in index.entries:
        for ex in docs[ce.entry.id].examples:
            from diagnoser.matching.text import prepare, unwrapped_views

            text = prepare(ex.text).text
            joined = "\n".join([text, *(v for v, _ in unwrapped_views(text))])
            present = index.present(joined)
            for sig in ce.signatures:
                if sig.regex.search(joined):
                    checked += 1
                    assert sig.may_match(present), (ce.entry.id, sig.source)
    assert checked > 1000


@settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(data=st.data())
def _generated(data, pattern: str, ignore_case: bool) -> None:
    flags = re.I if ignore_case else 0
    text = data.draw(st.from_regex(re.compile(pattern, flags)))
    assert re.search(pattern, text, flags)
    assert _passes(pattern, text, ignore_case), (pattern, text)


def test_every_signature_on_generated_matches() -> None:
    """Texts hypothesis writes to match each signature (with padding around) pass the prefilter.
    Every other signature (test_every_signature_passes_where_it_matches takes them all), so that
    the suite runs within CI's time limit."""
    tried = 0
    for sig in [sig for ce in default_index().entries for sig in ce.signatures][::2]:
        try:
            _generated(pattern=sig.source, ignore_case=sig.ignore_case)
        except (re.error, NotImplementedError, ValueError) as exc:  # a construct from_regex cannot write
            if "from_regex" not in repr(exc) and not isinstance(exc, (re.error, NotImplementedError)):
                raise
            continue
        tried += 1
    assert tried > 500


def test_score_same_with_and_without_prefilter(monkeypatch: pytest.MonkeyPatch) -> None:
    """The ranked result of every entry example, blind-set and out-of-scope text is the same when
    every signature of every entry is searched."""
    from diagnoser.matching import index as index_mod
    from diagnoser.matching.matcher import score
    from diagnoser.matching.text import prepare

    idx = default_index()

    def ranked(text: str) -> list[tuple]:
        return [(c.id, c.probability, c.confidence, c.line, repr(c.evidence), c.facts)
                for c in score(idx, prepare(text).text)]

    # every other text (the whole corpus is bench/speed_equal.py's, with the full JSON report): the
    # suite runs within CI's time limit
    corpus = _corpus()[::2]
    assert len(corpus) > 1000
    with_filter = [ranked(t) for t in corpus]
    monkeypatch.setattr(index_mod.CompiledSignature, "may_match", lambda self, present: True)
    monkeypatch.setattr(index_mod.Index, "searchable", lambda self, present: set(range(len(self.entries))))
    without = [ranked(t) for t in corpus]
    differ = [t[:80] for t, a, b in zip(corpus, with_filter, without) if a != b]
    assert not differ


def test_automaton_and_substring_tests_find_the_same_literals() -> None:
    """On every text of the corpus (folded as the matcher folds it)."""
    pytest.importorskip("ahocorasick")
    lits = default_index()._literals
    automaton = lits._build()
    for text in _corpus():
        folded = fold(text)
        assert {lit for _, lit in automaton.iter(folded)} == {lit for lit in lits.literals if lit in folded}
