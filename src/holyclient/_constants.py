"""Defaults, in one place: where the client talks to, how long it waits, and what it retries."""

from __future__ import annotations

DEFAULT_BASE_URL = "https://api.holysheep.ai/v1"
API_KEY_ENV = "HOLYSHEEP_API_KEY"
BASE_URL_ENV = "HOLYSHEEP_BASE_URL"
PRICES_ENV = "HOLYSHEEP_PRICES"
#: The capabilities file ``holyclient doctor --save-capabilities`` writes, read by ``parse()``.
CAPABILITIES_ENV = "HOLYSHEEP_CAPABILITIES"

#: Seconds. Completions can legitimately take minutes; connecting should not. (A whole number, as openai's:
#: the default ``Timeout`` prints ``read=600``.)
DEFAULT_TIMEOUT = 600
DEFAULT_CONNECT_TIMEOUT = 5.0

#: Seconds a stream may wait for its first event (from sending) and between two events, unless the
#: client or the call says otherwise. A chat model's first token comes within seconds even on a long
#: prompt and its tokens follow each other within a second: a minute of silence is a stalled provider,
#: found ten times sooner than by the read timeout (which keep-alive comments also reset).
DEFAULT_FIRST_EVENT_TIMEOUT = 60.0
DEFAULT_STREAM_IDLE_TIMEOUT = 60.0
#: The same for a request to a model that may think silently before (or between) its events: a
#: reasoning model, or any request that asks for reasoning or thinking. As long as the read timeout.
REASONING_STREAM_TIMEOUT = 600.0
#: Model name prefixes of models that reason before they answer (matched after any ``provider/``).
REASONING_MODEL_PREFIXES = ("o1", "o3", "o4", "gpt-5", "deepseek-reasoner", "deepseek-r1", "qwq")
#: Request fields that ask a model to reason or think first.
REASONING_FIELDS = ("reasoning_effort", "reasoning", "thinking")

DEFAULT_MAX_RETRIES = 2
INITIAL_RETRY_DELAY = 0.5
MAX_RETRY_DELAY = 8.0
#: A server asking for a longer wait than this gets an error at once instead of a silent stall.
DEFAULT_MAX_RETRY_AFTER = 60.0

RETRYABLE_STATUS_CODES = frozenset({408, 409, 429, 500, 502, 503, 504})

#: Connection pool sizes for the default transport (the batch runner raises its own).
DEFAULT_MAX_CONNECTIONS = 1000
DEFAULT_MAX_KEEPALIVE_CONNECTIONS = 256

LOGGER_NAME = "holyclient"

#: The Batch API's endpoints (a batch line's ``url``), in the order error messages list them.
CHAT_COMPLETIONS_URL = "/v1/chat/completions"
EMBEDDINGS_URL = "/v1/embeddings"
COMPLETIONS_URL = "/v1/completions"
RESPONSES_URL = "/v1/responses"
MODERATIONS_URL = "/v1/moderations"
ACCEPTED_URLS = (CHAT_COMPLETIONS_URL, EMBEDDINGS_URL, COMPLETIONS_URL, RESPONSES_URL, MODERATIONS_URL)
#: The path each Batch API endpoint is sent to, under the client's base URL (which ends in ``/v1``).
PATHS = {url: url.removeprefix("/v1") for url in ACCEPTED_URLS}
