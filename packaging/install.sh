#!/usr/bin/env bash
# Install the Relavium bundle unpacked next to this script for the current user:
# the folder goes to ~/.local/opt/relavium (replacing an older one), the two
# commands are linked into ~/.local/bin, and the desktop entry (menu item,
# icon, workflow file type) is installed by the app itself.  No root needed.
#
#   ./install.sh            PREFIX defaults to ~/.local (PREFIX=/some/where ./install.sh)
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
PREFIX="${PREFIX:-$HOME/.local}"
TARGET="$PREFIX/opt/relavium"
BIN="$PREFIX/bin"

if [ ! -x "$HERE/relavium/relavium-desktop" ]; then
  echo "install.sh: no relavium/ folder next to this script; unpack the whole archive first" >&2
  exit 2
fi
mkdir -p "$PREFIX/opt" "$BIN"
# Copy beside the old install, then swap, so a failed copy leaves the old one working.
rm -rf "$TARGET.new"
cp -a "$HERE/relavium" "$TARGET.new"
rm -rf "$TARGET"
mv "$TARGET.new" "$TARGET"
ln -sfn "$TARGET/relavium" "$BIN/relavium"
ln -sfn "$TARGET/relavium-desktop" "$BIN/relavium-desktop"
echo "installed: $TARGET"
echo "commands: $BIN/relavium, $BIN/relavium-desktop"

# The flag may be missing in an older build: that build would open its window
# instead of exiting, so the call runs on the offscreen platform (no display
# needed for file work) and is bounded.  Either way the commands work; only the
# menu item waits.
status=0
out="$(QT_QPA_PLATFORM=offscreen timeout 30 "$TARGET/relavium-desktop" --install-desktop-entry 2>&1)" || status=$?
if [ "$status" -eq 0 ]; then
  echo "desktop entry: installed"
else
  reason="$(printf '%s\n' "$out" | grep -v '^[[:space:]]*$' | tail -n 1 || true)"
  [ "$status" -eq 124 ] && reason="relavium-desktop did not finish in 30 s; this build may not know --install-desktop-entry"
  echo "desktop entry: skipped (${reason:-exit status $status}); run relavium-desktop --install-desktop-entry later"
fi
case ":$PATH:" in
  *":$BIN:"*) ;;
  *) echo "note: $BIN is not on your PATH; add it to use the commands by name" ;;
esac
