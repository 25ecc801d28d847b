"""The fixture `cpp`. The tools' packages are found by name: tools/pyproject.toml puts tools/ on pytest's path."""

import pytest


@pytest.fixture(scope="module")
def cpp():
    """The course's Python module streamlab (the C++ library), or a skip that says why it is not at hand."""
    from streamlab_tools import native

    module = native.load_module()
    if module is None:
        pytest.skip(native.missing_reason())
    return module
