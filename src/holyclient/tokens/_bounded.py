"""Counting at a bounded cost: no request, however large, makes a count do unbounded tokenizer work.

A budget, a limiter and a tracker count prompts before sending and after failing, and an async client
does so on its event loop. tiktoken's BPE is superlinear on a long run without spaces (4 MiB of one
letter took several seconds), and even linear work on a 64 MiB prompt takes seconds. So:

* **Chunks.** A text of :data:`~holyclient.tokens._tokenizer.CHUNKED_FROM` characters or more is
  counted in chunks of at most :data:`CHUNK` characters. A chunk ends just before a space that follows
  a non-space character where there is one: the pre-tokenizers of o200k_base, cl100k_base and Qwen
  start a piece there in any case (a word takes the space before it), so such a cut changes nothing. A
  run of :data:`CHUNK` characters without such a space (one letter repeated, base64, a long CJK run) is
  cut where it reaches the limit: each such cut can move the count by at most :data:`CUT_ERROR` tokens
  (2 measured on generated texts of every kind, twice that stated; ``tests/test_bounded_counting.py``
  checks it), and the count's range widens by that much.
* **Estimates.** One counting call tokenizes at most :data:`EXACT_CHARS` characters (about 250,000
  tokens of English, a few tens of milliseconds). A text beyond what is left is estimated: evenly spaced
  windows of it (up to :data:`SAMPLE_CHARS` characters in all, from what is left) are counted and their
  tokens per character extrapolated. Its range is rigorous: at most one token per UTF-8 byte of the
  part not counted (every token is at least one byte), at least its bytes divided by the encoding's
  longest token. No model's context window holds such a prompt whole (the largest are about a million
  tokens), so the estimate prices a request the server will refuse; a budget holds its high end.

The bound and the range are kept per counting call (:func:`begin` / :func:`end`, used by
``count_tokens``, ``count_messages`` and ``count_request``), in a context variable so that threads and
tasks counting at once keep theirs apart.
"""

from __future__ import annotations

from contextvars import ContextVar, Token
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import tiktoken

    from ._result import TokenCount

__all__ = [
    "CHUNK",
    "CUT_ERROR",
    "EXACT_CHARS",
    "SAMPLE_CHARS",
    "Work",
    "begin",
    "bounded_count",
    "end",
    "with_bounds",
]

#: The longest chunk a long text is tokenized in.
CHUNK = 8192
#: Tokens a cut inside a run without spaces can move a count by (see the module docstring).
CUT_ERROR = 4
#: Characters one counting call tokenizes at most; the rest is estimated.
EXACT_CHARS = 1 << 20
#: Characters of a text beyond what may be tokenized that are counted to estimate it (in windows).
SAMPLE_CHARS = 1 << 16
#: Windows an estimate samples.
WINDOWS = 16
#: A cut is looked for among this many whitespace runs at a chunk's end before cutting inside a run.
_TRIES = 8


class Work:
    """One counting call's allowance and the error bound of what it counted so far."""

    __slots__ = ("above", "below", "bytes", "left")

    def __init__(self, left: int = EXACT_CHARS) -> None:
        self.left = left  #: characters it may still tokenize
        self.below = 0  #: how many tokens fewer the truth may have than the count
        self.above = 0  #: how many tokens more
        #: counted with :class:`~._tokenizer.BytesBound` (an encoding was still loading): an upper bound
        self.bytes = False

    @property
    def exact(self) -> bool:
        return not self.below and not self.above and not self.bytes


_work: ContextVar[Work | None] = ContextVar("holyclient_counting_work", default=None)


def begin() -> tuple[Work, Token[Work | None] | None]:
    """Start a counting call (or join the one under way: a count inside a count shares its allowance)."""
    work = _work.get()
    if work is not None:
        return work, None
    work = Work()
    return work, _work.set(work)


def end(token: Token[Work | None] | None) -> None:
    """End the counting call :func:`begin` started (a joined one is ended by its starter)."""
    if token is not None:
        _work.reset(token)


def bytes_bound() -> None:
    """The counting call under way counts with :class:`~._tokenizer.BytesBound`."""
    work = _work.get()
    if work is not None:
        work.bytes = True


def with_bounds(counted: TokenCount, work: Work) -> TokenCount:
    """``counted`` with the error bound of the counting call that made it: an exact count becomes an
    estimate with its range; a stand-in count (corrected by ratios later) is raised to its high end. A
    count of UTF-8 bytes (an encoding still loading) is the high end of a range that no ratio corrects
    and no calibration learns from."""
    if work.bytes:
        high = counted.tokens + work.above
        return counted._replace(
            tokens=high, approximate=True, count_method="approximate", low=high // 256, high=high
        )
    if work.exact:
        return counted
    if counted.approximate and counted.low is None:
        return counted._replace(tokens=counted.tokens + work.above)
    low = counted.tokens if counted.low is None else counted.low
    high = counted.tokens if counted.high is None else counted.high
    return counted._replace(
        approximate=True,
        count_method="approximate",
        low=max(low - work.below, 0),
        high=high + work.above,
    )


def bounded_count(enc: tiktoken.Encoding, text: str) -> int:
    """Tokens of a long ``text``: counted in chunks, or estimated beyond what the call may tokenize;
    the error bound goes to the call's :class:`Work` (a bare call gets a fresh allowance)."""
    work = _work.get() or Work()
    if len(text) <= work.left:
        work.left -= len(text)
        tokens, cuts = _chunked(enc, text)
        work.below += cuts * CUT_ERROR
        work.above += cuts * CUT_ERROR
        return tokens
    return _estimate(enc, text, work)


def _cut(text: str, start: int, stop: int) -> int:
    """Where a chunk from ``start`` should end, at most at ``stop``: just before a space that follows
    a non-space character (an exact cut), else ``stop`` (a cut inside a run)."""
    end = stop
    for _ in range(_TRIES):
        space = text.rfind(" ", start + 1, end)
        if space <= start:
            return stop
        if not text[space - 1].isspace():
            return space
        run = start + len(text[start:space].rstrip())  # the whitespace run the space belongs to
        if run > start and text[run] == " ":
            return run
        end = run
    return stop


def _chunked(enc: tiktoken.Encoding, text: str) -> tuple[int, int]:
    """``(tokens, cuts inside runs)`` of ``text`` tokenized in chunks of at most :data:`CHUNK`."""
    encode = enc.encode_ordinary
    size = len(text)
    start = tokens = cuts = 0
    while start < size:
        stop = start + CHUNK
        if stop >= size:
            tokens += len(encode(text[start:]))
            break
        cut = _cut(text, start, stop)
        cuts += cut == stop
        tokens += len(encode(text[start:cut]))
        start = cut
    return tokens, cuts


def _utf8_size(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def _estimate(enc: tiktoken.Encoding, text: str, work: Work) -> int:
    """Tokens of a text beyond the call's allowance, from evenly spaced windows (see the module
    docstring); its rigorous range goes to ``work``."""
    size = len(text)
    budget = min(work.left, SAMPLE_CHARS)
    windows = min(WINDOWS, budget // 1024)
    counted = sampled = 0
    if windows:
        width = budget // windows
        step = size // windows
        for k in range(windows):
            start = k * step
            window = text[start : start + width]
            tokens, cuts = _chunked(enc, window)
            counted += tokens
            sampled += len(window)
            work.below += cuts * CUT_ERROR
            work.above += cuts * CUT_ERROR
        work.left -= sampled
        # a window is counted on its own: its two edges are cuts too
        work.below += 2 * windows * CUT_ERROR
        work.above += 2 * windows * CUT_ERROR
    rest = _utf8_size(text) - _utf8_size_of_windows(text, windows, budget)
    # nothing left to sample with: about four bytes a token, as English runs
    estimate = round(counted * size / sampled) if sampled else max(rest // 4, 1 if text else 0)
    high = counted + rest
    low = counted + rest // _longest_token(enc)
    work.above += max(high - estimate, 0)
    work.below += max(estimate - low, 0)
    return estimate


def _utf8_size_of_windows(text: str, windows: int, budget: int) -> int:
    if not windows:
        return 0
    width, step = budget // windows, len(text) // windows
    return sum(_utf8_size(text[k * step : k * step + width]) for k in range(windows))


_LONGEST: dict[str, int] = {}


def _longest_token(enc: tiktoken.Encoding) -> int:
    """The encoding's longest token, in bytes (a text has at least its bytes over this many tokens)."""
    longest = _LONGEST.get(enc.name)
    if longest is None:
        ranks = getattr(enc, "_mergeable_ranks", None)
        longest = _LONGEST[enc.name] = max(map(len, ranks)) if ranks else 256
    return longest
