"""Facts any error text may carry, whatever entry it matches: node names, providers, versions."""
from __future__ import annotations

import re

_GENERIC = (
    re.compile(r"node with name '(?P<node>[^'\n]{1,300})'"),
    re.compile(r"in node \((?P<node>[^)\n]{1,300})\)"),
    re.compile(r"running (?P<op>\w{1,60}) node\. Name:'(?P<node>[^'\n]{1,300})'"),
    re.compile(r"for the node (?:(?P<node>[^\s:(]{1,300}):)?(?P<op>\w{1,60})\((?P<opset>\d{1,3})\)"),
)
_PROVIDER = re.compile(r"\b(?P<provider>[A-Z][A-Za-z]{1,30}ExecutionProvider)\b")


def extract(text: str) -> dict[str, str]:
    facts: dict[str, str] = {}
    for rx in _GENERIC:
        m = rx.search(text)
        if m:
            for k, v in m.groupdict().items():
                if v:
                    facts.setdefault(k, v)
    providers = list(dict.fromkeys(m.group("provider") for m in _PROVIDER.finditer(text[:200_000])))
    if providers:
        facts.setdefault("provider", providers[0])
        facts["providers_mentioned"] = ",".join(providers[:8])
    return facts
