"""``python -m cli.i18n extract|update|compile|check|all`` (see ``_tool``)."""

import sys

from ._tool import main

sys.exit(main())
