"""The thirty-fourth first-time-player pass: what the thirty-third left, and what a new
player met after it.

1. French `verify` of one's own game said "(accord de vous)" and "(accord d'Ann et
   vous)" after a bot's takeover: "you" was put where the names go. The agreement is a
   phrase of its own now ("(avec votre accord)", "(avec votre accord et celui d'Ann)");
   Swedish said "godkänt av du" and Afrikaans "ingestem deur jy" (the subject's "you"
   after "by"), and French's "par Ann et Cy, qui a dit que…" (one verb for two); Swedish
   said "spelades Cy plats" where its other lines say "Cys plats".
"""

from __future__ import annotations

from cli_helpers import unfold

from cli import i18n

# ----- 1. one's own agreement in verify, in every language -----


def _report(**kw: object):  # type: ignore[no-untyped-def]
    from p2p.audit import GameReport
    from p2p.transcript.file import VerifyReport
    return GameReport(ok=True, crypto=VerifyReport(entries_checked=40), complete=True,
                      names=("Ben", "Ann", "Cy"), totals=(100, 200, 300), winner=2,
                      hands=[{"hand": 0, "scores": (0, 0, 0), "first_seat": 0}], **kw)


def _said(report: object, me: int | None = 0) -> str:
    from cli.words import verify_lines
    return unfold("\n".join(verify_lines(report, me=me)))  # type: ignore[arg-type]


ALONE = _report(takeovers=[{"hand": 0, "seat": 2, "runner": 0, "signers": [0]}])
WITH_ANN = _report(takeovers=[{"hand": 0, "seat": 2, "runner": 0, "signers": [1, 0]}])
OTHERS = _report(takeovers=[{"hand": 0, "seat": 0, "runner": 1, "signers": [1, 2]}],
                 ended_by_agreement={"hand": 2, "seat": 0, "signers": [1, 2]})


def test_french_verify_says_ones_own_agreement_in_french() -> None:
    with i18n.using("fr"):
        alone, with_ann, others = _said(ALONE), _said(WITH_ANN), _said(OTHERS)
        ended = _said(_report(ended_by_agreement={"hand": 2, "seat": 2,
                                                  "signers": [1, 0]}))
    assert "accord de vous" not in alone and "(avec votre accord)" in alone, alone
    assert "(avec votre accord et celui d'Ann)" in with_ann, with_ann
    assert "(avec l'accord d'Ann et Cy)" in others, others
    # one verb said of two players: "par Ann et vous, qui a dit" is no French
    assert "qui a dit" not in ended and "par Ann et vous, au motif que Cy" in ended, ended


def test_every_language_says_ones_own_agreement_after_by() -> None:
    expected = {"sv": ("godkänt av dig", "godkänt av Ann och dig"),
                "af": ("ingestem deur jou", "ingestem deur Ann en jou")}
    for lang, (alone, with_ann) in expected.items():
        with i18n.using(lang):
            said = _said(ALONE), _said(WITH_ANN)
        assert f"({alone})" in said[0], said[0]
        assert f"({with_ann})" in said[1], said[1]
        assert " du)" not in said[0] + said[1] and " jy)" not in said[0] + said[1]
    with i18n.using("sv"):
        assert "spelades Cys plats" in _said(ALONE), _said(ALONE)
    for lang in ("vi", "ug", "fr", "sv", "af"):
        with i18n.using(lang):
            for report in (ALONE, WITH_ANN, OTHERS):
                text = _said(report)
                assert "agreed" not in text and "%(" not in text, (lang, text)
    with i18n.using("en"):
        assert "(agreed by you)" in _said(ALONE)
        assert "(agreed by Ann and you)" in _said(WITH_ANN)
        assert "(agreed by Ann and Cy)" in _said(OTHERS)
