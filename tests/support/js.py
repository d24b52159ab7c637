"""Run the browser client's pure modules under Node, without a browser.

A table's layout (``games/<name>/layout.js``) and the shell's pure modules are
plain ES modules: they import nothing but other pure modules, by relative URL
or by the served path ``/static/...``. :func:`run_js` loads them in Node with a
resolve hook that maps ``/static/`` to the package's static folder (as the
server serves it), runs a test body, and returns what it printed as JSON, so a
pytest test can compare the JavaScript's answer with the Python engine's.

Node is not a dependency of the project: the tests that use this skip when it
is missing (``.ci/run`` installs Debian's ``nodejs``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

import apothecary

SRC = Path(apothecary.__file__).resolve().parent
STATIC = SRC / "server" / "static"
GAMES = SRC / "games"

NODE = shutil.which("node")

needs_node = pytest.mark.skipif(NODE is None, reason="Node.js is not installed")
"""Mark a test that runs JavaScript under Node."""

_HOOKS = """
export async function resolve(specifier, context, next) {
  if (specifier.startsWith("/static/")) {
    return next(new URL("." + specifier.slice("/static".length), STATIC_URL).href, context);
  }
  return next(specifier, context);
}
"""


def module_url(path: Path) -> str:
    """A file's URL, for ``import`` in a test body."""
    return path.resolve().as_uri()


def run_js(body: str, data: Any = None, timeout: float = 60) -> Any:
    """Run ``body`` (an ES module's code: ``await import(...)`` the modules it
    tests, read the JSON ``data`` as ``DATA``, and ``emit(value)`` the answer)
    under Node; returns the emitted value. A thrown error fails the test with
    Node's message."""
    assert NODE is not None, "run_js needs Node (mark the test with needs_node)"
    with tempfile.TemporaryDirectory() as folder:
        where = Path(folder)
        hooks = where / "hooks.mjs"
        static_url = module_url(STATIC) + "/"
        hooks.write_text(f"const STATIC_URL = {json.dumps(static_url)};\n{_HOOKS}")
        register = where / "register.mjs"
        register.write_text(
            'import { register } from "node:module";\n'
            f"register({json.dumps(module_url(hooks))});\n"
        )
        (where / "data.json").write_text(json.dumps(data))
        main = where / "main.mjs"
        data_file = json.dumps(str(where / "data.json"))
        main.write_text(
            "import { readFileSync } from 'node:fs';\n"
            f"const DATA = JSON.parse(readFileSync({data_file}, 'utf8'));\n"
            "const emit = (value) => process.stdout.write(JSON.stringify(value));\n"
            f"{body}\n"
        )
        done = subprocess.run(
            [NODE, "--import", module_url(register), str(main)],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    if done.returncode != 0:
        pytest.fail(f"node failed ({done.returncode}):\n{done.stderr}")
    return json.loads(done.stdout) if done.stdout else None
