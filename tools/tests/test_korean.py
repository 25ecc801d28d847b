"""The Korean pages (README.ko.md, slides/ko/) are in step with their English twins
(tools/korean_twins.py), and the check itself catches each kind of drift."""

from __future__ import annotations

import korean_twins
import pytest
from doxygen_markdown import github_anchor
from korean_twins import ROOT, compare, numbers_in

ENGLISH = """# Lab 09: a lab

[한국어](README.ko.md)

## Goal

Copy 64 MiB in 1.22 ms, a 1.72x speedup, within 10%.

![timeline](timeline-h200.png)

```sh
./course run 09   # build and run
```

## Hints

<details><summary>Task 1 (open only when stuck)</summary>

Use `cudaMemcpy`.

</details>
"""

KOREAN = """# Lab 09: 랩

[English](README.md)

## 목표

64 MiB를 1.22 ms에 복사하면 1.72배 빨라지고, 오차는 10% 이내입니다.

![타임라인](timeline-h200.png)

```sh
./course run 09   # build and run
```

## 힌트

<details><summary>과제 1 (막혔을 때만 여세요)</summary>

`cudaMemcpy`를 쓰세요.

</details>
"""


def test_the_synthetic_pair_is_in_step():
    assert compare(ENGLISH, KOREAN, "labs/09-x/README.md", "labs/09-x/README.ko.md") is None


@pytest.mark.parametrize(
    "page, old, new, expected",
    [
        ("ko", "## 힌트", "### 힌트", "heading 3 is level 3"),
        ("ko", "## 힌트", "## 힌트\n\n## 더 읽을거리", "4 headings, the English page has 3"),
        ("ko", "# build and run", "# 빌드하고 실행", "code block 1 differs"),
        ("ko", "09   # build", "09  # build", "code block 1 differs"),
        ("ko", "timeline-h200.png", "timeline-h100.png", "figure 1 differs"),
        ("ko", "1.22 ms", "1.23 ms", "only in English ['1.22 ms'], only in Korean ['1.23 ms']"),
        ("ko", "64 MiB", "64 MB", "only in English ['64 MiB']"),
        ("ko", "1.72배", "1.7배", "only in Korean ['1.7x']"),
        ("ko", "10%", "1%", "section 'Goal' / '목표': numbers differ"),
        ("ko", "<details><summary>과제 1 (막혔을 때만 여세요)</summary>", "과제 1", "0 <details> blocks, the English"),
        ("en", "Task 1 (open", "Task 2 (open", "section 'Hints' / '힌트': numbers differ"),
    ],
)
def test_each_kind_of_drift_fails_and_names_the_first_difference(page, old, new, expected):
    english, korean = ENGLISH, KOREAN
    if page == "ko":
        assert old in korean
        korean = korean.replace(old, new, 1)
    else:
        assert old in english
        english = english.replace(old, new, 1)
    difference = compare(english, korean, "labs/09-x/README.md", "labs/09-x/README.ko.md")
    assert difference is not None and expected in difference, difference
    assert difference.startswith("labs/09-x/README.ko.md (twin of labs/09-x/README.md)")


def test_numbers_keep_their_units_and_names_are_not_numbers():
    assert numbers_in("H2D took 1.219 ms on sm_90 for lab01, 3 chunks, 1.77× or 1.77배, 16 Mi elements") == [
        "1.219 ms",
        "3",
        "1.77x",
        "1.77x",
        "16 Mi",
    ]
    assert numbers_in("1,000 elements") == ["1000"]


def test_a_factor_is_the_same_number_in_english_words_and_in_korean():
    assert numbers_in("6.7 times (H2D), 4 times as long, 4 times the batches, 1.9 times.") == [
        "6.7x",
        "4x",
        "4x",
        "1.9x",
    ]
    assert numbers_in("약 6.7배(H2D), 4배 길면, 1.9배.") == ["6.7x", "4x", "1.9x"]
    assert numbers_in("launched 4 times; each node 4 times |") == ["4", "4"]
    assert numbers_in("4 배") == ["4"], "a Korean factor is written close: 4배"


def test_slide_includes_count_as_code():
    english = "## Code\n\n<!-- include solutions/01-null-stream/null_stream.cu:run_serial -->\n"
    korean = "## 코드\n\n<!-- include solutions/01-null-stream/null_stream.cu:run_barrier_demo -->\n"
    difference = compare(english, korean, "slides/01-x.md", "slides/ko/01-x.md")
    assert difference is not None and "code block 1 differs" in difference


@pytest.mark.parametrize(
    "english, korean, old, new, names, expected",
    [
        (
            "# T\n\n## The article, more precisely\n\nSee [below](#the-article-more-precisely).\n",
            "# T\n\n## 글을 더 정확하게\n\n[아래](#글을-더-정확하게)를 보세요.\n",
            "(#글을-더-정확하게)",
            "(#the-article-more-precisely)",
            ("a/README.md", "a/README.ko.md"),
            "the link to #the-article-more-precisely leads to no heading",
        ),
        # The top README is compared whole, to its last section.
        (
            "# C\n\n## Start\n\n2 commands\n\n## Other commands\n\n9 more\n",
            "# C\n\n## 시작\n\n명령 2개\n\n## 그 밖의 명령\n\n9개 더\n",
            "9개 더",
            "8개 더",
            ("README.md", "README.ko.md"),
            "numbers differ",
        ),
    ],
)
def test_a_pair_in_step_passes_and_the_same_pair_drifted_fails(english, korean, old, new, names, expected):
    assert compare(english, korean, *names) is None
    assert expected in compare(english, korean.replace(old, new), *names)


def test_anchors_are_githubs():
    assert github_anchor("Task 1: `run_serial`, the whole job") == "task-1-run_serial-the-whole-job"
    assert github_anchor("다섯 단계, 모델과 측정") == "다섯-단계-모델과-측정"


def test_a_missing_twin_or_a_missing_link_is_named(tmp_path):
    lab = tmp_path / "labs" / "09-x"
    lab.mkdir(parents=True)
    (tmp_path / "README.md").write_text("# C\n\n[한국어](README.ko.md)\n\n## Other commands\n")
    (tmp_path / "README.ko.md").write_text("# C\n\n[English](README.md)\n\n## 그 밖의 명령\n")
    (lab / "README.md").write_text(ENGLISH)
    assert korean_twins.check(tmp_path) == ["labs/09-x/README.md: has no Korean twin labs/09-x/README.ko.md"]
    (lab / "README.ko.md").write_text(KOREAN.replace("[English](README.md)", "English"))
    assert korean_twins.check(tmp_path) == ["labs/09-x/README.ko.md: no link to README.md in its first lines"]
    (lab / "README.ko.md").write_text(KOREAN)
    assert korean_twins.check(tmp_path) == []
    assert korean_twins.main(["--root", str(tmp_path)]) == 0


def test_slide_figures_may_span_lines_and_tilde_fences_hold_code():
    english = (
        "## Where\n\n![The job,\nserially. 2026-11-30.](labs/05-x/timeline-h200.png){height=72%}\n\n"
        "~~~~ sh\n./course demo   # ```\n~~~~\n"
    )
    korean = (
        "## 어디로\n\n![같은 일을\n차례로. 2026-11-30.](labs/05-x/timeline-h200.png){height=72%}\n\n"
        "~~~~ sh\n./course demo   # ```\n~~~~\n"
    )
    assert compare(english, korean, "slides/00-x.md", "slides/ko/00-x.md") is None
    smaller = korean.replace("{height=72%}", "{height=60%}")
    assert "figure 1 differs" in compare(english, smaller, "slides/00-x.md", "slides/ko/00-x.md")
    translated = korean.replace("# ```", "# 데모")
    assert "code block 1 differs" in compare(english, translated, "slides/00-x.md", "slides/ko/00-x.md")


def test_every_korean_page_is_in_step_with_its_english_twin():
    problems = korean_twins.check(ROOT)
    assert not problems, "\n".join(problems)
