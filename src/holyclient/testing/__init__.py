"""A local OpenAI-compatible server for tests, demos and benchmarks -- no network, no key needed.

``LocalServer`` answers ``/v1/chat/completions`` (JSON and SSE streaming; completions made with
``store=true`` are kept and served by the stored-completion endpoints), ``/v1/embeddings`` and
``/v1/models``, and also ``/v1/responses`` and ``/v1/completions`` (JSON and SSE), moderations, images,
audio (speech, transcriptions, translations), files and the Batch API, with deterministic content,
and injects faults on demand (latency, 429 with ``Retry-After``, 5xx, dropped connections, malformed
bodies, streams cut or erroring part-way, hangs; a slow first event, a stall, one malformed event, a
stream ending without ``[DONE]``, ``context_length_exceeded`` and content-filter refusals, and an
:class:`Outage` that ends) so retry handling and failover can be tested for real. ``holyclient serve`` runs the same server from the
command line; ``holyclient.testing.pytest_plugin`` provides the ``holyclient_server`` fixture.
``LocalServer(profile="holysheep")`` plays the relay instead: its model catalogue, and each model family
answering as holyclient's capabilities table says (see :mod:`holyclient.testing._relay`). With tools,
the model follows a documented policy an agent loop can finish (:mod:`holyclient.testing._tool_policy`);
``LocalServer(script=[Turn...])`` answers exact turns instead (:mod:`holyclient.testing._scripted_turns`).

Stdlib only: importing this package does not import the client, httpx or pydantic.
"""

from __future__ import annotations

from ._app import App
from ._config import RecordedRequest, ServerConfig
from ._faults import Fault, FaultMix, fault_from_name, parse_kinds
from ._limits import RateLimits
from ._outage import Outage
from ._scripted_turns import Turn
from ._server import LocalServer, base_url_of, close_app_server, start_app_server

__all__ = [
    "App",
    "Fault",
    "FaultMix",
    "LocalServer",
    "Outage",
    "RateLimits",
    "RecordedRequest",
    "ServerConfig",
    "Turn",
    "base_url_of",
    "close_app_server",
    "fault_from_name",
    "parse_kinds",
    "start_app_server",
]
