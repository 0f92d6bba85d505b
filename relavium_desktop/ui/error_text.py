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


def error_text(error: BaseException | str | object, *, limit: int = DEFAULT_LIMIT, mode: Mode = "line") -> str:
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
