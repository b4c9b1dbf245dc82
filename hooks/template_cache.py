"""MkDocs hook: one in-memory Jinja bytecode cache for the theme templates of the whole process.

mkdocs-static-i18n runs one MkDocs build per language (en, ja, es), and each build makes a new
theme Environment that compiles the same Material templates again (about a fifth of the build's
CPU time). Jinja's bytecode cache keys each template by name and checks a checksum of its source,
so an edited template is compiled again; only unchanged templates skip the compiler.
"""

from __future__ import annotations

from typing import Any

from jinja2 import BytecodeCache
from jinja2.bccache import Bucket


class MemoryBytecodeCache(BytecodeCache):
    """Compiled template code kept in a dict for the life of the process."""

    def __init__(self) -> None:
        self.code: dict[str, bytes] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        stored = self.code.get(bucket.key)
        if stored is not None:
            bucket.bytecode_from_string(stored)

    def dump_bytecode(self, bucket: Bucket) -> None:
        self.code[bucket.key] = bucket.bytecode_to_string()

    def clear(self) -> None:
        self.code.clear()


CACHE = MemoryBytecodeCache()


def on_env(env: Any, config: Any, files: Any) -> Any:
    env.bytecode_cache = CACHE
    return env
