"""placeholder"""
from ._bot_heuristic import HeuristicBot as SearchBot  # noqa
