"""What `course setup` installs for the Python module streamlab, which is always built:
a tools' Python with nanobind and cuda-bindings (pip, into .venv) and Python's C
headers (apt), and how it stops, saying what to install, where it cannot
(coursecli/environment.py). Nothing is installed here: the probes, apt and pip are replaced."""

import pytest
from coursecli import apt, environment
from coursecli.shell import COURSE_ERROR


@pytest.fixture
def machine(monkeypatch, tmp_path):
    """A machine with the build's requirements and a .venv, whose Python packages and headers are as the
    test sets them; records what apt and pip would run."""
    monkeypatch.setattr(environment, "VENV", tmp_path / ".venv")
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    (tmp_path / ".venv" / "bin" / "python").touch()
    state = {
        "python": str(tmp_path / ".venv" / "bin" / "python"),
        "packages": set(environment.PYTHON_PACKAGES),
        "headers": True,
        "apt": [],
        "pip": [],
        "apt_works": False,
    }

    def probe(python, code):
        if code == environment.HEADERS_PROBE:
            return state["headers"]
        wanted = {name for name, module in environment.PYTHON_PACKAGES.items() if module in code}
        return str(python) == state["python"] and wanted <= state["packages"]

    def run(command, **options):
        state["pip"].append(command)
        state["packages"] |= {name for name in environment.PYTHON_PACKAGES if any(a.startswith(name) for a in command)}

    def apt_install(packages, purpose):
        state["apt"].append(packages)
        if state["apt_works"]:
            state["headers"] = True
        return state["apt_works"]

    monkeypatch.setattr(environment, "system_requirements", lambda: [])
    monkeypatch.setattr(environment, "find_nvcc", lambda: "/usr/local/cuda/bin/nvcc")
    monkeypatch.setattr(
        environment, "pip_requirements", lambda: ["matplotlib", "numpy", "pytest", "nanobind", "cuda-bindings==13.*"]
    )
    monkeypatch.setattr(environment, "_probe", probe)
    monkeypatch.setattr(environment, "run", run)
    monkeypatch.setattr(apt, "install", apt_install)
    environment.tools_python.cache_clear()  # found once per process: here, once per test
    yield state
    environment.tools_python.cache_clear()


def test_a_ready_machine_installs_nothing(machine):
    assert environment.setup(quiet_if_ready=True) == 0
    assert (machine["apt"], machine["pip"]) == ([], [])


def test_a_python_without_nanobind_and_cuda_bindings_is_not_the_tools_python(machine):
    """A Python with only matplotlib, numpy and pytest once passed; the module needs nanobind too."""
    machine["packages"] = {"matplotlib", "numpy", "pytest"}
    assert environment.tools_python() is None


def test_nanobind_and_cuda_bindings_go_into_the_venv(machine):
    machine["packages"] = {"matplotlib", "numpy", "pytest"}
    assert environment.setup() == 0
    [pip] = machine["pip"]
    assert pip[:4] == [machine["python"], "-m", "pip", "install"]
    assert {"nanobind", "cuda-bindings==13.*"} <= set(pip)
    assert environment.tools_python() == machine["python"]


def test_packages_pip_cannot_install_stop_setup_and_name_the_command(machine, monkeypatch, capsys):
    machine["packages"] = {"matplotlib", "numpy", "pytest"}
    monkeypatch.setattr(environment, "run", lambda command, **options: machine["pip"].append(command))
    assert environment.setup() == COURSE_ERROR
    out = capsys.readouterr().out
    assert f"install them with: {machine['python']} -m pip install" in out
    assert "'nanobind'" in out


def test_missing_headers_are_installed_with_apt(machine, capsys):
    machine.update(headers=False, apt_works=True)
    assert environment.setup() == 0
    assert machine["apt"] == [["python3-dev"]]
    assert "missing: Python's C headers (Python.h)" in capsys.readouterr().out


def test_headers_apt_cannot_install_stop_setup_and_name_the_package(machine, capsys):
    machine.update(headers=False)
    assert environment.setup() == COURSE_ERROR
    assert machine["apt"] == [["python3-dev"]]
    assert "install python3-dev (Debian, Ubuntu) or python3-devel" in capsys.readouterr().out


def test_cuda_bindings_match_the_toolkits_major_version(monkeypatch):
    class Nvcc:
        stdout = "Cuda compilation tools, release 13.0, V13.0.88"

    monkeypatch.setattr(environment, "find_nvcc", lambda: "/usr/local/cuda/bin/nvcc")
    monkeypatch.setattr(environment.subprocess, "run", lambda *a, **k: Nvcc)
    assert environment.pip_requirements() == ["matplotlib", "numpy", "pytest", "nanobind", "cuda-bindings==13.*"]


def test_the_venv_is_asked_once_until_pip_changes_what_it_holds(machine, monkeypatch, tmp_path):
    """Every verb needs the tools' Python: .venv's is probed once, and its note spares the next processes the
    probe until site-packages changes (pip installs or removes something there)."""
    site = tmp_path / ".venv" / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    probed = []
    probe = environment._probe
    monkeypatch.setattr(environment, "_probe", lambda python, code: probed.append(python) or probe(python, code))

    def next_process() -> str | None:
        environment.tools_python.cache_clear()
        return environment.tools_python()

    assert next_process() == machine["python"] and len(probed) == 1
    assert environment.tools_python() == machine["python"] and len(probed) == 1  # the same process
    assert next_process() == machine["python"] and len(probed) == 1  # the note
    (site / "numpy-2.0.dist-info").mkdir()  # pip changed it: asked again
    machine["packages"] = {"numpy"}
    assert next_process() is None and len(probed) == 3  # .venv's, then python3's
