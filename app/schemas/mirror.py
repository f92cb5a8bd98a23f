"""Models whose fields have the names of a solver or model object's attributes."""

from __future__ import annotations

from typing import Self

from pydantic import BaseModel


class Mirror(BaseModel):
    """A model read straight off an object with the same attribute names (a solver dataclass,
    a stored document), so no field is copied by hand."""

    @classmethod
    def of(cls, source: object) -> Self:
        return cls.model_validate(source, from_attributes=True)
