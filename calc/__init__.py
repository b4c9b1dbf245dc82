"""Neuron Field Guide calculation engine: memory fit, FLOPS/time and price.

Stdlib only, typed and pure, so the same code runs in CPython and in Pyodide.
Nothing is loaded at import time; the public entry points are ``calc.api.run``
(JSON boundary) and ``python -m calc`` (CLI).
"""

__version__ = "0.1.0"
