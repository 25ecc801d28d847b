"""The student's loop without a GPU (issue 56): a build folder of another course folder is configured
again, not built from the other folder's sources."""

from pathlib import Path

from coursecli import build


def test_a_build_folder_configured_for_another_course_folder_is_configured_again(tmp_path, monkeypatch, capsys):
    folder = tmp_path / "build-ci"
    (folder / "labs" / "CMakeFiles" / "lab01_yours.dir").mkdir(parents=True)
    (folder / "labs" / "CMakeFiles" / "lab01_yours.dir" / "null_stream.cu.o").write_text("old object")
    (folder / "results").mkdir()
    (folder / "results" / "last-check.json").write_text("{}")
    (folder / "Makefile").write_text("all:\n")
    (folder / "CMakeCache.txt").write_text("CMAKE_HOME_DIRECTORY:INTERNAL=/somewhere/else/course\n")
    commands = []
    monkeypatch.setattr(build, "build_dir", lambda preset: folder)
    monkeypatch.setattr(build, "run", lambda command, **kw: commands.append(command))

    build.configure("ci")

    assert commands and commands[0][:3] == ["cmake", "--preset", "ci"], "the build folder was not configured again"
    assert not (folder / "labs" / "CMakeFiles").exists(), "objects compiled from the other folder's sources remain"
    assert (folder / "results" / "last-check.json").is_file(), "the student's results were removed"
    said = capsys.readouterr().out
    assert "/somewhere/else/course" in said and "moved or copied" in said


def test_a_build_folder_of_this_course_folder_is_left_as_it_is(tmp_path, monkeypatch):
    folder = tmp_path / "build-ci"
    folder.mkdir()
    (folder / "Makefile").write_text("all:\n")
    (folder / "CMakeCache.txt").write_text(f"CMAKE_HOME_DIRECTORY:INTERNAL={build.ROOT}\n")
    commands = []
    monkeypatch.setattr(build, "build_dir", lambda preset: folder)
    monkeypatch.setattr(build, "run", lambda command, **kw: commands.append(command))

    build.configure("ci")

    assert commands == [] and (folder / "CMakeCache.txt").is_file()
