"""The browser's own dialogs in tests: "Leave site?" asked by a page that would lose a link."""

from __future__ import annotations

from playwright.sync_api import Dialog, Page

__all__ = ["stay_when_asked"]


def stay_when_asked(page: Page) -> list[str]:
    """Answer every dialog of ``page`` "stay" (dismiss it); the kinds asked, in order (the
    list grows as the page asks)."""
    asked: list[str] = []

    def stay(dialog: Dialog) -> None:
        asked.append(dialog.type)
        dialog.dismiss()

    page.on("dialog", stay)
    return asked
