from __future__ import annotations

import httpx2
import pytest

import holyclient
from holyclient import (
    APIError,
    APIStatusError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    HolyClientError,
    InternalServerError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    UnprocessableEntityError,
)
from support import KEY, Recorder

TABLE = [
    (400, BadRequestError),
    (401, AuthenticationError),
    (403, PermissionDeniedError),
    (404, NotFoundError),
    (409, ConflictError),
    (422, UnprocessableEntityError),
    (429, RateLimitError),
    (500, InternalServerError),
    (503, InternalServerError),
    (418, APIStatusError),
]


@pytest.mark.parametrize(("status", "cls"), TABLE)
def test_status_maps_to_the_familiar_error_class(make_client, status, cls):
    body = {
        "error": {"message": "nope", "type": "invalid_request_error", "param": "model", "code": "bad_model"}
    }
    rec = Recorder(httpx2.Response(status, json=body, headers={"x-request-id": "req_123"}))
    with pytest.raises(cls) as info:
        make_client(rec, max_retries=0).chat.completions.create(model="m", messages=[])
    error = info.value
    assert type(error) is cls
    assert (
        isinstance(error, APIStatusError)
        and isinstance(error, APIError)
        and isinstance(error, HolyClientError)
    )
    assert error.status_code == status
    assert error.request_id == "req_123"
    assert error.body == body["error"]  # the inner error object, as openai gives it
    assert (error.code, error.param, error.type) == ("bad_model", "model", "invalid_request_error")
    assert "nope" in str(error) and str(status) in str(error)


def test_non_json_error_body_is_kept_as_text(make_client):
    rec = Recorder(httpx2.Response(502, text="<html>Bad gateway</html>"))
    with pytest.raises(InternalServerError) as info:
        make_client(rec, max_retries=0).chat.completions.create(model="m", messages=[])
    assert info.value.body == "<html>Bad gateway</html>"


def test_the_key_never_appears_in_errors_reprs_or_attached_requests(make_client):
    rec = Recorder(httpx2.Response(401, json={"error": {"message": "Incorrect API key provided"}}))
    client = make_client(rec, max_retries=0)
    assert KEY not in repr(client) and KEY not in str(client)
    with pytest.raises(AuthenticationError) as info:
        client.chat.completions.create(model="m", messages=[])
    error = info.value
    texts = [str(error), repr(error), repr(error.request.headers), str(dict(error.request.headers))]
    texts.append(str(dict(error.response.request.headers)))
    assert all(KEY not in text for text in texts)
    assert "authorization" not in error.request.headers
    assert error.__cause__ is None


def test_connection_error_does_not_chain_the_transport_exception_with_the_key(make_client):
    def handler(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("refused", request=request)

    with pytest.raises(holyclient.APIConnectionError) as info:
        make_client(handler, max_retries=0).chat.completions.create(model="m", messages=[])
    assert info.value.__cause__ is None and info.value.__context__ is None
    assert "authorization" not in info.value.request.headers
