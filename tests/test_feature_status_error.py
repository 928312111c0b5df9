"""``status_error``, the face a feature that judges answers itself uses: the error it gives carries the
status class, the server's message and the request it answers."""

from __future__ import annotations

import httpx2

from holyclient import BadRequestError, Client
from holyclient._send._features import status_error
from support import KEY


def test_status_error_is_the_status_class_with_the_message_and_the_request_it_answers() -> None:
    request = httpx2.Request("POST", "http://127.0.0.1:9/v1/chat/completions")
    content = b'{"error": {"message": "bad model", "type": "invalid_request_error"}}'
    response = httpx2.Response(400, content=content)  # the request is passed on its own
    with Client(api_key=KEY, base_url="http://127.0.0.1:9/v1") as client:
        error = status_error(client, response, content, request)
    assert isinstance(error, BadRequestError)
    assert "bad model" in str(error)
    assert (error.request.method, error.request.url) == ("POST", request.url)
