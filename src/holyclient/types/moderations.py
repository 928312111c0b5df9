"""Moderations (``client.moderations.create``).

The API names categories with slashes and dashes (``"self-harm/intent"``); as in openai, the
attributes use underscores (``categories.self_harm_intent``) and ``to_dict()`` gives the wire names back.
"""

from __future__ import annotations

from pydantic import ConfigDict, Field

from ._model import BaseModel


class _ByAlias(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True, protected_namespaces=())


class Categories(_ByAlias):
    harassment: bool = False
    harassment_threatening: bool = Field(False, alias="harassment/threatening")
    hate: bool = False
    hate_threatening: bool = Field(False, alias="hate/threatening")
    illicit: bool | None = None
    illicit_violent: bool | None = Field(None, alias="illicit/violent")
    self_harm: bool = Field(False, alias="self-harm")
    self_harm_instructions: bool = Field(False, alias="self-harm/instructions")
    self_harm_intent: bool = Field(False, alias="self-harm/intent")
    sexual: bool = False
    sexual_minors: bool = Field(False, alias="sexual/minors")
    violence: bool = False
    violence_graphic: bool = Field(False, alias="violence/graphic")


class CategoryScores(_ByAlias):
    harassment: float = 0.0
    harassment_threatening: float = Field(0.0, alias="harassment/threatening")
    hate: float = 0.0
    hate_threatening: float = Field(0.0, alias="hate/threatening")
    illicit: float = 0.0
    illicit_violent: float = Field(0.0, alias="illicit/violent")
    self_harm: float = Field(0.0, alias="self-harm")
    self_harm_instructions: float = Field(0.0, alias="self-harm/instructions")
    self_harm_intent: float = Field(0.0, alias="self-harm/intent")
    sexual: float = 0.0
    sexual_minors: float = Field(0.0, alias="sexual/minors")
    violence: float = 0.0
    violence_graphic: float = Field(0.0, alias="violence/graphic")


class Moderation(BaseModel):
    flagged: bool
    categories: Categories
    category_scores: CategoryScores
    category_applied_input_types: dict[str, list[str]] | None = None


class ModerationCreateResponse(BaseModel):
    id: str
    model: str
    results: list[Moderation]
