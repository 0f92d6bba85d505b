"""Engine tool layer: ToolDef, registry + dispatch pipeline, guardrails."""
