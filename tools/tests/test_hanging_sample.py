"""The hanging sample's kernel really never ends: the compiler keeps its loop.

A loop over a volatile local compiles to a loop in PTX that ptxas then drops (the
kernel returned at once on the GPU, and the sample hung nothing). The kernel must
load its flag from memory on every turn, which ptxas cannot drop. Needs nvcc.
"""

from __future__ import annotations

import re
import subprocess

import pytest
from coursecli import environment
from selfgrading.make_grading_samples import NEVER_ENDING_KERNEL


@pytest.mark.skipif(environment.find_nvcc() is None, reason="needs nvcc")
def test_the_never_ending_kernel_reads_its_flag_in_its_loop(tmp_path):
    source = tmp_path / "hang.cu"
    source.write_text(NEVER_ENDING_KERNEL + "void launch() { never_ends<<<1, 1>>>(); }\n")
    ptx = tmp_path / "hang.ptx"
    subprocess.run([str(environment.find_nvcc()), "-ptx", "-o", str(ptx), str(source)], check=True)
    body = ptx.read_text().split("never_ends", 1)[1]
    loop = re.search(r"(\$L__BB\d+_\d+):(.*?)bra(?:\.uni)?\s+\1;", body, re.S)
    assert loop, "the kernel has no loop"
    assert "ld.volatile" in loop.group(2), f"the loop does not load the flag from memory:\n{loop.group(0)}"
