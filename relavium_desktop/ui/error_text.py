"""The one way an error's text reaches the screen: masked, clipped, shown safely.

An exception's text is written by whoever raised it: a YAML parser quoting
the line of ``providers.yaml`` it choked on (a pasted key included), the
system keyring echoing what it was given, an MCP server's error, a
provider's refusal.  Every settings page, dialog and status line that puts
such text in front of a person goes through :func:`error_text`, so the
masking rule is applied once, at the boundary, and a new banner cannot
forget it (``tests/ui/test_error_text_choke_point.py`` fails when UI code
shows an exception's text any other way).

The order matters: mask first (a cut must never halve a key into a piece no
recogniser sees), then clip, then the display rule
(:mod:`relavium_desktop.engine.display_text`), which turns control, bidi and
invisible characters into visible markers.  Masking covers the recognised
key families, labelled values and every secret this process resolved by
value (:func:`relavium_desktop.engine.tools.masking.remember_secret`).
"""

from __future__ import annotations

from relavium_desktop.engine.display_text import Mode, show

# Long enough for a parser's message with its line and column, or the keyring's setup help;
# a banner is not a log, and a server's runaway error text stops here.
DEFAULT_LIMIT = 1000


def error_text(
    error: BaseException | str | object, *, limit: int = DEFAULT_LIMIT, mode: Mode = "line"
) -> str:
    """The text a person sees for ``error`` (an exception or a message): masked, clipped, displayable.

    An exception with an empty message is named by its type, so a banner is
    never blank.  ``mode="block"`` keeps line breaks (a multi-line parser
    message in a text view); the default shows one line with breaks marked.
    """
    # Imported here: the masking policy is not needed before the first error (first paint stays light).
    from relavium_desktop.engine.tools.masking import clip, mask_text

    if isinstance(error, BaseException):
        raw = str(error) or type(error).__name__
    else:
        raw = str(error)
    return show(clip(mask_text(raw), limit), mode).text


def first_line(error: BaseException | str | object, *, limit: int = DEFAULT_LIMIT) -> str:
    """Only the first line of ``error``'s text, masked on the whole text first (a key may span lines)."""
    from relavium_desktop.engine.tools.masking import clip, mask_text

    raw = (str(error) or type(error).__name__) if isinstance(error, BaseException) else str(error)
    masked = mask_text(raw)
    head = masked.splitlines()[0] if masked.strip() else masked
    return show(clip(head, limit), "line").text


# Every error code of the fixed taxonomy (ARCHITECTURE.md) and the provider codes, as a sentence a
# person can act on.  The code itself belongs only in an expanded detail (see :func:`code_detail`).
CODE_WORDS: dict[str, str] = {
    "unknown_tool": "The agent asked for a tool that does not exist.",
    "invalid_args": "The agent asked for something in a form the tool does not accept.",
    "tool_denied": "A tool call was refused, so the agent stopped.",
    "tool_unavailable": "That tool is not available on this computer.",
    "tool_failed": "A tool call failed while it ran.",
    "cancelled": "Stopped before it finished.",
    "provider_auth": "The provider rejected the API key, or none is set.",
    "provider_rate_limit": "The provider is rate-limiting requests. Wait a moment and try again.",
    "provider_unavailable": "The provider could not be reached or is having trouble.",
    "content_filter": "The provider refused to answer this message.",
    "validation": "The provider settings are not usable as they are.",
    "turn_limit": "The agent used all its tool turns without finishing.",
}
# Why a tool call was refused (``tool_denied``'s reason) or its arguments rejected, in words.
REASON_WORDS: dict[str, str] = {
    "not_granted": "The tool is not switched on here.",
    "provider_executed": "The provider runs this tool itself; Relavium does not run it.",
    "command_not_allowed": "That command is not on the list of allowed commands.",
    "commands_disabled": "Running commands is switched off.",
    "domain_not_allowed": "That web address is not on the list of allowed sites.",
    "egress_disabled": "Network access is switched off.",
    "https_required": "Only secure (https) addresses are allowed.",
    "ssrf_blocked": "Addresses on this computer or the local network are blocked.",
    "outside_scope": "That path is outside the folders the agent may use.",
    "protected_path": "That path is protected.",
    "unc_path": "Network share paths are not allowed.",
    "gate_required": "This needs a person's approval first.",
    "user_rejected": "You said no.",
    "no_approval_hook": "Nobody was there to ask, so it was refused.",
    "media_scope_denied": "That image or file is outside what the agent may read.",
    "env_not_allowed": "That environment variable is not allowed.",
    "too_large": "It is larger than the size limit.",
    "schema": "Some of its values are missing or of the wrong kind.",
}


def error_words(code: str, reason: str | None = None) -> str:
    """The sentence a person reads for an error ``code`` (and its ``reason``): never the code itself."""
    head = CODE_WORDS.get(code, "Something went wrong.")
    tail = REASON_WORDS.get(reason or "", "")
    return f"{head} {tail}".strip()


def code_detail(code: str, reason: str | None = None) -> str:
    """The code and reason, for an expanded detail only ("tool_denied (not_granted)")."""
    return f"{code} ({reason})" if reason else code
