"""DSPy: the recipe of docs/frameworks/dspy.md (a small ``dspy.BaseLM`` over ``as_openai()``)."""

from __future__ import annotations

from typing import Any

import dspy
import openai
from pydantic import BaseModel


def versions() -> dict[str, str]:
    return {"openai": openai.__version__, "dspy": dspy.__version__}


# recipe
class HolyLM(dspy.BaseLM):
    """DSPy's calls through holyclient: its budget, retries, usage and spans."""

    def __init__(self, client, aclient, model, **kwargs):
        super().__init__(model=model, num_retries=0, cache=False, **kwargs)  # holyclient retries
        self.sync, self.asynchronous = client.as_openai(), aclient.as_openai()

    @property
    def supported_params(self):
        return {"response_format"}

    @property
    def supports_response_schema(self):
        return True  # DSPy's JSON adapter then asks for a JSON schema (holyclient adapts it per model)

    def _arguments(self, prompt, messages, kwargs):
        given = {key: value for key, value in {**self.kwargs, **kwargs}.items() if value is not None}
        return {"model": self.model, "messages": messages or [{"role": "user", "content": prompt}], **given}

    @staticmethod
    def _method(chat, arguments):
        # a pydantic response_format is parse()'s, as in openai
        return chat.parse if isinstance(arguments.get("response_format"), type) else chat.create

    def forward(self, prompt=None, messages=None, **kwargs):
        arguments = self._arguments(prompt, messages, kwargs)
        return self._method(self.sync.chat.completions, arguments)(**arguments)

    async def aforward(self, prompt=None, messages=None, **kwargs):
        arguments = self._arguments(prompt, messages, kwargs)
        return await self._method(self.asynchronous.chat.completions, arguments)(**arguments)


# end recipe


def wire(client: Any, aclient: Any) -> Any:
    lm = HolyLM(client, aclient, "gpt-4.1")
    dspy.configure(lm=lm)
    return lm


def call(lm: Any) -> str:
    return str(lm("hello")[0])


class Person(BaseModel):
    name: str


class Extract(dspy.Signature):
    """Extract the person the text names."""

    text: str = dspy.InputField()
    person: Person = dspy.OutputField()


def structured(lm: Any) -> Any:
    with dspy.context(lm=lm):
        return dspy.Predict(Extract)(text="a person called Ada").person.model_dump()


def structured_on(client: Any, aclient: Any, model: str) -> Any:
    """A typed ``dspy.Predict`` (DSPy's chat adapter, then its JSON adapter, which asks for a JSON schema),
    on ``model``, sync (``forward``) and async (``aforward``). (No ``stream``: DSPy streams through its own
    engines, never a custom ``BaseLM``.)"""
    import asyncio

    with dspy.context(lm=HolyLM(client, aclient, model)):
        predict = dspy.Predict(Extract)
        sync = predict(text="a person called Ada").person.model_dump()
        asynchronous = asyncio.run(predict.acall(text="a person called Ada")).person.model_dump()
    return {"sync": sync, "async": asynchronous}
