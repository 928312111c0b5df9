"""One check that an error cannot leak the API key, whatever path raised it."""

from __future__ import annotations

from typing import Any


def _request_texts(request: Any) -> list[str]:
    if request is None:
        return []
    headers = getattr(request, "headers", {})
    return [repr(request), str(getattr(request, "url", "")), repr(dict(headers)), repr(list(headers.raw))]


def exception_texts(exc: BaseException) -> list[str]:
    """Every text an error exposes: str, repr, args, its request, its response's request, its chain."""
    texts: list[str] = []
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        current = todo.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        texts += [str(current), repr(current), repr(current.args), repr(getattr(current, "body", None))]
        texts += _request_texts(getattr(current, "_request", None) or _safe_request(current))
        response = getattr(current, "response", None)
        for answer in [response, *getattr(response, "history", ())] if response is not None else []:
            texts += _request_texts(getattr(answer, "_request", None))
            texts.append(repr(dict(answer.headers)))
        todo += [current.__cause__, current.__context__]
        todo += list(getattr(current, "exceptions", ()))
    return texts


def _safe_request(exc: BaseException) -> Any:
    try:
        return exc.request  # type: ignore[attr-defined]
    except (AttributeError, RuntimeError):  # httpx's RequestError.request raises when unset
        return None


def assert_key_nowhere(exc: BaseException, key: str, log_text: str = "") -> None:
    bare = key.removeprefix("Bearer ")
    for text in [*exception_texts(exc), log_text]:
        assert bare not in text, f"the key leaked in {text[:300]!r}"
