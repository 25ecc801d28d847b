"""The pipeline model's formulas and the step-by-step simulation of streams and engines."""

import random

import pytest
from streamlab_tools.model import LinkSharing, issue_order, makespan, pipeline_model, simulate_pipeline


def test_model_for_three_equal_stages_two_engines():
    model = pipeline_model(3.0, 3.0, 3.0, chunks=3, copy_engines=2)
    # h = k = d = 1: three stages for the first chunk, then one step per further chunk.
    assert model["serial"] == pytest.approx(9.0)
    assert model["ideal"] == pytest.approx(1 + 1 + 1 + 2 * 1)
    assert model["bound"] == pytest.approx(3.0)
    assert model["speedup"] == pytest.approx(9.0 / 5.0)


def test_model_for_one_engine_paces_copies_as_h_plus_d():
    model = pipeline_model(3.0, 3.0, 3.0, chunks=3, copy_engines=1)
    assert model["ideal"] == pytest.approx(1 + 1 + 1 + 2 * (1 + 1))
    assert model["bound"] == pytest.approx(6.0)  # H2D + D2H on the one engine


def test_one_chunk_is_serial():
    model = pipeline_model(2.0, 5.0, 1.0, chunks=1, copy_engines=2)
    assert model["ideal"] == pytest.approx(model["serial"])
    assert model["speedup"] == pytest.approx(1.0)


def test_model_approaches_bound_with_many_chunks():
    for engines in (1, 2):
        models = [pipeline_model(4.0, 2.0, 3.0, n, engines) for n in (1, 10, 100, 1000)]
        gaps = [model["ideal"] / model["bound"] - 1 for model in models]
        assert gaps == sorted(gaps, reverse=True)
        assert gaps[-1] < 0.01


def test_zero_stage_times_give_speedup_one():
    assert pipeline_model(0.0, 0.0, 0.0, 4, 2)["speedup"] == 1.0


@pytest.mark.parametrize(
    "arguments",
    [(-1.0, 1.0, 1.0, 3, 2), (1.0, 1.0, 1.0, 0, 2), (1.0, 1.0, 1.0, 3, 0)],
)
def test_model_rejects_impossible_arguments(arguments):
    with pytest.raises(ValueError):
        pipeline_model(*arguments)


def test_simulation_rejects_impossible_arguments():
    with pytest.raises(ValueError):
        simulate_pipeline(1.0, 1.0, 1.0, chunks=3, streams=0, copy_engines=2)
    with pytest.raises(ValueError):
        simulate_pipeline(1.0, 1.0, 1.0, chunks=3, streams=3, copy_engines=2, order="random")


def test_issue_orders():
    # Chunks are numbered from 0, as model.cpp numbers them; their names from 1, as the article's.
    assert issue_order(2, "chunk") == [(0, "H2D"), (0, "K"), (0, "D2H"), (1, "H2D"), (1, "K"), (1, "D2H")]
    assert issue_order(2, "stage") == [(0, "H2D"), (1, "H2D"), (0, "K"), (1, "K"), (0, "D2H"), (1, "D2H")]


def test_three_chunks_three_streams_two_engines_is_the_five_step_schedule():
    schedule = simulate_pipeline(3.0, 3.0, 3.0, chunks=3, streams=3, copy_engines=2)
    steps = {}
    for op in schedule:
        assert op.end - op.start == pytest.approx(1.0)
        steps.setdefault(round(op.start) + 1, set()).add(op.name)
    assert steps == {
        1: {"H2D_1"},
        2: {"K_1", "H2D_2"},
        3: {"D2H_1", "K_2", "H2D_3"},
        4: {"D2H_2", "K_3"},
        5: {"D2H_3"},
    }
    assert makespan(schedule) == pytest.approx(pipeline_model(3.0, 3.0, 3.0, 3, 2)["ideal"])
    assert [op.stream for op in schedule if op.stage == "H2D"] == [0, 1, 2]


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("order", ["chunk", "stage"])
def test_two_engines_with_a_stream_per_chunk_reach_the_ideal(seed, order):
    rng = random.Random(seed)
    h2d, kernel, d2h = (rng.uniform(0.1, 10.0) for _ in range(3))
    chunks = rng.randint(1, 12)
    schedule = simulate_pipeline(h2d, kernel, d2h, chunks, streams=chunks, copy_engines=2, order=order)
    assert makespan(schedule) == pytest.approx(pipeline_model(h2d, kernel, d2h, chunks, 2)["ideal"])


def test_one_engine_chunk_order_is_slower_than_stage_order():
    # D2H_1 is issued to the one copy engine before H2D_2, so H2D_2 waits behind it.
    chunk_order = simulate_pipeline(3.0, 3.0, 3.0, chunks=3, streams=3, copy_engines=1, order="chunk")
    stage_order = simulate_pipeline(3.0, 3.0, 3.0, chunks=3, streams=3, copy_engines=1, order="stage")
    assert makespan(chunk_order) > makespan(stage_order)
    by_name = {op.name: op for op in chunk_order}
    assert by_name["H2D_2"].start >= by_name["D2H_1"].end


def test_many_chunks_approach_the_bound():
    bound = pipeline_model(4.0, 2.0, 3.0, 1, 2)["bound"]
    schedules = [simulate_pipeline(4.0, 2.0, 3.0, n, streams=n, copy_engines=2) for n in (1, 4, 64, 512)]
    gaps = [makespan(schedule) / bound - 1 for schedule in schedules]
    assert gaps == sorted(gaps, reverse=True)
    assert gaps[-1] < 0.01


@pytest.mark.parametrize("seed", range(20))
def test_schedules_respect_streams_units_and_bounds(seed):
    rng = random.Random(seed)
    h2d, kernel, d2h = (rng.uniform(0.0, 10.0) for _ in range(3))
    chunks, streams, engines = rng.randint(1, 10), rng.randint(1, 4), rng.choice([1, 2, 3])
    order = rng.choice(["chunk", "stage"])
    schedule = simulate_pipeline(h2d, kernel, d2h, chunks, streams, engines, order)
    assert len(schedule) == 3 * chunks
    assert all(op.stream == op.chunk % streams for op in schedule)

    def never_overlap(ops):
        return all(earlier.end <= later.start + 1e-9 for earlier, later in zip(ops, ops[1:]))

    # A stream runs its ops one after another, in issue order.
    for stream in range(streams):
        assert never_overlap([op for op in schedule if op.stream == stream])
    # Each unit runs one op at a time, in the order the ops were issued to it.
    copy_units = [("H2D",), ("D2H",)] if engines >= 2 else [("H2D", "D2H")]
    for stages in copy_units + [("K",)]:
        assert never_overlap([op for op in schedule if op.stage in stages])
    model = pipeline_model(h2d, kernel, d2h, chunks, engines)
    assert model["bound"] - 1e-9 <= makespan(schedule) <= model["serial"] + 1e-9


def test_first_chunk_is_chunk_0_named_1():
    first = simulate_pipeline(3.0, 3.0, 3.0, chunks=3, streams=3, copy_engines=2)[0]
    assert (first.chunk, first.stream, first.name) == (0, 0, "H2D_1")


def test_a_shared_link_slows_copies_that_overlap():
    # Copies only, both directions equally long, many chunks: H2D and D2H of different
    # chunks copy at the same time almost throughout. Each keeping half its speed, the
    # pipeline takes about as long as both directions one after the other.
    ideal = makespan(simulate_pipeline(4.0, 0.0, 4.0, 64, streams=64, copy_engines=2))
    shared = makespan(simulate_pipeline(4.0, 0.0, 4.0, 64, streams=64, copy_engines=2, link=LinkSharing(0.5, 0.5)))
    assert ideal == pytest.approx(4.0 + 4.0 / 64)
    assert shared > 1.9 * ideal
    assert shared <= 8.0 + 1e-9  # never slower than no overlap at all


def test_a_shared_link_costs_nothing_without_overlapping_copies():
    # One chunk, or one copy engine: H2D and D2H never run together.
    link = LinkSharing(0.3, 0.6)
    for chunks, engines in ((1, 2), (8, 1)):
        alone = simulate_pipeline(2.0, 3.0, 1.0, chunks, streams=chunks, copy_engines=engines)
        shared = simulate_pipeline(2.0, 3.0, 1.0, chunks, streams=chunks, copy_engines=engines, link=link)
        assert [t for op in shared for t in (op.start, op.end)] == pytest.approx(
            [t for op in alone for t in (op.start, op.end)]
        )


@pytest.mark.parametrize("link", [LinkSharing(0.0, 1.0), LinkSharing(1.0, 1.5)])
def test_simulation_rejects_impossible_link_sharing(link):
    with pytest.raises(ValueError):
        simulate_pipeline(1.0, 1.0, 1.0, chunks=3, streams=3, copy_engines=2, link=link)
