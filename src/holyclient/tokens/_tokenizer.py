"""Offline tiktoken encodings: loaded from files shipped in the package, verified, cached, crash-proof.

tiktoken normally downloads its rank files on first use; air-gapped users and CI have no internet, so
the files ship in ``holyclient/_data`` (gzip-compressed, byte-exact copies) and are checked against
the same sha256 tiktoken itself expects. Nothing here is imported by ``import holyclient``.

tiktoken's Rust pre-tokenizer panics on about a million consecutive whitespace characters
(openai/tiktoken#15); the panic surfaces as ``PanicException``, a ``BaseException``. Texts that hold a
long whitespace run take a slower path that pre-tokenizes in Python with the same pattern and feeds the
huge whitespace pieces straight to the BPE step, so the result is the exact token list, not a guess.
"""

from __future__ import annotations

import binascii
import gzip
import hashlib
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from importlib import resources
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    import tiktoken

ENDOFTEXT = "<|endoftext|>"
FIM_PREFIX = "<|fim_prefix|>"
FIM_MIDDLE = "<|fim_middle|>"
FIM_SUFFIX = "<|fim_suffix|>"
ENDOFPROMPT = "<|endofprompt|>"

#: name -> (sha256 of the decompressed rank file, pre-tokenizer pattern, special tokens), as in
#: tiktoken_ext/openai_public.py.
_SPECS: dict[str, tuple[str, str, dict[str, int]]] = {
    "cl100k_base": (
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s""",
        {ENDOFTEXT: 100257, FIM_PREFIX: 100258, FIM_MIDDLE: 100259, FIM_SUFFIX: 100260, ENDOFPROMPT: 100276},
    ),
    "o200k_base": (
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        "|".join(
            [
                r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
                r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
                r"""\p{N}{1,3}""",
                r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
                r"""\s*[\r\n]+""",
                r"""\s+(?!\S)""",
                r"""\s+""",
            ]
        ),
        {ENDOFTEXT: 199999, ENDOFPROMPT: 200018},
    ),
}

ENCODING_NAMES = tuple(_SPECS)

#: Texts at least this long are counted in bounded chunks (:mod:`holyclient.tokens._bounded`): tiktoken's
#: BPE is superlinear on a long run without spaces (4 MiB of one letter: several seconds).
CHUNKED_FROM = 1 << 16

#: Texts shorter than this cannot hold a dangerous whitespace run, so they skip the scan entirely
#: (the panic starts near 1,000,000 characters; a 10x margin).
LONG_RUN = 100_000
#: In the slow path, pieces at least this long are BPE-encoded on their own, without the Rust regex.
#: Any whitespace run of LONG_RUN characters splits into at most three pieces, one of them this long.
BIG_PIECE = LONG_RUN // 4

# Python's \s is a superset of the Unicode White_Space class the Rust regex uses, so no long run is
# missed; the look-behind keeps the scan linear (a match can only start where a run starts).
_LONG_WS = re.compile(r"(?<!\s)\s{" + str(LONG_RUN) + ",}")

_cache: dict[str, tiktoken.Encoding] = {}
_patterns: dict[str, Any] = {}
_lock = threading.Lock()


class EncodingFileError(RuntimeError):
    """A bundled rank file is missing or does not match its published sha256 (a damaged install)."""


def _read_ranks(name: str) -> dict[bytes, int]:
    expected = _SPECS[name][0]
    try:
        packed = resources.files("holyclient").joinpath(f"_data/{name}.tiktoken.gz").read_bytes()
        raw = gzip.decompress(packed)
    except (OSError, EOFError) as exc:
        raise EncodingFileError(f"cannot read the bundled {name} encoding: {exc}") from exc
    digest = hashlib.sha256(raw).hexdigest()
    if digest != expected:
        raise EncodingFileError(
            f"the bundled {name} encoding is damaged (sha256 {digest}, expected {expected}); reinstall holyclient"
        )
    # "base64-token rank" lines, parsed by C loops (map, zip, dict): half the time of a Python loop
    parts = raw.split()
    return dict(zip(map(binascii.a2b_base64, parts[0::2]), map(int, parts[1::2]), strict=True))


def get_encoding(name: str) -> tiktoken.Encoding:
    """Return the named encoding (``o200k_base`` or ``cl100k_base``), built once from the bundled file.

    A count made :func:`without_waiting` never waits for it to be built: the build starts in the
    background (:func:`warm_up`) and the count gets :class:`BytesBound` meanwhile.

    Raises:
        ValueError: the name is not one of the bundled encodings.
        EncodingFileError: the bundled file is missing or fails its sha256 check.
    """
    enc = _cache.get(name)
    if enc is not None:
        return enc
    if not _waits.get() and name in _SPECS:  # built in the background; meanwhile, an upper bound
        from ._bounded import bytes_bound

        warm_up(name)
        bytes_bound()
        return cast("tiktoken.Encoding", BytesBound(name))
    if name not in _SPECS:
        raise ValueError(f"unknown encoding {name!r}; bundled: {', '.join(ENCODING_NAMES)}")
    with _lock:  # two threads must not both spend half a second building the same table
        enc = _cache.get(name)
        if enc is None:
            import tiktoken

            _, pat_str, special = _SPECS[name]
            enc = tiktoken.Encoding(
                name=name, pat_str=pat_str, mergeable_ranks=_read_ranks(name), special_tokens=special
            )
            _cache[name] = enc
    return enc


class BytesBound:
    """Stands in for an encoding still being built: one "token" per UTF-8 byte of a text. Every
    tokenizer a relay's models use is byte-level (a token is at least one byte), so this is an upper
    bound of any of their counts: what a budget may hold while the real encoding loads."""

    def __init__(self, name: str) -> None:
        self.name = name

    def encode_ordinary(self, text: str) -> range:
        return range(len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass")))


#: Names of the encodings :func:`warm_up` is building.
_warming: set[str] = set()
#: Whether a count waits for an encoding :func:`warm_up` is building (see :func:`without_waiting`).
_waits: ContextVar[bool] = ContextVar("holyclient_counting_waits", default=True)


def preload(name: str = "o200k_base") -> None:
    """Build the named encoding now (once per process), so that no request waits for it.

    A client with a budget counts its first request's prompt before sending it, and building an
    encoding takes 0.2-0.6 s, most of it tiktoken's own construction, which holds the GIL throughout:
    built in a background thread it would stall whatever runs then, the first call included. So a
    budgeted client builds it when it is made: ``o200k_base``, the encoding of OpenAI's current models
    and the stand-in of every other family (gpt-4, gpt-3.5 and the Qwen and DeepSeek tokenizers load
    on first use). Raises nothing: a damaged install fails where a count needs the encoding.
    """
    try:
        get_encoding(name)
    except Exception:  # EncodingFileError, an unloadable tiktoken: said by the count that needs it
        return


def warm_up(name: str = "o200k_base") -> None:
    """Build the named encoding in a background thread, unless it is built or being built (what a
    count made :func:`without_waiting` starts, holding an upper bound meanwhile)."""
    if name in _cache or name in _warming or name not in _SPECS:
        return
    with _lock:
        if name in _cache or name in _warming:
            return
        _warming.add(name)

    def build() -> None:
        try:
            get_encoding(name)
        except Exception:  # a damaged install: the count that needs it will raise, where it can say so
            pass
        finally:
            _warming.discard(name)

    threading.Thread(target=build, name=f"holyclient-warm-up-{name}", daemon=True).start()


@contextmanager
def without_waiting() -> Iterator[None]:
    """Counts made inside never wait for an encoding to be built (0.2-0.6 s, most of it holding the
    GIL): it is built in the background and they use its upper bound meanwhile. For the request path --
    a budget's hold before sending, an uncertain spend after a failure, a stream's local count -- where
    an async client's event loop would otherwise stall."""
    token = _waits.set(False)
    try:
        yield
    finally:
        _waits.reset(token)


def encode(enc: tiktoken.Encoding, text: str) -> list[int]:
    """Encode ``text`` as ordinary text (special-token strings are not special), never crashing."""
    if len(text) < LONG_RUN or not hasattr(enc, "_encode_single_piece"):  # short, or not tiktoken's
        return enc.encode_ordinary(text)
    if _LONG_WS.search(text) is None:
        try:
            return enc.encode_ordinary(text)
        except BaseException as exc:  # pyo3's PanicException derives from BaseException
            if type(exc).__name__ != "PanicException":
                raise
    return encode_split(enc, text)


def exact_count(enc: tiktoken.Encoding, text: str) -> int:
    """Number of tokens of ``text``, exactly, whatever it costs (truncation needs the exact count)."""
    if len(text) < LONG_RUN:
        return len(enc.encode_ordinary(text))
    return len(encode(enc, text))


def count(enc: tiktoken.Encoding, text: str) -> int:
    """Number of tokens of ``text``, at a bounded cost; the hot path of every estimate, so the short
    case is one call. A long text is counted in chunks, and beyond what a count may tokenize it is
    estimated (see :mod:`holyclient.tokens._bounded`); either way the count's error bound is added to
    the counting call's :class:`~holyclient.tokens._bounded.Work`."""
    if len(text) < CHUNKED_FROM:
        return len(enc.encode_ordinary(text))
    from ._bounded import bounded_count

    return bounded_count(enc, text)


def encode_split(enc: tiktoken.Encoding, text: str, big_piece: int = BIG_PIECE) -> list[int]:
    """Exact encoding that keeps huge pieces away from the Rust pre-tokenizer.

    The text is pre-tokenized in Python with the encoding's own pattern. Pieces of ``big_piece``
    characters or more are BPE-encoded alone (``_encode_single_piece`` skips the regex); BPE never
    crosses a piece boundary, so that is exact. The text between them is encoded normally in segments,
    and a segment may only end after a non-whitespace character: a segment ending in whitespace would
    be pre-tokenized differently on its own (``\\s+(?!\\S)`` and ``$`` look past the end), so the
    pieces after the last such point are encoded one by one instead.
    """
    pattern = _pattern(enc)
    out: list[int] = []
    seg_start = safe_end = 0
    pending: list[str] = []  # pieces after safe_end, in order
    for match in pattern.finditer(text):
        piece = match.group()
        if len(piece) >= big_piece:
            if safe_end > seg_start:
                out.extend(enc.encode_ordinary(text[seg_start:safe_end]))
            for small in pending:
                out.extend(enc._encode_single_piece(small))
            out.extend(enc._encode_single_piece(piece))
            seg_start = safe_end = match.end()
            pending.clear()
        elif piece[-1].isspace():
            pending.append(piece)
        else:
            safe_end = match.end()
            pending.clear()
    if seg_start < len(text):
        out.extend(enc.encode_ordinary(text[seg_start:]))
    return out


def _pattern(enc: tiktoken.Encoding) -> Any:
    pattern = _patterns.get(enc.name)
    if pattern is None:
        import regex  # type: ignore[import-untyped,unused-ignore]  # a dependency of tiktoken; it speaks the same \p{..} and possessive syntax

        pattern = _patterns[enc.name] = regex.compile(enc._pat_str)
    return pattern
