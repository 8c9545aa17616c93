"""The yaml mutator's list of unreachable mutants (tools/yaml_mutation_unreachable.txt) names real
mutants of derivatives.yaml, each with a reason: a renamed entry or formula must not leave a stale line
that hides nothing, and a line must say why its mutant cannot be reached."""
from pathlib import Path

import yaml

from ndgrad.derivatives import loader

ROOT = Path(__file__).resolve().parent.parent
UNREACHABLE = ROOT / "tools" / "yaml_mutation_unreachable.txt"


def _mutant_ids():
    """Every mutant id the mutator makes (op:formula key:kind), as tools/yaml_mutation.py names them."""
    ids = set()
    for entry in yaml.safe_load(Path(loader.YAML_PATH).read_text()):
        # (per dispatch key: the Default's formulas under the op's name, the others' under "op@key")
        for dispatch_key, item in entry.get("dispatch", {"Default": entry}).items():
            op = loader.Entry(entry["name"], 0).op_name + ("" if dispatch_key == "Default" else f"@{dispatch_key}")
            for key in item:
                if key in ("name", "output_differentiability", "node_name", "save_whole"):
                    continue
                kinds = ("delete",) if key == "result" and item[key] in loader.FORWARD_SHORTCUTS else \
                    ("neg", "zero", "delete") if key == "result" else ("neg", "zero")
                key = ",".join(k.strip() for k in key.split(","))
                ids.update(f"{op}:{key}:{kind}" for kind in kinds)
    return ids


def test_unreachable_mutants_exist_and_give_a_reason():
    lines = [line for line in UNREACHABLE.read_text().splitlines() if line.strip() and not line.startswith("#")]
    assert lines, "the list is empty: delete the file and its reader instead"
    ids = _mutant_ids()
    assert "mul.Tensor:self:neg" in ids and "_foreach_mul.List:self,other:zero" in ids   # the naming read here
    for line in lines:
        mid, _, reason = line.partition(" ")
        assert mid in ids, f"{mid} is not a mutant of derivatives.yaml"
        assert len(reason.split()) >= 5, f"{mid}: give the reason it cannot be reached"
