"""``python -m cli.i18n extract|update|compile|check|all`` (see ``tool``)."""

import sys

from .tool import main

sys.exit(main())
