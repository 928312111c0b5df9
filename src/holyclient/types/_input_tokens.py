"""What ``client.responses.input_tokens.count()`` returns, and where the count came from."""

from __future__ import annotations

from typing import Literal

from pydantic import PrivateAttr

from ._model import BaseModel


class InputTokenCountResponse(BaseModel):
    """The input tokens of a Responses request (``client.responses.input_tokens.count``)."""

    input_tokens: int
    object: Literal["response.input_tokens"] = "response.input_tokens"
    _source: Literal["server", "local"] = PrivateAttr(default="server")

    @property
    def source(self) -> Literal["server", "local"]:
        """``"server"`` when the server counted; ``"local"`` when it lacks the endpoint and holyclient's
        offline counter did (an estimate for non-OpenAI models; see ``holyclient.count_request``)."""
        return self._source
