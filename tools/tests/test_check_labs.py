"""The starter/solution consistency check, on small labs made in tmp_path."""

import json
from pathlib import Path

import pytest
from coursecli import check_labs
from coursecli.lab_declaration import read_lab

REPO = Path(__file__).resolve().parents[2]
SECTIONS = "\n".join(f"## {s}\ntext\n" for s in check_labs.README_SECTIONS)
LAB = {
    "student_sources": ["work.cu"],
    "program": "run.cu",
    "recorder": "rec.cpp",
    "test_source": "t.cu",
    "tests": [{"name": "A.B", "device": "gpu", "points": 1}],
}
SOLUTION = "int f() {\n    int x = 1;\n    return x;\n}\n"
STARTER = "int f() {\n    int x = 1;\n    // TODO(lab09): return x.\n    return 0;\n    // TODO(lab09) end\n}\n"


def make_lab(root: Path, starter: str = STARTER, solution: str = SOLUTION, readme: str = SECTIONS) -> Path:
    lab, sol = root / "labs" / "09-demo", root / "solutions" / "09-demo"
    lab.mkdir(parents=True)
    sol.mkdir(parents=True)
    (lab / "lab.json").write_text(json.dumps(LAB))
    (lab / "README.md").write_text(readme)
    (lab / "work.cu").write_text(starter)
    (sol / "work.cu").write_text(solution)
    return root


@pytest.mark.parametrize(
    ("starter", "solution", "status", "said"),
    [
        (STARTER, SOLUTION, 0, "1 lab(s) consistent"),
        (STARTER.replace("int x = 1;", "int x = 2;"), SOLUTION, 1, "outside a TODO block"),
        (SOLUTION, SOLUTION, 1, "no TODO(lab09) block"),
        (STARTER, SOLUTION.replace("return x;", "return x;  // TODO tidy"), 1, "still has a TODO"),
    ],
    ids=["consistent", "difference outside a block", "starter without TODO", "solution with TODO"],
)
def test_starter_against_solution(tmp_path, capsys, starter, solution, status, said):
    assert check_labs.main(["--root", str(make_lab(tmp_path, starter=starter, solution=solution))]) == status
    assert said in capsys.readouterr().out


def test_unclosed_block_and_missing_readme_section_fail(tmp_path, capsys):
    starter = STARTER.replace("    // TODO(lab09) end\n", "")
    readme = SECTIONS.replace("## Hints", "## Tips")
    assert check_labs.main(["--root", str(make_lab(tmp_path, starter=starter, readme=readme))]) == 1
    out = capsys.readouterr().out
    assert "never closed" in out
    assert "'## Hints'" in out


def test_extra_solution_file_fails(tmp_path, capsys):
    root = make_lab(tmp_path)
    (root / "solutions" / "09-demo" / "extra.cu").write_text("")
    assert check_labs.main(["--root", str(root)]) == 1
    assert "extra.cu" in capsys.readouterr().out


def test_this_repository_is_consistent(capsys):
    assert check_labs.main(["--root", str(REPO)]) == 0, capsys.readouterr().out


def test_an_answer_file_must_be_in_both_and_unanswered_in_the_starter(tmp_path, capsys):
    root = make_lab(tmp_path)
    lab, sol = root / "labs" / "09-demo", root / "solutions" / "09-demo"
    (lab / "lab.json").write_text(json.dumps({**LAB, "answer_files": ["prediction.txt"]}))
    (lab / "prediction.txt").write_text("speedup: ?\n")
    assert check_labs.main(["--root", str(root)]) == 1
    assert "answer file missing in solutions" in capsys.readouterr().out
    (sol / "prediction.txt").write_text("speedup: ?\n")
    assert check_labs.main(["--root", str(root)]) == 1
    assert "must be unanswered" in capsys.readouterr().out
    (sol / "prediction.txt").write_text("speedup: 1.8\n")
    assert check_labs.main(["--root", str(root)]) == 0


def test_a_lab_that_needs_two_gpus_asks_for_them_where_its_code_runs(tmp_path, capsys):
    root = make_lab(tmp_path)
    lab = root / "labs" / "09-demo"
    # The recording program asks for them, its judges never run code that could.
    (lab / "lab.json").write_text(json.dumps({**LAB, "gpus": 2}))
    (lab / "rec.cpp").write_text("int main(int c, char** v) { return record_scenarios(c, v, record_demo); }\n")
    assert check_labs.main(["--root", str(root)]) == 1
    assert "its recording program never asks for them with /*gpus=*/2)" in capsys.readouterr().out
    (lab / "rec.cpp").write_text(
        "int main(int c, char** v) { return record_scenarios(c, v, record_demo, /*gpus=*/2); }\n"
    )
    assert check_labs.main(["--root", str(root)]) == 0
    (lab / "lab.json").write_text(json.dumps({**LAB, "gpus": 9}))
    assert check_labs.main(["--root", str(root)]) == 1
    assert "gpus must be from 1 to 8, not 9" in capsys.readouterr().out


def test_a_malformed_lab_json_is_its_labs_problem_in_one_line(tmp_path, capsys):
    root = make_lab(tmp_path)
    (root / "labs" / "09-demo" / "lab.json").write_text(
        json.dumps({**LAB, "tests": [{"name": "A.B", "device": "gpu"}]})
    )
    assert check_labs.main(["--root", str(root)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out == [f"check_labs: 09-demo: {root}/labs/09-demo/lab.json: tests[0]: no points"]


def test_lab_08_needs_two_gpus():
    assert read_lab(REPO / "labs" / "08-two-gpus").gpus == 2
    assert read_lab(REPO / "labs" / "07-dependencies-and-graphs").gpus == 1
