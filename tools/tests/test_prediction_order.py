"""A lab that asks for a prediction (ANSWER_FILES in its lab.cmake) asks it before its README shows what
answers it: the first line that names the answer file (where the README tells the student to write it)
comes before every figure or sentence that gives the answer away, in English and in Korean. The figures
are each lab's own (the H200's measurements, the model's ratio); a lab is listed here once its README
has been checked for them."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Lab folder -> what gives its prediction away, as regular expressions over the README's text.
ANSWERS = {
    "01-null-stream": [r"5\.97", r"2\.00 ms", r"three\s+times as long", r"세\s*배 오래", r"A, then B", r"A, 그다음 B"],
    "05-three-chunks": [r"\b9t\b", r"\b5t\b", r"1\.7\dx", r"1\.7\d배", r"1\.8x", r"15 ms (to|에서)", r"8\.38 ms"],
}


def first_ask(text: str, answer_file: str = "prediction.txt") -> int:
    """Where the README first tells the student to write the answer file."""
    found = text.find(answer_file)
    assert found >= 0, f"the README never names {answer_file}"
    return found


def given_away_before_the_ask(readme: Path, patterns: list[str]) -> list[str]:
    """The answer figures found before the README first asks for the prediction, with their line numbers."""
    text = readme.read_text()
    before = text[: first_ask(text)]
    return [
        f"{readme.relative_to(ROOT)}:{before[: match.start()].count(chr(10)) + 1}: {match.group(0)!r}"
        for pattern in patterns
        for match in re.finditer(pattern, before)
    ]


@pytest.mark.parametrize("language", ["README.md", "README.ko.md"])
@pytest.mark.parametrize("lab", sorted(ANSWERS))
def test_the_prediction_is_asked_before_the_readme_answers_it(lab, language):
    assert given_away_before_the_ask(ROOT / "labs" / lab / language, ANSWERS[lab]) == []
