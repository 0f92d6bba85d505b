"""The application layer: the use cases every surface (the window, ``relavium``) calls.

A surface builds one :class:`~relavium_desktop.application.app.Application`
at start-up from one :class:`~relavium_desktop.application.paths.AppPaths`
value and asks it for the flows -- a chat turn, a workflow run, a gate
answer, the default model -- passing only what is its own: how to ask the
user (a dialog or a terminal prompt) and how to show what happens.  So the
same action behaves the same wherever it starts, and a rule changed here
reaches every surface at once.  ``ui`` and ``cli`` reach ``host``,
``providers`` and ``store`` only through this package (an import-linter
contract keeps it so).
"""
