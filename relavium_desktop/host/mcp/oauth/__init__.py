"""OAuth sign-in for remote (HTTP) MCP servers, per the MCP authorization spec.

- :mod:`.store` keeps a server's tokens and client registration in the OS keyring;
- :mod:`.provider` is the SDK's ``OAuthClientProvider`` with what it lacks here
  (refresh on 401, refresh ahead of expiry, bounded step-up, the signed-in
  account, refusals that say why);
- :mod:`.loopback` is the one-request redirect listener on 127.0.0.1;
- :mod:`.browser` opens the authorization page the standard way.

Every request the flow makes (discovery, registration, token) goes through the
server's own SSRF-guarded client, so it carries that server's ``allowLocal``
and nothing more.
"""
