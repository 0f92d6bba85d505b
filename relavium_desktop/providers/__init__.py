"""LLM providers: the provider store (providers.yaml), wire clients, model lists and checks.

Only constants live here, so a surface can name the provider file without
loading httpx, pydantic and ruamel (the window checks it before first paint).
"""

PROVIDERS_FILE = "providers.yaml"  # under $RELAVIUM_HOME: the one provider list every surface reads
