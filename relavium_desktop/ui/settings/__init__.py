"""Settings: one page per module, assembled into tabs by :mod:`.view`."""
