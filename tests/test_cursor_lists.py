"""The resources whose ``list()`` is the shared cursor-page method (files, batches, stored chat
completions) each name the list operation of their own item type, sync and async."""

from __future__ import annotations

import typing

import pytest

from holyclient._send import AsyncCursorPage, SyncCursorPage
from holyclient.resources import SYNC_RESOURCES  # noqa: F401  (loads every resource class)
from holyclient.resources._operation import AsyncCursorList, SyncCursorList


def _subclasses(base: type) -> set[type]:
    found = set(base.__subclasses__())
    for cls in list(found):
        found |= _subclasses(cls)
    return found


def _item_type(cls: type, base: type) -> object:
    """``X`` of the ``base[X]`` the class (or the mixin it inherits it from) declares."""
    for klass in cls.__mro__:
        for orig in getattr(klass, "__orig_bases__", ()):
            if typing.get_origin(orig) is base:
                return typing.get_args(orig)[0]
    raise AssertionError(f"{cls.__name__} does not declare its item type")


LISTS = sorted(_subclasses(SyncCursorList) | _subclasses(AsyncCursorList), key=lambda c: c.__qualname__)


def test_the_files_batches_and_stored_chat_resources_use_the_shared_list() -> None:
    names = {cls.__name__ for cls in LISTS}
    assert {"Files", "AsyncFiles", "Batches", "AsyncBatches", "StoredMethods", "AsyncStoredMethods"} <= names


@pytest.mark.parametrize("cls", LISTS, ids=lambda c: c.__qualname__)
def test_each_cursor_list_pages_its_own_item_type(cls: type) -> None:
    base = SyncCursorList if issubclass(cls, SyncCursorList) else AsyncCursorList
    item = _item_type(cls, base)
    operation = cls._list  # type: ignore[attr-defined]
    assert operation.method == "GET"
    assert operation.cast_to == SyncCursorPage[item]  # type: ignore[valid-type]
    assert operation.async_page == AsyncCursorPage[item]  # type: ignore[valid-type]
