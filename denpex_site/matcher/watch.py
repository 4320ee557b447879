"""Follow a growing log (like ``tail -F``) and alert the moment a root-cause signature appears.

The file is polled; when it is replaced (a new inode, as log rotation does) or truncated, it is
read again from its start. Only complete lines are matched; each alert names the entry, the line
and its link, once per entry. ``--exec`` runs a shell command on the first alert, with the
finding in DENPEX_* environment variables.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from denpex_site.matcher.diagnosis import CHUNK, Diagnosis
from denpex_site.matcher.engine import Engine
from denpex_site.terminal import safe


def watch(
    path: Path,
    bundle: dict[str, Any],
    *,
    base_url: str,
    command: str | None = None,
    from_end: bool = False,
    interval: float = 0.25,
    exit_on_alert: bool = False,
    max_polls: int | None = None,
) -> int:
    diagnosis = Diagnosis(Engine(bundle))
    name = path.name
    state = diagnosis.open_file(name)
    alerted: set[str] = set()
    fh = None
    inode = None
    offset = 0
    carry = b""
    line_no = 0
    polls = 0
    print(f"watching {safe(str(path))} (Ctrl-C to stop)", file=sys.stderr, flush=True)
    try:
        while max_polls is None or polls < max_polls:
            polls += 1
            try:
                st = path.stat()
            except FileNotFoundError:
                time.sleep(interval)
                continue
            if fh is None or st.st_ino != inode or st.st_size < offset:
                if fh is not None:
                    fh.close()
                    print(
                        f"{safe(str(path))} was replaced or truncated: reading it from the start",
                        file=sys.stderr,
                        flush=True,
                    )
                fh = open(path, "rb")  # noqa: SIM115 - kept open across polls
                inode = st.st_ino
                offset = st.st_size if (from_end and line_no == 0 and not alerted) else 0
                fh.seek(offset)
                carry = b""
                if line_no:
                    state = diagnosis.open_file(name)
                    line_no = 0
            block = fh.read(CHUNK)
            if not block:
                time.sleep(interval)
                continue
            offset += len(block)
            data = carry + block
            cut = data.rfind(b"\n") + 1
            chunk, carry = data[:cut], data[cut:]
            if not chunk:
                continue
            line_no = diagnosis.scan_lines(chunk, 0, len(chunk), state, line_no)
            for finding in diagnosis.result()["findings"]:
                if finding["role"] != "root-cause" or finding["id"] in alerted:
                    continue
                alerted.add(finding["id"])
                ev = finding["first"]
                rank = f", rank {ev['rank']}" if ev["rank"] is not None else ""
                print(
                    f"ALERT {safe(finding['title'])} at {safe(name)}:{ev['line']}{rank}\n  > {safe(ev['text'][:300])}\n"
                    f"  {base_url}/failures/{finding['id']}/",
                    flush=True,
                )
                if command and len(alerted) == 1:
                    env = dict(
                        os.environ,
                        DENPEX_ENTRY=finding["id"],
                        DENPEX_FILE=str(path),
                        DENPEX_LINE=str(ev["line"]),
                    )
                    env["DENPEX_RANK"] = "" if ev["rank"] is None else str(ev["rank"])
                    subprocess.run(command, shell=True, env=env, check=False)
                if exit_on_alert:
                    return 0
    except KeyboardInterrupt:
        return 0 if alerted else 1
    finally:
        if fh is not None:
            fh.close()
    return 0 if alerted else 1
