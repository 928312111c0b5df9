"""Every resource method has an async twin with the same signature, and exists on openai's client.

The resources are discovered from the clients (``holyclient.resources.SYNC_RESOURCES``), so a new API
area is covered as soon as it is registered.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from typing import Any

import openai
import pytest

from holyclient import AsyncClient, Client
from holyclient.resources import ASYNC_RESOURCES, SYNC_RESOURCES

#: Our additions to openai's signatures, documented in README "Switching from openai".
CLIENT_EXTENSIONS = {
    "allow_insecure_http",
    "first_event_timeout",
    "stream_idle_timeout",
    "max_retry_after",
    "budget_usd",
    "budget_policy",
    "usage",
    "calibration",
    "sleep",
    "limiter",
    "record_to",
    "record_rate",
    "instrument",
    "tracer_provider",
    "meter_provider",
}
METHOD_EXTENSIONS = {"max_retries"}


def _methods(obj: object) -> dict[str, Any]:
    return {
        name: member
        for name, member in inspect.getmembers(type(obj))
        if not name.startswith("_") and inspect.isfunction(member)
    }


def _children(obj: object) -> dict[str, object]:
    """Sub-resources (``chat.completions``): public attributes that are resource objects."""
    return {
        name: value
        for name, value in vars(obj).items()
        if not name.startswith("_") and type(value).__module__.startswith("holyclient.resources")
    }


def walk(
    sync: object, asyn: object, openai_obj: object, path: str
) -> Iterator[tuple[str, object, object, object]]:
    yield path, sync, asyn, openai_obj
    sync_children, async_children = _children(sync), _children(asyn)
    assert sync_children.keys() == async_children.keys(), path
    for name in sync_children:
        yield from walk(
            sync_children[name], async_children[name], getattr(openai_obj, name, None), f"{path}.{name}"
        )


def _params(func: Any) -> list[tuple[str, Any, Any]]:
    return [(p.name, p.kind, p.default) for p in inspect.signature(func).parameters.values()]


@pytest.fixture
def clients() -> Iterator[tuple[Client, AsyncClient, openai.OpenAI]]:
    sync, asyn = Client(api_key="k"), AsyncClient(api_key="k")
    theirs = openai.OpenAI(api_key="k", base_url="http://127.0.0.1:9/v1")
    yield sync, asyn, theirs
    sync.close()
    theirs.close()


def resource_triples(clients: tuple[Client, AsyncClient, openai.OpenAI]):
    sync, asyn, theirs = clients
    assert SYNC_RESOURCES.keys() == ASYNC_RESOURCES.keys()
    for name in SYNC_RESOURCES:
        yield from walk(getattr(sync, name), getattr(asyn, name), getattr(theirs, name, None), name)


def test_every_sync_resource_method_has_an_async_twin_with_the_same_signature(clients):
    checked = 0
    for path, sync, asyn, _ in resource_triples(clients):
        sync_methods, async_methods = _methods(sync), _methods(asyn)
        assert sync_methods.keys() == async_methods.keys(), path
        for name, func in sync_methods.items():
            twin = async_methods[name]
            assert _params(func) == _params(twin), f"{path}.{name}"
            returns = inspect.signature(twin).return_annotation
            # Not coroutines, as in openai: list() returns a paginator, stream() an ``async with`` manager.
            plain = ("AsyncPaginator", "AsyncChatCompletionStreamManager", "AsyncResponseStreamManager")
            assert inspect.iscoroutinefunction(twin) or str(returns).startswith(plain), f"{path}.{name}"
            checked += 1
    assert checked >= 4


def test_every_resource_method_exists_on_openai_with_compatible_parameters(clients):
    for path, sync, _, theirs in resource_triples(clients):
        assert theirs is not None, f"openai has no client.{path}"
        for name, func in _methods(sync).items():
            assert hasattr(theirs, name), f"openai has no client.{path}.{name}"
            ours = inspect.signature(func).parameters
            their_params = inspect.signature(getattr(theirs, name)).parameters
            for param in ours.values():
                if param.name == "self" or param.kind is param.VAR_KEYWORD or param.name in METHOD_EXTENSIONS:
                    continue
                assert param.name in their_params, f"{path}.{name}({param.name}=) is not openai's"
                assert param.kind == their_params[param.name].kind, f"{path}.{name}({param.name}=)"
            takes_any = any(p.kind is p.VAR_KEYWORD for p in ours.values())
            for their in their_params.values():
                assert their.name in ours or takes_any, f"{path}.{name} lacks openai's {their.name}="


def test_the_client_constructors_take_openai_arguments():
    for ours, theirs in ((Client, openai.OpenAI), (AsyncClient, openai.AsyncOpenAI)):
        our_params = inspect.signature(ours.__init__).parameters
        their_params = inspect.signature(theirs.__init__).parameters
        for name, param in our_params.items():
            if name == "self" or name in CLIENT_EXTENSIONS:
                continue
            assert name in their_params, f"{ours.__name__}({name}=) is not openai's"
            assert param.kind == their_params[name].kind
        for name in ("api_key", "organization", "project", "base_url", "timeout", "max_retries"):
            assert name in our_params
        for name in ("default_headers", "default_query", "http_client"):
            assert name in our_params


def test_client_level_methods_exist_on_openai():
    for name in ("with_options", "copy", "close", "with_raw_response", "with_streaming_response"):
        assert hasattr(Client(api_key="k"), name) and hasattr(openai.OpenAI, name), name
