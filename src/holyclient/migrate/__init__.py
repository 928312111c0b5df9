"""``holyclient migrate``: move a code base from the OpenAI API to https://api.holysheep.ai/v1.

Positions come from the stdlib parser (``ast``/``tokenize``) and a small JSON/JS lexer; edits are
spliced into the original bytes, so everything outside an edit stays byte for byte. Modules:

* ``_walk``: which files to read (git-aware, skips vendored trees, symlinks, binaries) + prefilter
* ``_rules``: URL and ``OPENAI_API_KEY`` rules shared by all file kinds
* ``_python`` / ``_pynames`` / ``_pysource``: Python strings, client constructors, openai<1.0 config
* ``_notebook``: Jupyter cell sources edited inside the JSON text
* ``_js``: JS/TS constructors; ``_text``: every other text file
* ``_edits``: splicing and char->byte mapping; ``_writer``: atomic writes, diffs, backups; ``_guard``: only
  files git can restore are written
* the proof, separate from the rewriters: ``_provenance`` (sources, classes, the verdict), ``_follow``
  (following a source through the run), ``_spellings`` (every client spelling's keywords and defaults),
  ``_pysinks`` / ``_pyflow`` / ``_pyscopes`` / ``_pyraw`` (Python), ``_jsfacts``, ``_filefacts`` /
  ``_yamlish`` (env, config and text files), ``_facts`` and ``_world`` (the run), ``_sinkcheck`` /
  ``_runwide`` / ``_proof`` (the checks and the loop that takes back what the run cannot prove),
  ``_settle`` (between the rewriters and the report)
* ``_report``: result dataclasses; ``_runner``: one run

Nothing here imports the HTTP client.
"""

from __future__ import annotations

from ._guard import DirtyTreeError, GitError, MigrateError
from ._report import FileResult, Report, Site, Skipped
from ._rules import BASE_URL
from ._rules import ENV_NAME as ENV_NAME  # for the CLI's --base-url-env check, not public API
from ._runner import migrate, process
from ._writer import unified_diff

__all__ = [
    "BASE_URL",
    "DirtyTreeError",
    "FileResult",
    "GitError",
    "MigrateError",
    "Report",
    "Site",
    "Skipped",
    "migrate",
    "process",
    "unified_diff",
]
