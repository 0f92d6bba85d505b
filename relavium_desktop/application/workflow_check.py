"""What a workflow file must pass before it runs, beyond the engine's loader, and what is only worth a warning.

``relavium validate`` and ``relavium run`` (before it starts anything) ask
the same two questions here: are the workflow's MCP servers -- its own and
those its agents' files declare -- one valid block by mcp.yaml's rules (a
refusal), and does any node name a model no catalog knows (price table,
cached live lists: a warning, never a refusal).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from relavium_desktop.application.paths import AppPaths
from relavium_desktop.host.mcp.config import McpConfigError

if TYPE_CHECKING:
    from relavium_desktop.engine.workflow.loader import LoadedWorkflow

__all__ = ["McpConfigError", "check_mcp_servers", "unknown_model_warnings"]


def check_mcp_servers(workflow: LoadedWorkflow) -> None:
    """Refuse, with ``McpConfigError`` naming the entry and field, a server block the run could not start.

    A server name declared twice, differently (by the workflow and an agent
    file, or by two agent files), is refused too, naming both places.
    """
    from relavium_desktop.application.mcp import workflow_mcp_block

    workflow_mcp_block(workflow)


def unknown_model_warnings(
    workflow: LoadedWorkflow, paths: AppPaths, providers_file: Path | None
) -> list[str]:
    """One warning per model no catalog knows; the provider list is ``providers_file`` or the data folder's.

    An unreadable provider list gives no warnings here: the run reports that
    file's error itself when it needs a provider.
    """
    from relavium_desktop.application.providers import provider_entries
    from relavium_desktop.providers.config import ProviderConfigError
    from relavium_desktop.providers.model_check import unknown_model_warnings as warnings_for

    try:
        entries = provider_entries(paths.home, settings_file=providers_file)
    except ProviderConfigError:
        entries = {}
    return warnings_for(workflow, entries, paths.home)
