"""Text for a terminal: names and messages from the service, escaped so they cannot move the cursor, recolour or forge lines."""

from __future__ import annotations

import re

# C0 and C1 controls, DEL, and the format characters that reorder or hide text (bidi overrides, zero-width, line separators).
_UNSAFE = re.compile(r"[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")


def _escape(match: "re.Match[str]") -> str:
    char = match.group(0)
    named = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(char)
    if named:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: object) -> str:
    """``text`` with every control and invisible formatting character shown as an escape (``\\x1b``, ``\\r``, ``\\u202e``)."""
    return _UNSAFE.sub(_escape, str(text))

