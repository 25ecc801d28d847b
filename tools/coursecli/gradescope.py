"""`course gradescope`: the autograder zip for Gradescope (or any runner that follows its layout).

The zip holds the course's git-tracked files (without solutions, slides or the
course's own tests: nothing that merely lies on disk), `setup.sh`, which
installs what the course needs on Gradescope's Ubuntu image and builds the
course once into the image (for the runners' GPU architectures, `cuda_arch`),
and `run_autograder`, which grades the one submission in /autograder/submission
with `course grade`, linking against that build (`--course-build`: already up
to date, nothing of the course is built again), and writes
/autograder/results/results.json. The labs need an NVIDIA GPU: Gradescope's
own runners have none, so there the result says that the GPU tests could not
be graded (they count neither way, never as zeros); a runner with a GPU grades
them. The zip also holds the Python module's sources (python/: the plots of the
timelines use it, and the Python labs), and setup.sh installs what it needs:
Python's headers, nanobind and cuda-bindings. With `python`, the zip grades the
labs' Python versions (`course grade --python`).
"""

from __future__ import annotations

import stat
import subprocess
import zipfile
from pathlib import Path

from .batch import DEFAULT_TIMEOUT_S
from .records import COMMITTED_RECORDS
from .shell import ROOT
from .submissions import LabSources

# What a grader needs from the repository; labs are added one by one.
COURSE_PATHS = [
    "course",
    "CMakeLists.txt",
    "CMakePresets.json",
    "cmake",
    "common",
    "labs/CMakeLists.txt",
    "tools/CMakeLists.txt",
    "tools/pyproject.toml",
    "tools/coursecli",
    "tools/selfgrading",  # the `selfgrade` test tools/CMakeLists.txt registers
    "tools/streamlab_tools",
]
LEFT_OUT_SUFFIXES = {".pyc", ".png", ".pdf"}
# The runners' GPU architectures the course is built for (CMAKE_CUDA_ARCHITECTURES): the image is built
# without a GPU, so it cannot ask the GPU ("native"); 90 is Hopper, the course's H200.
DEFAULT_CUDA_ARCH = "90"  # pictures are for READMEs, not for grading

SETUP_SH = r"""#!/usr/bin/env bash
# Gradescope runs this once, when it builds the autograder image (Ubuntu 22.04 or 24.04).
set -euxo pipefail
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends build-essential cmake ccache libgtest-dev nlohmann-json3-dev \
    python3 python3-pip python3-matplotlib python3-numpy wget ca-certificates gnupg bubblewrap

# The course needs CMake >= 3.25; Ubuntu 22.04 ships 3.22.
if ! cmake --version | awk 'NR == 1 { split($3, v, "."); exit !(v[1] > 3 || (v[1] == 3 && v[2] >= 25)) }'; then
    python3 -m pip install --break-system-packages 'cmake>=3.25' 2>/dev/null || python3 -m pip install 'cmake>=3.25'
    hash -r
fi

# The CUDA Toolkit (nvcc, CUPTI) from NVIDIA's repository, unless the image has one.
# The driver is not installed here: it comes from the GPU runner's host.
if [ ! -x /usr/local/cuda/bin/nvcc ]; then
    . /etc/os-release
    repo="https://developer.download.nvidia.com/compute/cuda/repos/ubuntu${VERSION_ID//./}/x86_64"
    wget -q "$repo/cuda-keyring_1.1-1_all.deb"
    dpkg -i cuda-keyring_1.1-1_all.deb
    apt-get update
    apt-get install -y --no-install-recommends cuda-toolkit-@CUDA_VERSION@
fi
"""

# What the Python module needs (the plots use it, and the Python labs): Python's headers and nanobind
# to build it, and the article's API (cuda-bindings of the toolkit's major version).
SETUP_PYTHON_SH = r"""
apt-get install -y --no-install-recommends python3-dev
pip() { python3 -m pip install --break-system-packages "$@" 2>/dev/null || python3 -m pip install "$@"; }
pip nanobind "cuda-bindings==@CUDA_MAJOR@.*"
"""

# Where setup.sh builds the course, and the options setup.sh builds it with and run_autograder grades with:
# the same ones, so that the build run_autograder finds is up to date.
COURSE_BUILD = "/autograder/source/build-grading"
GRADE_OPTIONS = "--labs @LABS@ --timeout @TIMEOUT@ --cuda-arch '@ARCH@' --course-build " + COURSE_BUILD + "@PYTHON@"

# setup.sh's last step: the course built once, in the image, instead of once for each submission.
SETUP_BUILD_SH = r"""
# The course, built once for every submission (there are none yet: an empty folder stands for them).
export PATH="/usr/local/cuda/bin:$PATH"
mkdir -p /tmp/no-submissions
cd /autograder/source
python3 ./course grade /tmp/no-submissions -o /tmp/course-build-log --build-course-only @OPTIONS@
chmod -R a+rX @BUILD@
"""

RUN_AUTOGRADER = r"""#!/usr/bin/env bash
# Gradescope runs this for each submission: grade it, then write results.json.
set -uo pipefail
cd /autograder/source
export PATH="/usr/local/cuda/bin:$PATH"
work=/tmp/grading
rm -rf "$work"
mkdir -p "$work/submissions" /autograder/results
cp -r /autograder/submission "$work/submissions/student"
python3 ./course grade "$work/submissions" -o "$work/out" @OPTIONS@
result="$work/out/students/student/results.json"
if [ -f "$result" ]; then
    cp "$result" /autograder/results/results.json
else
    echo '{"score": 0, "output": "The grader could not grade this submission: please tell your instructor."}' \
        > /autograder/results/results.json
fi
"""


def _course_files(root: Path, labs: list[LabSources]) -> list[Path]:
    """The tracked repository files the autograder needs, relative to `root`."""
    paths = COURSE_PATHS + [f"labs/{lab.folder}" for lab in labs] + ["python"]
    paths.append(f":(exclude){COMMITTED_RECORDS.as_posix()}")  # the judges' fixtures: no grade reads them
    listed = subprocess.run(["git", "-C", str(root), "ls-files", "-z", "--", *paths], capture_output=True)
    if listed.returncode != 0:
        raise RuntimeError(f"{root} is not a git checkout: the autograder holds the course's tracked files only")
    files = [Path(name) for name in sorted(listed.stdout.decode().split("\0")) if name]
    return [f for f in files if f.suffix not in LEFT_OUT_SUFFIXES and (root / f).is_file()]


def _add_script(archive: zipfile.ZipFile, name: str, text: str) -> None:
    info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
    info.external_attr = (stat.S_IFREG | 0o755) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    archive.writestr(info, text)


def build_autograder(
    output: Path,
    labs: list[LabSources],
    timeout_s: int = DEFAULT_TIMEOUT_S,
    cuda_version: str = "13-0",
    root: Path = ROOT,
    python: bool = False,
    cuda_arch: str = DEFAULT_CUDA_ARCH,
) -> list[str]:
    """Writes the autograder zip for `labs` (their Python versions with `python`); returns the names it holds."""
    output.parent.mkdir(parents=True, exist_ok=True)
    numbers = " ".join(lab.number for lab in labs)
    options = GRADE_OPTIONS.replace("@LABS@", numbers).replace("@TIMEOUT@", str(timeout_s))
    options = options.replace("@ARCH@", cuda_arch).replace("@PYTHON@", " --python" if python else "")
    setup = SETUP_SH.replace("@CUDA_VERSION@", cuda_version)
    setup += SETUP_PYTHON_SH.replace("@CUDA_MAJOR@", cuda_version.split("-")[0])
    setup += SETUP_BUILD_SH.replace("@OPTIONS@", options).replace("@BUILD@", COURSE_BUILD)
    run = RUN_AUTOGRADER.replace("@OPTIONS@", options)
    with zipfile.ZipFile(output, "w", zipfile.ZIP_DEFLATED) as archive:
        _add_script(archive, "setup.sh", setup)
        _add_script(archive, "run_autograder", run)
        for relative in _course_files(root, labs):
            archive.write(root / relative, relative.as_posix())
        return archive.namelist()
