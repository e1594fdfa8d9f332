"""Tab completion of typed commands in the full-screen console.

Apart from :mod:`cli.commands` so that the line mode, which parses the same commands,
starts without importing prompt_toolkit."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from .commands import VERBS, Context, command_of, numbered
from .i18n import pgettext
from .words import card_name


class CommandCompleter(Completer):
    """Completes verbs, card numbers (with the card's name) and opponents' names."""

    def __init__(self, context: Callable[[], Context | None]) -> None:
        self.context = context

    def get_completions(self, document: Document,
                        complete_event: CompleteEvent) -> Iterable[Completion]:
        text = document.text_before_cursor
        words = text.split()
        if text.endswith(" ") or not words:
            words.append("")
        current = words[-1]
        ctx = self.context()
        if len(words) == 1:
            for v in VERBS:
                if v.startswith(current.lower()):
                    yield Completion(v, -len(current))
            return
        # the command as typed in the player's language too ("jouer 3 sur bo"), as the
        # command line takes it: "jouer 3 sur " completed nothing, "play 3 on " the names
        verb = command_of(words[0])
        cards = numbered(ctx) if ctx else ()
        if verb in ("play", "discard", "why") and len(words) == 2:
            for i, c in enumerate(cards, 1):
                if str(i).startswith(current):
                    yield Completion(str(i), -len(current),
                                     display_meta=card_name(c, ctx.lang if ctx else "en"))
            return
        if verb == "play" and len(words) == 3:
            # the word before a name in the language the command was typed in
            on = "on" if words[0].lower() in VERBS or len(words[0]) == 1 else \
                pgettext("command", "on").strip() or "on"
            if on.lower().startswith(current.lower()):
                yield Completion(on, -len(current))
            return
        if verb == "play" and len(words) == 4 and ctx is not None:
            mine = ctx.view.seating.side_of(ctx.seat)
            for s, n in enumerate(ctx.names):
                if ctx.view.seating.side_of(s) != mine and n.lower().startswith(current.lower()):
                    yield Completion(n, -len(current))
            return
        if verb == "draw" and len(words) == 2:
            for w in ("pile", "discard"):
                if w.startswith(current.lower()):
                    yield Completion(w, -len(current))
            return
        if verb == "extend" and len(words) == 2:
            for w in ("yes", "no"):
                if w.startswith(current.lower()):
                    yield Completion(w, -len(current))
