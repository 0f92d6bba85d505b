"""Workflows shared by the Workflows view tests: no LLM, real engine, real files."""

from __future__ import annotations

RUN_TIMEOUT_MS = 30_000

BRANCHY = """\
schema_version: '1.0'
workflow:
  id: branchy
  name: Branch and write
  inputs:
    - { name: n, type: number }
    - { name: word, type: string, default: hello }
  nodes:
    - { id: start, type: input }
    - { id: check, type: condition, expression: 'inputs.n >= 10',
        branches: [{ when: true, target_node: hi }, { when: false, target_node: lo }] }
    - { id: hi, type: transform, transform: '({ label: "high" })' }
    - { id: lo, type: transform, transform: '({ label: "low", word: inputs.word })' }
    - id: save
      type: tool
      tool_config:
        tool_name: write_file
        parameters: { createParents: true }
        input_mapping: { path: 'out/result.txt', content: '{{ inputs.word }}-{{ inputs.n }}' }
    - { id: out, type: output }
  edges:
    - { from: start, to: check }
    - { from: hi, to: save }
    - { from: lo, to: save }
    - { from: save, to: out }
"""
