"""Executes every research notebook top to bottom in the small budget (KA_NOTEBOOK_BUDGET=small).

The notebooks run from temporary copies (the committed files, with their full-budget outputs, are
never modified); each must finish without error and produce its figures and tables.
"""

import os
import shutil
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"

# What each notebook must show: (minimum number of figures, strings that must appear in its text output).
EXPECTED = {
    "01_quickstart.ipynb": (1, ["game over after", "decisions/s", "trained", "win%"]),
    "02_nothing_fits_risk.ipynb": (7, ["inside per-state 99%", "best threshold", "call ok %", "legal-call decisions",
                                       "exact p bin", "reliability diagram"]),
    "03_agents.ipynb": (2, ["win%", "pairings", "mean head-to-head win rate"]),
    "04_gap.ipynb": (0, ["game over after", "win%", "decisions/s"]),
    "05_dnp.ipynb": (0, ["win%", "decisions/s"]),
}


def _kernel_name() -> str:
    """The kernel to use: python3, pointing at this interpreter (jupyter_client runs a spec whose argv
    starts with "python" with sys.executable)."""
    from jupyter_client.kernelspec import KernelSpecManager

    specs = KernelSpecManager().find_kernel_specs()
    if "python3" not in specs:
        pytest.skip(f"no python3 kernel spec found (have {sorted(specs)}); install ipykernel")
    return "python3"


def _outputs(nb):
    text, figures = [], 0
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                raise AssertionError(f"cell failed: {out.get('ename')}: {out.get('evalue')}")
            if out.get("output_type") == "stream":
                text.append(out.get("text", ""))
            data = out.get("data", {})
            if "image/png" in data:
                figures += 1
            if "text/plain" in data:
                text.append(data["text/plain"])
    return "\n".join(text), figures


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_notebook_runs_in_small_budget(name, tmp_path, monkeypatch):
    source = NOTEBOOKS / name
    assert source.exists(), f"missing notebook {source}"
    work = tmp_path / "notebooks"
    work.mkdir()
    shutil.copy(source, work / name)
    shutil.copy(NOTEBOOKS / "research.py", work / "research.py")
    nb = nbformat.read(work / name, as_version=4)
    for cell in nb.cells:  # start from a clean notebook, whatever outputs were committed
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    monkeypatch.setenv("KA_NOTEBOOK_BUDGET", "small")
    monkeypatch.delenv("KA_PPO_CHECKPOINT", raising=False)
    monkeypatch.delenv("KA_PPO_CHECKPOINT_2P", raising=False)
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    # The kernel must import the project: put the repository root on its path.
    root = str(NOTEBOOKS.parent)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH", "")])))
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name=_kernel_name(),
                                     resources={"metadata": {"path": str(work)}})
    client.execute()
    text, figures = _outputs(nb)
    assert "budget: small" in text
    min_figures, needles = EXPECTED[name]
    assert figures >= min_figures, f"{name}: {figures} figures, expected at least {min_figures}"
    for needle in needles:
        assert needle in text, f"{name}: {needle!r} missing from the outputs"
    # The committed notebook is untouched.
    assert nbformat.read(source, as_version=4).cells[0].source == nb.cells[0].source
