"""respx keeps working: users who mock with respx pass an ``httpx`` client."""

from __future__ import annotations

import httpx
import pytest
import respx

from holyclient import APIConnectionError, AsyncClient, Client, RateLimitError
from support import KEY, completion


@respx.mock
def test_respx_mocks_a_user_supplied_httpx_client(sleeps):
    route = respx.post("https://api.holysheep.ai/v1/chat/completions").mock(
        side_effect=[
            httpx.Response(429, headers={"retry-after": "0"}, json={}),
            httpx.Response(200, json=completion("ok")),
        ]
    )
    with httpx.Client() as http:
        client = Client(api_key=KEY, http_client=http, sleep=sleeps.append)
        result = client.chat.completions.create(model="m", messages=[])
    assert result.choices[0].message.content == "ok"
    assert route.call_count == 2
    assert len(sleeps) == 1 and 0.375 <= sleeps[0] <= 0.5  # Retry-After 0 backs off as usual


@respx.mock
async def test_respx_with_async_httpx_client_maps_errors():
    respx.post("https://api.holysheep.ai/v1/chat/completions").mock(
        return_value=httpx.Response(429, json={"error": {"message": "quota", "code": "insufficient_quota"}})
    )
    async with httpx.AsyncClient() as http:
        client = AsyncClient(api_key=KEY, http_client=http)
        try:
            await client.chat.completions.create(model="m", messages=[])
        except RateLimitError as exc:
            assert exc.code == "insufficient_quota"
        else:
            raise AssertionError("expected RateLimitError")


@respx.mock
def test_httpx_connection_errors_are_translated(sleeps):
    respx.post("https://api.holysheep.ai/v1/chat/completions").mock(side_effect=httpx.ConnectError("down"))
    with httpx.Client() as http:
        client = Client(api_key=KEY, http_client=http, sleep=sleeps.append, max_retries=1)
        with pytest.raises(APIConnectionError) as caught:
            client.chat.completions.create(model="m", messages=[])
    assert type(caught.value) is APIConnectionError
    assert caught.value.attempts == 2
    assert len(sleeps) == 1
