"""Sharded batches: a stable split by custom_id, shard files that resume, and a merge that proves exactly-once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from batch_support import write_chat_input
from holyclient._cli import main
from holyclient._cli._batch_merge import run as merge_run
from holyclient.batch._shard import ShardError, merge_shards, parse_shard, shard_of, shard_path
from holyclient.testing import LocalServer

KEY = "sk-holy-shard-test-key"


pytestmark = pytest.mark.usefixtures("api_key_env")


def _input(path: Path, n: int) -> Path:
    body = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 5}
    return write_chat_input(path, n, body=lambda i: body)


def test_the_split_depends_only_on_the_custom_id_and_covers_every_shard() -> None:
    ids = [f"id-{i}" for i in range(1000)]
    shards = [shard_of(i, 4) for i in ids]
    assert shards == [shard_of(i, 4) for i in ids]  # stable
    assert all(150 < shards.count(k) < 350 for k in range(4))
    assert shard_of("id-1", 4) == 2  # the same on every host and Python (SHA-256, not hash())


def test_shard_auto_takes_k_from_the_indexed_job_or_the_slurm_array() -> None:
    assert parse_shard("auto/8", {"JOB_COMPLETION_INDEX": "3"}) == (3, 8)
    assert parse_shard("auto/8", {"SLURM_ARRAY_TASK_ID": "5"}) == (5, 8)
    assert parse_shard("2/3", {}) == (2, 3)
    with pytest.raises(ShardError):
        parse_shard("3/3", {})


def test_sharded_runs_write_their_own_files_resume_and_merge_to_exactly_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _input(tmp_path / "in.jsonl", 60)
    output = tmp_path / "out.jsonl"
    with LocalServer() as server:
        for k in range(3):
            argv = [
                "batch",
                str(source),
                "-o",
                str(output),
                "--shard",
                f"{k}/3",
                "--base-url",
                server.base_url,
            ]
            assert main([*argv, "--progress-every", "0"]) == 0
        sent = server.stats["requests"]
        assert main([*argv, "--progress-every", "0"]) == 0  # the shard again: all done, nothing sent
        assert server.stats["requests"] == sent == 60
    shards = [shard_path(output, k, 3) for k in range(3)]
    assert all(path.exists() for path in shards) and not output.exists()
    for k, path in enumerate(shards):
        assert {shard_of(json.loads(line)["custom_id"], 3) for line in path.read_text().splitlines()} == {k}
    capsys.readouterr()
    assert main(["batch", "merge", str(source), *map(str, shards), "-o", str(output)]) == 0
    assert [json.loads(line)["custom_id"] for line in output.read_text().splitlines()] == [
        f"r{i}" for i in range(60)
    ]
    assert "merged 60 results from 3 shards" in capsys.readouterr().err


def test_a_merge_with_a_shard_missing_writes_nothing(tmp_path: Path) -> None:
    source = _input(tmp_path / "in.jsonl", 20)
    shard = tmp_path / "s0"
    shard.write_text(
        "".join(
            json.dumps({"custom_id": f"r{i}", "response": {"status_code": 200}}) + "\n" for i in range(10)
        )
    )
    report = merge_shards((f"r{i}" for i in range(20)), [shard], tmp_path / "out.jsonl")
    assert not report.ok and report.missing == [f"r{i}" for i in range(10, 20)]
    assert not (tmp_path / "out.jsonl").exists() and source.exists()


def test_batch_merge_is_the_subcommand_unless_merge_is_a_file_given_as_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from holyclient._cli import build_parser

    monkeypatch.chdir(tmp_path)
    parser = build_parser()
    merged = parser.parse_args(["batch", "merge", "in.jsonl", "s0", "-o", "out"])
    assert merged.func is merge_run and merged.command == "batch" and merged.shards == [Path("s0")]
    plain = parser.parse_args(["batch", "in.jsonl", "-o", "merge"])
    assert plain.func is not merge_run
    Path("merge").write_text("")
    assert parser.parse_args(["batch", "merge", "-o", "out.jsonl"]).func is not merge_run
    assert parser.parse_args(["batch", "merge", "in.jsonl", "s0", "-o", "out"]).func is merge_run
    # a real subcommand: no hidden top-level `batch-merge` command any more
    assert "batch-merge" not in parser._subparsers._group_actions[0].choices  # type: ignore[union-attr]


def test_merge_refuses_shard_results_made_from_an_earlier_version_of_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _input(tmp_path / "in.jsonl", 20)
    output = tmp_path / "out.jsonl"
    with LocalServer() as server:
        run = [
            "batch",
            str(source),
            "-o",
            str(output),
            "--base-url",
            server.base_url,
            "--progress-every",
            "0",
        ]
        assert main([*run, "--shard", "0/2"]) == 0
        source.write_text(source.read_text().replace('"hi"', '"hi, edited"'))  # same ids, new bodies
        assert main([*run, "--shard", "1/2"]) == 0
    capsys.readouterr()
    shards = [str(shard_path(output, k, 2)) for k in range(2)]
    assert main(["batch", "merge", str(source), *shards, "-o", str(output)]) == 1
    err = capsys.readouterr().err
    stale = sum(1 for i in range(20) if shard_of(f"r{i}", 2) == 0)
    assert f"{shards[0]}:1: the result for custom_id" in err
    assert f"{stale} results were made from an earlier version" in err
    assert not output.exists()
