"""The GPU table (``_data/gpus.json``): GPUs with prices and power, measured throughput, model shapes.

Every row carries its ``source`` and ``as_of`` date; a user file of the same shape (``--gpus FILE``)
overrides or extends it, as ``--prices`` does for model prices. Throughput rows keep single-stream and
batched serving apart (``mode``): one request at a time and a loaded server differ by an order of
magnitude, and a plan must say which one it assumes.
"""

from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from .._exceptions import HolyClientError

CURRENCIES = ("USD", "CNY")
_SPEC = re.compile(r"^\s*(?P<name>.+?)\s*(?:[x×*]\s*(?P<count>\d+))?\s*$", re.IGNORECASE)


class GpuTableError(HolyClientError, ValueError):
    """A GPU, model or throughput row is unknown, or a GPU file is malformed (the message says which)."""


@dataclass(frozen=True)
class Gpu:
    """One GPU: memory, power draw, purchase and hourly rental price ranges (low, high) per currency."""

    key: str
    name: str
    memory_gb: float
    watts: float
    purchase: Mapping[str, tuple[float, float]]
    hourly: Mapping[str, tuple[float, float]]
    source: str
    as_of: str
    cny_basis: str = ""
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class Throughput:
    """Measured output tokens/s of ``count`` GPUs serving a model (``mode``: single or batched)."""

    gpu: str
    count: int
    model: str
    precision: str
    mode: str
    output_tokens_per_s: float
    source: str
    as_of: str
    engine: str = ""


@dataclass(frozen=True)
class ModelShape:
    """What a model needs in memory: parameters (billions) and the KV-cache shape."""

    key: str
    params_b: float
    layers: int
    kv_heads: int
    head_dim: int
    source: str


@dataclass
class GpuTable:
    gpus: dict[str, Gpu] = field(default_factory=dict)
    throughput: list[Throughput] = field(default_factory=list)
    models: dict[str, ModelShape] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)

    @classmethod
    def load(cls, path: str | None = None) -> GpuTable:
        """The built-in table, then ``path`` (if given) merged over it.

        Raises:
            GpuTableError: the file cannot be read or a row has the wrong shape.
        """
        table = cls()
        text = resources.files("holyclient").joinpath("_data/gpus.json").read_text(encoding="utf-8")
        table.merge(json.loads(text), "gpus.json")
        if path is not None:
            try:
                data = json.loads(Path(path).read_text(encoding="utf-8-sig"))
            except FileNotFoundError:
                raise GpuTableError(f"{path}: cannot open: No such file") from None
            except (OSError, UnicodeDecodeError, RecursionError) as exc:
                raise GpuTableError(f"{path}: cannot read: {exc}") from None
            except json.JSONDecodeError as exc:
                raise GpuTableError(f"{path}:{exc.lineno}: not JSON: {exc.msg}") from None
            table.merge(data, path)
        return table

    def merge(self, data: Any, origin: str) -> None:
        if not isinstance(data, Mapping):
            raise GpuTableError(f"{origin}: expected an object with gpus, throughput and/or models")
        for key, row in _section(data, "gpus", origin).items():
            self._add_gpu(_norm(key), row, f"{origin}: gpus.{key}")
        for i, row in enumerate(data.get("throughput") or []):
            self.throughput.insert(0, _throughput(row, f"{origin}: throughput[{i}]"))  # user rows first
        for key, row in _section(data, "models", origin).items():
            self._add_model(_norm(key), row, f"{origin}: models.{key}")

    def _add_gpu(self, key: str, row: Any, where: str) -> None:
        if not isinstance(row, Mapping):
            raise GpuTableError(f"{where}: expected an object")
        base = self.gpus.get(key)

        def number(name: str, fallback: float | None) -> float:
            value = row.get(name, fallback)
            if not _positive(value):
                raise GpuTableError(f"{where}: field {name}: expected a number > 0, got {value!r}")
            return float(value)

        def span(name: str, fallback: tuple[float, float] | None) -> tuple[float, float]:
            value = row.get(name, fallback)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                value = (value, value)
            if (
                not isinstance(value, (list, tuple))
                or len(value) != 2
                or not all(_positive(v) for v in value)
                or value[0] > value[1]
            ):
                raise GpuTableError(f"{where}: field {name}: expected [low, high] numbers > 0, got {value!r}")
            return float(value[0]), float(value[1])

        gpu = Gpu(
            key=key,
            name=str(row.get("name", base.name if base else key)),
            memory_gb=number("memory_gb", base.memory_gb if base else None),
            watts=number("watts", base.watts if base else None),
            purchase={
                c: span(f"purchase_{c.lower()}", base.purchase[c] if base else None) for c in CURRENCIES
            },
            hourly={c: span(f"hourly_{c.lower()}", base.hourly[c] if base else None) for c in CURRENCIES},
            source=str(row.get("source", base.source if base else "")),
            as_of=str(row.get("as_of", base.as_of if base else "")),
            cny_basis=str(row.get("cny_basis", base.cny_basis if base else "")),
            aliases=tuple(_norm(a) for a in row.get("aliases", base.aliases if base else ())),
        )
        if not gpu.source or not gpu.as_of:
            raise GpuTableError(
                f"{where}: fields source and as_of: every row says where its figures come from"
            )
        self.gpus[key] = gpu
        for alias in gpu.aliases:
            self.aliases[alias] = key

    def _add_model(self, key: str, row: Any, where: str) -> None:
        if not isinstance(row, Mapping):
            raise GpuTableError(f"{where}: expected an object")
        values = {}
        for name in ("params_b", "layers", "kv_heads", "head_dim"):
            if not _positive(row.get(name)):
                raise GpuTableError(f"{where}: field {name}: expected a number > 0, got {row.get(name)!r}")
            values[name] = row[name]
        self.models[key] = ModelShape(
            key,
            float(values["params_b"]),
            int(values["layers"]),
            int(values["kv_heads"]),
            int(values["head_dim"]),
            str(row.get("source", "")),
        )
        for alias in row.get("aliases", ()):
            self.aliases[_norm(alias)] = key

    def gpu(self, name: str) -> Gpu:
        """A GPU by name or alias (``A100 80GB``, ``a100-80gb``, ``nvidia-h100``).

        Raises:
            GpuTableError: unknown; the message lists the known GPUs.
        """
        key = _norm(name)
        key = self.aliases.get(key, key)
        if key in self.gpus:
            return self.gpus[key]
        close = difflib.get_close_matches(key, list(self.gpus) + list(self.aliases), n=3)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        raise GpuTableError(
            f"unknown GPU {name!r}{hint}; known: {', '.join(sorted(self.gpus))} (add one with --gpus FILE)"
        )

    def model(self, name: str) -> ModelShape:
        key = _norm(name)
        key = self.aliases.get(key, key)
        if key in self.models:
            return self.models[key]
        raise GpuTableError(
            f"unknown model shape {name!r}; known: {', '.join(sorted(self.models))} (add one with --gpus FILE)"
        )

    def measured(self, gpu: str, count: int, model: str, mode: str) -> Throughput | None:
        for row in self.throughput:
            if (row.gpu, row.count, row.model, row.mode) == (gpu, count, model, mode):
                return row
        return None


def parse_spec(text: str) -> tuple[str, int]:
    """``"a100-80gb x2"`` -> ``("a100-80gb", 2)``; no ``xN`` means one GPU.

    Raises:
        GpuTableError: no name, or a count of 0.
    """
    match = _SPEC.match(text)
    if match is None or not match["name"].strip():
        raise GpuTableError(f"--self-host: expected 'GPU xN', e.g. 'a100-80gb x2', got {text!r}")
    count = int(match["count"] or 1)
    if count < 1 or count > 4096:
        raise GpuTableError(f"--self-host: GPU count must be within 1..4096, got {count}")
    return match["name"], count


def _norm(name: str) -> str:
    key = re.sub(r"[\s_]+", "-", str(name).strip().lower())
    return key.removeprefix("nvidia-")


def _positive(value: Any) -> bool:
    return (
        isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value > 0
    )


def _section(data: Mapping[str, Any], name: str, origin: str) -> Mapping[str, Any]:
    section = data.get(name) or {}
    if not isinstance(section, Mapping):
        raise GpuTableError(f"{origin}: field {name}: expected an object")
    return section


def _throughput(row: Any, where: str) -> Throughput:
    if not isinstance(row, Mapping):
        raise GpuTableError(f"{where}: expected an object")
    if row.get("mode") not in ("single", "batched"):
        raise GpuTableError(f"{where}: field mode: expected 'single' or 'batched', got {row.get('mode')!r}")
    for name in ("output_tokens_per_s", "count"):
        if not _positive(row.get(name)):
            raise GpuTableError(f"{where}: field {name}: expected a number > 0, got {row.get(name)!r}")
    if not row.get("source") or not row.get("as_of"):
        raise GpuTableError(f"{where}: fields source and as_of: every row says where its figures come from")
    return Throughput(
        gpu=_norm(row.get("gpu", "")),
        count=int(row["count"]),
        model=_norm(row.get("model", "")),
        precision=str(row.get("precision", "bf16")),
        mode=str(row["mode"]),
        output_tokens_per_s=float(row["output_tokens_per_s"]),
        source=str(row["source"]),
        as_of=str(row["as_of"]),
        engine=str(row.get("engine", "")),
    )


def read_vllm_result(path: str) -> Throughput:
    """Throughput from ``vllm bench serve --save-result`` JSON (``output_throughput``, tokens/s).

    Raises:
        GpuTableError: unreadable, or no positive ``output_throughput``.
    """
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8-sig"))
    except FileNotFoundError:
        raise GpuTableError(f"{path}: cannot open: No such file") from None
    except (OSError, UnicodeDecodeError, RecursionError) as exc:
        raise GpuTableError(f"{path}: cannot read: {exc}") from None
    except json.JSONDecodeError as exc:
        raise GpuTableError(f"{path}:{exc.lineno}: not JSON: {exc.msg}") from None
    value = data.get("output_throughput") if isinstance(data, Mapping) else None
    if not isinstance(value, (int, float)) or not _positive(value):
        raise GpuTableError(
            f"{path}: field output_throughput: expected tokens/s > 0 (a vllm bench serve --save-result file), "
            f"got {value!r}"
        )
    concurrency = data.get("max_concurrency")
    return Throughput(
        gpu="",
        count=0,
        model=str(data.get("model_id") or ""),
        precision="",
        mode="single" if concurrency == 1 else "batched",
        output_tokens_per_s=float(value),
        source=f"{path} (vllm bench serve, max_concurrency {concurrency})",
        as_of=str(data.get("date") or ""),
        engine="vLLM",
    )
