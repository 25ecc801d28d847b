"""Lets `python -m pytest tools/tests` import streamlab_tools from the repository root."""

import sys
from pathlib import Path

TOOLS = Path(__file__).resolve().parents[1]
if str(TOOLS) not in sys.path:
    sys.path.insert(0, str(TOOLS))
