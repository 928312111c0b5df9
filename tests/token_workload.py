"""A deterministic mixed workload (prose, code, CJK, JSON, tool schemas) for the token-count proofs."""

from __future__ import annotations

import json
import random
from typing import Any

WORDS = [
    "the",
    "committee",
    "met",
    "on",
    "tuesday",
    "to",
    "review",
    "budget",
    "for",
    "coming",
    "year",
    "after",
    "long",
    "discussion",
    "about",
    "priorities",
    "members",
    "agreed",
    "fund",
    "library",
    "renovation",
    "postpone",
    "new",
    "bus",
    "route",
    "until",
    "spring",
    "weather",
    "report",
    "said",
    "rain",
    "would",
    "continue",
    "through",
    "weekend",
    "while",
    "engineers",
    "measured",
    "bridge",
    "and",
    "found",
    "small",
    "cracks",
    "in",
    "concrete",
]
CJK = "今天天气很好我们去公园散步然后在湖边的咖啡馆喝一杯看看书聊聊天深度求索发布了新模型支持上下文窗口数学代码任务表现出色"
CODE_LINES = (
    "def mean(values):",
    "    total = 0",
    "    for v in values:",
    "        total += v",
    "    return total / len(values)",
    "class Stack:",
    "    def __init__(self):",
    "        self.items = []",
    "    def push(self, item):",
    "        self.items.append(item)",
    "if __name__ == '__main__':",
    "    print(mean([1, 2, 3]))",
)
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Get the current weather for a city",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string", "description": "City name"},
                    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                },
                "required": ["city"],
            },
        },
    }
]


def _prose(rng: random.Random) -> str:
    sentences = []
    for _ in range(rng.randint(3, 8)):
        words = rng.choices(WORDS, k=rng.randint(8, 18))
        sentences.append(" ".join(words).capitalize() + rng.choice([".", ".", "?", "!"]))
    return " ".join(sentences)


def _code(rng: random.Random) -> str:
    start = rng.randrange(len(CODE_LINES))
    n = rng.randint(5, 12)
    return "\n".join(CODE_LINES[(start + i) % len(CODE_LINES)] for i in range(n)) + "\n"


def _cjk(rng: random.Random) -> str:
    return "，".join("".join(rng.choices(CJK, k=rng.randint(6, 14))) for _ in range(rng.randint(3, 7))) + "。"


def _json(rng: random.Random) -> str:
    doc = {
        "id": rng.randint(1, 10_000),
        "name": " ".join(rng.choices(WORDS, k=2)),
        "tags": rng.choices(WORDS, k=rng.randint(1, 5)),
        "score": round(rng.random() * 100, 2),
        "active": rng.random() < 0.5,
        "nested": {"city": rng.choice(WORDS), "count": rng.randint(0, 99)},
    }
    return json.dumps(doc)


KINDS = {"prose": _prose, "code": _code, "cjk": _cjk, "json": _json}


def workload(n: int, seed: int, model: str = "claude-sonnet-4.5") -> list[dict[str, Any]]:
    """``n`` chat request bodies mixing the content kinds in fixed proportions (the same mix for any seed)."""
    rng = random.Random(seed)
    kinds = ["prose", "code", "cjk", "json", "prose", "tools"]
    out = []
    for i in range(n):
        kind = kinds[i % len(kinds)]
        maker = KINDS["prose" if kind == "tools" else kind]
        body: dict[str, Any] = {
            "model": model,
            "messages": [
                {"role": "system", "content": "You are terse."},
                {"role": "user", "content": maker(rng)},
            ],
            "max_tokens": 16,
        }
        if kind == "tools":
            body["tools"] = TOOLS
        out.append(body)
    return out
