"""The JSON object type every layer passes around, defined once."""

from __future__ import annotations

from typing import Any

JsonDict = dict[str, Any]
