"""``--base-url-env NAME`` outside Python: a whole OpenAI base URL becomes a read of NAME with
HolySheep's URL as the default, in the syntax of the file's language, where it has one.

* JS/TS: a quoted ``"https://api.openai.com/v1"`` in a value position (after ``:``, ``=``, ``(``,
  ``,`` or ``[``, before ``,``, ``;``, ``)``, ``}``, ``]`` or the end of the line) becomes
  ``process.env.NAME ?? "https://api.holysheep.ai/v1"``.
* Shell scripts, Dockerfiles and docker compose files: ``${NAME:-https://api.holysheep.ai/v1}``;
  not inside single quotes in a shell script (no expansion there), and never in comments.

Other files (``.env``, plain YAML such as Kubernetes manifests, TOML, JSON) have no such syntax:
their URL is rewritten as a literal, as without the option.
"""

from __future__ import annotations

import os
import re

from ._rules import BASE_URL, Hit, env_message, in_comment

_SHELL_SUFFIXES = (".sh", ".bash", ".zsh", ".ksh")
#: what may follow the base URL for it to be the whole URL (a path, query or more host would not)
_URL_GOES_ON = re.compile(r"[\w/.?#%&=~+-]")


def env_style(path: str) -> str | None:
    """``"js"``, ``"shell"`` (``${NAME:-...}`` is valid), or None for a file kind with no such syntax."""
    name = os.path.basename(path).lower()
    if name.endswith((".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".mts", ".cts")):
        return "js"
    if name.endswith(_SHELL_SUFFIXES) or "dockerfile" in name:
        return "shell"
    if name.endswith((".yml", ".yaml")) and "compose" in name:
        return "compose"  # compose interpolates ${...} whatever the YAML quoting
    return None


def _whole_base_end(text: str, h: Hit) -> int | None:
    """Where the base URL starting at the hit ends, if the hit is a whole ``.../v1`` URL."""
    if h.new is None or h.kind != "url":
        return None
    end = h.end
    if text[end : end + 3] != "/v1":
        return None
    end += 3
    if text[end : end + 1] == "/":
        end += 1
    if _URL_GOES_ON.match(text, end):
        return None
    return end


def env_hit(text: str, h: Hit, style: str | None, name: str | None) -> Hit:
    """The hit, widened to read NAME when it is a whole base URL in a place that allows it."""
    if style is None or name is None or h.bare or in_comment(text, h.start):
        return h
    end = _whole_base_end(text, h)
    if end is None:
        return h
    message = env_message(name)
    if style == "js":
        quote = text[h.start - 1 : h.start]
        if quote not in ("'", '"', "`") or text[end : end + 1] != quote:
            return h
        before = text[: h.start - 1].rstrip()[-1:]
        after = text[end + 1 :].lstrip(" \t")[:1]
        if before not in (":", "=", "(", ",", "[") or after not in (",", ";", ")", "}", "]", "\n", "\r", ""):
            return h
        return Hit(
            h.start - 1, end + 1, f"process.env.{name} ?? {quote}{BASE_URL}{quote}", "base-url-env", message
        )
    if style == "shell" and text[h.start - 1 : h.start] == "'":
        return h  # no expansion inside single quotes
    return Hit(h.start, end, f"${{{name}:-{BASE_URL}}}", "base-url-env", message)
