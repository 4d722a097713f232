"""The example notebook runs: its code cells executed in order, as Jupyter would from
the examples folder, with matplotlib's non-interactive backend."""

import matplotlib
import nbformat

from conftest import REPO

NOTEBOOK = REPO / "examples" / "resample_study.ipynb"


def test_resample_study_notebook_runs(kth, monkeypatch):
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    monkeypatch.chdir(NOTEBOOK.parent)
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    cells = [c for c in notebook.cells if c.cell_type == "code"]
    assert cells and all(not c.get("outputs") for c in cells), "keep outputs out of the notebook"
    scope = {"__name__": "__main__"}
    for cell in cells:
        exec(compile(cell.source, f"{NOTEBOOK.name} cell", "exec"), scope)
    study = scope["study"]
    assert set(study.scheduler) == {"fcfs", "easy"}
    assert len(study) == 2 * len(scope["populations"]) * 3
    throughput = study[(study.metric == "jobs_per_week") & (study.scheduler == "easy")]
    # More users submit more jobs.
    assert throughput["mean"].iloc[-1] > throughput["mean"].iloc[0]
    assert len(plt.gcf().axes) == 3
