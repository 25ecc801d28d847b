"""Lets `python -m pytest tools/tests` import streamlab_tools from the repository root; the fixture `cpp`."""

import sys
from pathlib import Path

import pytest

TOOLS = Path(__file__).resolve().parents[1]
if str(TOOLS) not in sys.path:
    sys.path.insert(0, str(TOOLS))


@pytest.fixture(scope="module")
def cpp():
    """The course's Python module streamlab (the C++ library), or a skip that says why it is not at hand."""
    from streamlab_tools import native

    module = native.load_module()
    if module is None:
        pytest.skip(native.missing_reason())
    return module
