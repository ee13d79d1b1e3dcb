"""An audit worker: reads one JSON line per model on stdin, answers one record line on stdout.

Started by diagnoser.model.audit with its options as the one argument. Whatever the libraries print
goes to stderr: the protocol's stdout is a private copy of the original descriptor.
"""
from __future__ import annotations

import json
import os
import sys


def main() -> None:
    cfg = json.loads(sys.argv[1])
    proto = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)  # a stray print (Python or C++) must not corrupt the protocol
    sys.stdout = sys.stderr
    from diagnoser.model.audit import Options, audit_one

    options = Options(probes=cfg["probes"], providers=tuple(cfg["providers"]), session_timeout=float(cfg["session_timeout"]))
    for line in sys.stdin:
        if not line.strip():
            continue
        path = json.loads(line)["path"]
        proto.write(json.dumps(audit_one(path, options), ensure_ascii=False) + "\n")
        proto.flush()


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(130)
