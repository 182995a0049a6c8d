"""The post-game report as a document: charts (matplotlib, SVG) and one self-contained HTML page.

Presentation of :mod:`poolhall.projections.analytics`, shared by the two places a report is made:
the CLI (``poolhall report --html``) and the server, which serves the same page to the browser
table (:mod:`poolhall.server.report_page`). It sits beside ``clients`` and ``server`` and imports
only ``events`` and ``projections`` (and matplotlib), so neither of them depends on the other.
"""
