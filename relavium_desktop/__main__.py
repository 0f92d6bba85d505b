import sys

from relavium_desktop.app import main

sys.exit(main())
