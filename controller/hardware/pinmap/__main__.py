"""`python -m controller.hardware.pinmap`: see command.py."""

import sys

from controller.hardware.pinmap.command import main

sys.exit(main())
