"""MkDocs hooks: add the reference pages generated from the code (``tools/docs_reference.py``).

The pages exist only in the built site, never in ``docs/``, so they cannot go stale.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

__all__ = ["on_files"]

_ROOT = Path(__file__).resolve().parent.parent


def on_files(files: Any, config: Any) -> Any:
    """Add every generated page to the site's files before the nav is built."""
    from mkdocs.structure.files import File

    if str(_ROOT) not in sys.path:  # the code documented is the checkout's, installed or not
        sys.path.insert(0, str(_ROOT))
    from tools.docs_reference import generated_pages

    for path, text in generated_pages().items():
        files.append(File.generated(config, path, content=text))
    return files
