"""The grader graded by itself: sample submissions that exercise it (make_grading_samples,
isolation_samples, catalogue), the checks that grade them and compare with what each must score
(selfgrade, python_selfgrade, check_sanitizer_samples), what the sandbox costs
(measure_sandbox) and how long a class's batch takes (measure_batch). Each runs as `python -m selfgrading.NAME`:
.venv's Python has them from `course setup`; a python3 without .venv runs them from tools/ (`cd tools`)."""
