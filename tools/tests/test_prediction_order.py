"""A lab that asks for a prediction (answer_files in its lab.json) asks it before its README shows what
answers it: the first line that names the answer file (where the README tells the student to write it)
comes before every figure or sentence that gives the answer away, in English and in Korean; and the
README does show the answer after the ask, for the student to check the prediction against. The figures
are each lab's own (the H200's measurements, the model's ratio, the sentences that state the outcome);
every lab with an answer file is listed here."""

import re
from pathlib import Path

import pytest
from coursecli.lab_declaration import declared_labs

ROOT = Path(__file__).resolve().parents[2]

# Lab folder -> what gives its prediction away, as regular expressions over the README's text (the
# English and the Korean wording side by side; a pattern that matches neither page costs nothing).
ANSWERS = {
    # Task 2: the order of three kernels in blocking, then non-blocking streams. The H200's makespans
    # (5.97 ms in turn, 2.00 ms together) and the sentences that say the blocking run is serial give it.
    "01-null-stream": [r"5\.97", r"2\.00 ms", r"three\s+times as long", r"세\s*배 오래", r"A, then B", r"A, 그다음 B"],
    # Task 1: whether the last stream was idle when polled (no) and the first after its synchronize (yes).
    # What cudaStreamQuery answered on the H200, quoted, is that answer.
    "02-streams": [r'"still\s+working"', r'"idle"', r'"아직 일하는 중"', r'"쉬는 중"'],
    # Task 3: which memory copies faster at the large size (pinned), whether registered memory copies
    # as fast as cudaMallocHost memory (same); ungraded, 4 KiB (about the same) and by how much at
    # 256 MiB. The H200's bandwidths (55 against 6.5 to 14 GB/s), the ratios, the curve and the
    # sentences that state who is faster give it; so does "both pinned ways came out faster", which a
    # student takes for the registered answer although it is about allocating.
    "03-pinned-memory": [
        r"5[35](\.\d)?\s*GB/s",
        r"(8\.2|6\.5|13\.9|10\.0) GB/s",
        r"6\.7 times",
        r"6\.7배",
        r"8\.5x",
        r"came out faster",
        r"`malloc`보다\s+빨랐",
        r"pageable copies are slower",
        r"pageable 복사가 느립니다",
        r"about as\s+fast as pinned",
        r"pinned와 비슷하게 빨라",
        r"copy as fast as\s+`cudaMallocHost`",
        r"`cudaMallocHost` 메모리만큼 빨리",
        r"speeds up transfers",
        r"전송을 빠르게",
        r"bandwidth-h200\.png",
    ],
    # Task 3: whether the device is still busy with a batch when control comes back (pinned: busy;
    # pageable: done). What the H200's driver did with pageable copies (they return late, only after
    # the copy, so host and device take turns), the return after 40.41 ms against 0.027 ms, and the
    # pictures of it give it.
    "04-async-copies": [
        r"returns?\s+late",
        r"returned\s+(only|after)",
        r"take\s+turns",
        r"get\s+stuck",
        r"does not let the host",
        r"after (its|the batch's) (D2H|last copy)",
        r"40\.41",
        r"0\.027 ms",
        r"늦게 돌아",
        r"돌아왔습니다",
        r"번갈아",
        r"묶이는",
        r"놓아주지 않",
        r"마지막 복사가 끝난 뒤",
        r"D2H 막대 뒤",
        r"timeline-h200\.png",
        r"pageable-overlap-h200\.png",
    ],
    # Task 4: the pipeline's speedup over the serial run. The model's 5t against 9t and the H200's
    # 1.75x (14.70 to 8.38 ms) give it.
    "05-three-chunks": [r"\b9t\b", r"\b5t\b", r"1\.7\dx", r"1\.7\d배", r"1\.8x", r"15 ms (to|에서)", r"8\.38 ms"],
    # Task 3: the wait for a host with work of its own (polling, or a blocking wait) and its CPU/wall
    # figure. The course's advice on which to choose and the H200's table of the ways to wait give it.
    "09-why-streams-serialize": [
        r"Which to choose",
        r"poll between\s+slices",
        r"무엇을 고를까",
        r"조각 사이마다 묻습니다",
        r"0\.27 ms",
        r"wait_polling \(cudaStreamQuery\)\s+\d",
        r"hands the whole\s+wait",
        r"기다리는 시간 전부",
    ],
}


def answer_files() -> dict[str, list[str]]:
    """Each lab folder whose lab.json names answer_files -> those files."""
    return {
        folder.name: list(declared.answer_files) for folder, declared in declared_labs(ROOT) if declared.answer_files
    }


def first_ask(text: str, files: list[str]) -> int:
    """Where the README first names an answer file, the place it tells the student to write it. The
    Python track's copy (`python/prediction.txt`) is only named beside it, so it does not count."""
    found = [match.start() for name in files for match in re.finditer(rf"(?<!python/){re.escape(name)}", text)]
    assert found, f"the README never names {' or '.join(files)}"
    return min(found)


# Words that tell the student to write (or open) the answer file, in English and in Korean.
ASKS_TO_WRITE = r"\b[Ww]rite\b|\bOpen\b|적으세요|적습니다|씁니다|쓰세요|열어"


def paragraph_at(text: str, position: int) -> str:
    """The paragraph (text between blank lines) that holds `position`."""
    start = text.rfind("\n\n", 0, position)
    end = text.find("\n\n", position)
    return text[start + 2 if start >= 0 else 0 : end if end >= 0 else len(text)]


def answers_in(text: str, patterns: list[str], offset: int = 0) -> list[str]:
    """Each match of the patterns in `text`, with its line number (counted from `offset` lines)."""
    return [
        f"{offset + text[: match.start()].count(chr(10)) + 1}: {match.group(0)!r}"
        for pattern in patterns
        for match in re.finditer(pattern, text)
    ]


def given_away_before_the_ask(text: str, files: list[str], patterns: list[str]) -> list[str]:
    """The answer figures found before the README first asks for the prediction, with their line numbers."""
    return answers_in(text[: first_ask(text, files)], patterns)


def shown_after_the_ask(text: str, files: list[str], patterns: list[str]) -> list[str]:
    """The answer figures found after the ask, with their line numbers."""
    ask = first_ask(text, files)
    return answers_in(text[ask:], patterns, text[:ask].count("\n"))


def test_every_lab_with_an_answer_file_is_listed():
    labs = answer_files()
    assert sorted(labs) == sorted(ANSWERS), (
        "list what gives each lab's prediction away in ANSWERS: "
        f"labs with answer files {sorted(labs)}, listed {sorted(ANSWERS)}"
    )


@pytest.mark.parametrize("language", ["README.md", "README.ko.md"])
@pytest.mark.parametrize("lab", sorted(ANSWERS))
def test_the_first_mention_of_the_answer_file_is_the_ask(lab, language):
    """A README that names the file in passing first (the Python track's section, a table) would move
    the point the other tests measure from; the first mention is where the student is told to write it."""
    text = (ROOT / "labs" / lab / language).read_text()
    paragraph = paragraph_at(text, first_ask(text, answer_files()[lab]))
    assert re.search(ASKS_TO_WRITE, paragraph), f"labs/{lab}/{language}: the first mention asks nothing: {paragraph!r}"


@pytest.mark.parametrize("language", ["README.md", "README.ko.md"])
@pytest.mark.parametrize("lab", sorted(ANSWERS))
def test_the_prediction_is_asked_before_the_readme_answers_it(lab, language):
    text = (ROOT / "labs" / lab / language).read_text()
    assert given_away_before_the_ask(text, answer_files()[lab], ANSWERS[lab]) == [], f"labs/{lab}/{language}"


@pytest.mark.parametrize("language", ["README.md", "README.ko.md"])
@pytest.mark.parametrize("lab", sorted(ANSWERS))
def test_the_readme_shows_the_answer_after_the_ask(lab, language):
    text = (ROOT / "labs" / lab / language).read_text()
    assert shown_after_the_ask(text, answer_files()[lab], ANSWERS[lab]), (
        f"labs/{lab}/{language}: none of the lab's answer figures after the ask; "
        "the student has nothing to check the prediction against, or ANSWERS no longer matches the README"
    )


def test_a_figure_before_the_ask_is_found_and_the_python_copy_is_no_ask():
    text = "The H200 took 5.97 ms.\nPython: `python/prediction.txt`.\nWrite `prediction.txt`.\nIt took 5.97 ms.\n"
    assert given_away_before_the_ask(text, ["prediction.txt"], [r"5\.97"]) == ["1: '5.97'"]
    assert shown_after_the_ask(text, ["prediction.txt"], [r"5\.97"]) == ["4: '5.97'"]
    assert given_away_before_the_ask(text.replace("took 5.97", "took"), ["prediction.txt"], [r"5\.97"]) == []
