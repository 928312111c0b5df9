"""Token estimates for rate-limit admission: what a request will cost against a TPM limit before it is sent."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from .._constants import CHAT_COMPLETIONS_URL

#: Completion tokens assumed for a request without ``max_tokens``/``max_completion_tokens``: what OpenAI's
#: cookbook and the local test server assume when computing the TPM cost of such a request.
DEFAULT_COMPLETION_TOKENS = 16


def _text_chars(content: Any) -> int:
    if isinstance(content, str):
        return len(content)
    if isinstance(content, list):
        return sum(len(part.get("text") or "") for part in content if isinstance(part, dict))
    return 0


def prompt_chars(body: Mapping[str, Any]) -> int:
    messages = body.get("messages")
    if not isinstance(messages, list):  # embeddings, moderations, completions, responses
        text = body.get("input", body.get("prompt"))
        items = text if isinstance(text, list) else [text]
        return sum(
            len(item)
            if isinstance(item, str)
            else _text_chars(item.get("content"))
            if isinstance(item, dict)
            else 0
            for item in items
        )
    return sum(_text_chars(m.get("content")) for m in messages if isinstance(m, dict))


def completion_allowance(body: Mapping[str, Any], url: str = CHAT_COMPLETIONS_URL) -> int:
    """Completion tokens the server reserves for ``body`` sent to ``url`` (``/v1/...`` or not):
    ``max_tokens`` (or the default) times ``n``; none for embeddings and moderations,
    ``max_output_tokens`` for responses."""
    from ..tokens import shape_of

    try:
        shape = shape_of(url)
    except ValueError:  # an endpoint with no prompt generates nothing either
        return 0
    if shape == "embeddings":
        return 0
    value = body.get("max_output_tokens") if shape == "responses" else body.get("max_tokens")
    if value is None:
        value = body.get("max_completion_tokens")
    if not isinstance(value, int) or isinstance(value, bool):
        value = DEFAULT_COMPLETION_TOKENS
    n = body.get("n")
    return value * (n if isinstance(n, int) and not isinstance(n, bool) and n > 0 else 1)


def count_prompt_tokens(body: Mapping[str, Any], endpoint: str = CHAT_COMPLETIONS_URL) -> int:
    """Prompt (input) tokens of a request body sent to ``endpoint``, by the token counter (tiktoken,
    offline); 0 when it cannot be counted."""
    from ..tokens import count_request

    try:
        return count_request(body, endpoint=endpoint).tokens
    except (ValueError, TypeError):  # no model, odd shapes, an endpoint without a prompt: the floor applies
        return 0


class TokenEstimator:
    """Tokens a request will be charged against a TPM limit, before it is sent.

    The prompt is counted with the token counter, scaled by how the real ``prompt_tokens`` of the
    responses so far compare with the counts (the correction, within 1/4x..4x), and never estimated
    below ``characters / 4`` -- the estimate OpenAI documents for its limiter; the completion allowance
    (``max_tokens``, else 16, times ``n``) is added.
    """

    def __init__(self, counter: Callable[[Mapping[str, Any], str], int] = count_prompt_tokens) -> None:
        self._counter = counter
        self._estimated = 0
        self._real = 0

    @property
    def ratio(self) -> float:
        """Real prompt tokens per counted token so far (1 before any response)."""
        return min(4.0, max(0.25, self._real / self._estimated)) if self._estimated else 1.0

    def prompt(self, body: Mapping[str, Any], url: str = CHAT_COMPLETIONS_URL) -> int:
        """The raw count of ``body`` sent to ``url``: the token counter (told the endpoint), or
        ``characters / 4`` when the counter cannot count it."""
        return self._counter(body, url) or math.ceil(prompt_chars(body) / 4)

    def estimate(self, body: Mapping[str, Any], url: str = CHAT_COMPLETIONS_URL) -> tuple[int, int]:
        """``(tokens to reserve, raw prompt count)`` for ``body`` sent to ``url``."""
        raw = self.prompt(body, url)
        prompt = max(math.ceil(raw * self.ratio), math.ceil(prompt_chars(body) / 4))
        return prompt + completion_allowance(body, url), raw

    def observe(self, raw_prompt: int, real_prompt: int) -> None:
        """Feed the raw count of a request that was answered and the ``prompt_tokens`` it was billed."""
        self._estimated += raw_prompt
        self._real += real_prompt
