"""What `course setup` and `course test` install for the Python module streamlab, and
what they say where they cannot (coursecli/python_module.py). Nothing is installed here:
the probes, apt and pip are replaced."""

import sys

import pytest
from coursecli import apt, environment, python_module


@pytest.fixture
def machine(monkeypatch):
    """A machine whose headers and nanobind are as the test sets them; records what would run."""
    state = {"headers": True, "nanobind": True, "cuda_bindings": True, "python": sys.executable, "apt": [], "pip": []}
    probes = {"import nanobind": "nanobind", "import cuda.bindings.runtime": "cuda_bindings"}

    def probe(python, code):
        return state[probes.get(code, "headers")]

    def pip(command, **options):
        state["pip"].append(command)
        state["cuda_bindings" if command[-1].startswith("cuda-bindings") else "nanobind"] = True

    def apt_install(packages, purpose):
        state["apt"].append(packages)
        return False  # as where apt-get may not run

    monkeypatch.setattr(environment, "tools_python", lambda: state["python"])
    monkeypatch.setattr(python_module, "_probe", probe)
    monkeypatch.setattr(python_module, "run", pip)
    monkeypatch.setattr(apt, "install", apt_install)
    return state


def test_nothing_to_do_says_nothing(machine, capsys):
    assert python_module.install() is False
    assert (machine["apt"], machine["pip"], capsys.readouterr().out) == ([], [], "")


def test_nanobind_goes_into_the_venv(machine):
    machine.update(nanobind=False, python=str(environment.VENV / "bin" / "python"))
    assert python_module.install() is True
    assert machine["pip"] == [
        [machine["python"], "-m", "pip", "install", "-q", *python_module.PIP_PATIENCE, "nanobind"]
    ]


def test_a_python_outside_the_venv_gets_the_command_to_run(machine, capsys):
    machine.update(nanobind=False, python="/opt/python/bin/python3")
    assert python_module.install() is False
    assert machine["pip"] == []
    out = capsys.readouterr().out
    assert "missing nanobind (install it with: /opt/python/bin/python3 -m pip install 'nanobind')" in out
    assert (
        "will not be built (the Python labs use the course's C library in its place, the tools their Python twins)"
        in out
    )


def test_missing_headers_are_asked_of_apt_and_reported(machine, capsys):
    machine.update(headers=False)
    assert python_module.install() is False
    assert machine["apt"] == [["python3-dev"]]
    assert "missing Python's C headers (Python.h)" in capsys.readouterr().out


def test_cuda_bindings_of_the_toolkits_major_version_go_into_the_venv(machine, monkeypatch):
    monkeypatch.setattr(python_module, "cuda_bindings_spec", lambda: "cuda-bindings==13.*")
    machine.update(cuda_bindings=False, python=str(environment.VENV / "bin" / "python"))
    python_module.install()
    assert machine["pip"] == [
        [machine["python"], "-m", "pip", "install", "-q", *python_module.PIP_PATIENCE, "cuda-bindings==13.*"]
    ]


def test_without_cuda_bindings_the_python_labs_say_they_will_be_skipped(machine, monkeypatch, capsys):
    monkeypatch.setattr(python_module, "cuda_bindings_spec", lambda: "cuda-bindings==13.*")
    machine.update(cuda_bindings=False, python="/opt/python/bin/python3")
    python_module.install()
    assert "the Python labs' tests will be skipped: missing cuda-bindings==13.*" in capsys.readouterr().out
