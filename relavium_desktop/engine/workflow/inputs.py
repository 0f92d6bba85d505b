"""Input admission: defaults, required, types and ``validation`` rules.

A string default may be a template over the inputs declared before it
(``default: '{{ inputs.topic }} notes'``), rendered when the input is not
given; validation refuses any other reference (``ctx`` is built from the
inputs, and ``run`` does not exist yet) and the ``read_file`` filter.

The engine is strict (a ``"3"`` is not a number); a surface whose transport
has only strings (the CLI) coerces first with :func:`coerce_text_inputs`.
Secret inputs carry a ``secret:NAME`` reference the host resolves; events and
outputs only ever see the masked form.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from relavium_desktop.engine.workflow.errors import InputError
from relavium_desktop.engine.workflow.models import InputDecl

_FORMATS = {
    "email": re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$"),
    "uri": re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:\S+$"),
    "uuid": re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"),
    "date-time": re.compile(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:\d{2})?$"),
}


def coerce_text_inputs(decls: list[InputDecl], raw: Mapping[str, str]) -> dict[str, Any]:
    """Turn ``--input k=v`` strings into each declared type (unknown keys pass through)."""
    types = {d.name: d.type for d in decls}
    out: dict[str, Any] = {}
    for key, text in raw.items():
        kind = types.get(key)
        if kind == "number":
            try:
                num = float(text)
            except ValueError:
                raise InputError(f"input {key!r} must be a number") from None
            out[key] = int(num) if num.is_integer() and "." not in text and "e" not in text.lower() else num
        elif kind == "boolean":
            if text.lower() not in ("true", "false"):
                raise InputError(f"input {key!r} must be true or false")
            out[key] = text.lower() == "true"
        else:
            out[key] = text
    return out


def _check(decl: InputDecl, value: Any) -> None:
    name = decl.name
    if decl.type == "number":
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise InputError(f"input {name!r} must be a finite number")
    elif decl.type == "boolean":
        if not isinstance(value, bool):
            raise InputError(f"input {name!r} must be a boolean")
    elif not isinstance(value, str):
        raise InputError(f"input {name!r} must be a string")
    if decl.type == "secret" and not value.startswith("secret:"):
        raise InputError(f"input {name!r} is a secret: pass a reference such as secret:NAME, never the value")
    v = decl.validation
    if v is None:
        return
    if v.enum is not None and not any(type(e) is type(value) and e == value for e in v.enum):
        raise InputError(f"input {name!r} must be one of the declared enum values")
    if isinstance(value, int | float) and not isinstance(value, bool):
        if v.min is not None and value < v.min:
            raise InputError(f"input {name!r} must be >= {v.min:g}")
        if v.max is not None and value > v.max:
            raise InputError(f"input {name!r} must be <= {v.max:g}")
    if isinstance(value, str):
        if v.min_length is not None and len(value) < v.min_length:
            raise InputError(f"input {name!r} must be at least {v.min_length} characters")
        if v.max_length is not None and len(value) > v.max_length:
            raise InputError(f"input {name!r} must be at most {v.max_length} characters")
        if v.pattern is not None and not re.fullmatch(v.pattern, value):
            raise InputError(f"input {name!r} does not match its pattern")
        if v.format is not None and not _FORMATS[v.format].match(value):
            raise InputError(f"input {name!r} is not a valid {v.format}")


def admit_inputs(decls: list[InputDecl], given: Mapping[str, Any]) -> dict[str, Any]:
    """Validated run inputs; raises :class:`InputError` naming the first bad input."""
    known = {d.name for d in decls}
    unknown = sorted(set(given) - known)
    if unknown:
        raise InputError(f"unknown input(s): {', '.join(unknown)}; declared: {', '.join(sorted(known)) or 'none'}")
    out: dict[str, Any] = {}
    for decl in decls:
        if decl.name in given:
            value = given[decl.name]
        elif decl.default is not None:
            value = _rendered_default(decl.default, out, known)
        elif decl.is_required:
            raise InputError(f"missing required input {decl.name!r}")
        else:
            continue
        _check(decl, value)
        out[decl.name] = value
    return out


def _rendered_default(default: Any, admitted: dict[str, Any], declared: set[str]) -> Any:
    """A template default rendered over the inputs admitted so far (validation has checked its references)."""
    from relavium_desktop.engine.workflow.templates import Scope, render

    if not isinstance(default, str) or "{{" not in default:
        return default
    scope = Scope(run_id="", inputs=dict(admitted), declared_inputs=frozenset(declared), allow_outputs=False)
    # Without a file reader nothing in a template suspends, so the coroutine finishes on its first step.
    step = render(default, scope, None)
    try:
        step.send(None)
    except StopIteration as done:
        return done.value
    step.close()
    raise InputError("an input default template could not be rendered")


def default_template_problem(decl: InputDecl, earlier: list[str]) -> str | None:
    """Why ``decl``'s template default cannot be rendered at admission (None when it can, or is no template)."""
    from relavium_desktop.engine.workflow.errors import TemplateError
    from relavium_desktop.engine.workflow.templates import sites

    if not isinstance(decl.default, str) or "{{" not in decl.default:
        return None
    try:
        found = sites(decl.default)
    except TemplateError as exc:
        return f"input {decl.name!r} default: {exc}"
    for site in found:
        head = site.ref[0]
        if head != "inputs":
            return (f"input {decl.name!r} default reads {site.source.strip()}: a default template may read only "
                    "the inputs declared before it (ctx is built from the inputs, run does not exist yet)")
        if len(site.ref) < 2 or str(site.ref[1]) not in earlier:
            return (f"input {decl.name!r} default reads {site.source.strip()}, which is not an input declared "
                    f"before {decl.name!r}")
        if any(f.name == "read_file" for f in site.filters):
            return f"input {decl.name!r} default uses the read_file filter, which an input default cannot use"
    return None


def masked_inputs(decls: list[InputDecl], inputs: Mapping[str, Any]) -> dict[str, Any]:
    """Inputs as events/outputs may show them: a secret becomes ``{secret: true, ref}``."""
    secret = {d.name for d in decls if d.type == "secret"}
    return {k: ({"secret": True, "ref": v} if k in secret else v) for k, v in inputs.items()}
