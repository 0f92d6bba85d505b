from relavium_desktop.cli import entry

entry()
