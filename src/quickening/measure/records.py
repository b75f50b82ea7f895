"""JSON records of every `compare` and `experiment` run.

A record holds what the run was (command line, parameters), what it ran on
(machine, and each interpreter as described from inside its own runs),
every raw timing, and the summary with its spread.  Records live in one
folder: ``--records DIR``, else ``$QUICKENING_RECORDS``, else
``./quickening-records``.  A record's id is its file name without ``.json``;
commands accept an id, a unique prefix of one, a path, or ``latest``.
"""

import datetime
import json
import os
from pathlib import Path
import secrets

from quickening.measure.runner import MeasureError

SCHEMA = "quickening-record/1"
ENV_VAR = "QUICKENING_RECORDS"
DEFAULT_DIR = "quickening-records"


def records_dir(option: str | None = None) -> Path:
    return Path(option or os.environ.get(ENV_VAR) or DEFAULT_DIR)


def new_record(kind: str, name: str, command, params: dict, machine: dict) -> dict:
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%d-%H%M%S")
    rid = f"{stamp}-{name}-{secrets.token_hex(2)}"
    return {"schema": SCHEMA, "id": rid, "kind": kind, "name": name,
            "created": machine.get("date"), "command": list(command),
            "params": params, "machine": machine, "runs": [], "summary": {}}


def save(record: dict, directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{record['id']}.json"
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(record, indent=1, sort_keys=False) + "\n")
    tmp.replace(path)
    return path


def load_path(path: Path) -> dict:
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise MeasureError(f"cannot read record {path}: {exc}") from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise MeasureError(f"{path} is not a quickening record")
    return data


def list_records(directory: Path) -> list:
    """(path, record) for every readable record, oldest first."""
    out = []
    if not directory.is_dir():
        return out
    for path in sorted(directory.glob("*.json")):
        try:
            out.append((path, load_path(path)))
        except MeasureError:
            continue
    out.sort(key=lambda pr: (pr[1].get("created") or "", pr[1].get("id", "")))
    return out


def find(ref: str, directory: Path) -> tuple:
    """Resolve `ref` (path, id, id prefix, 'latest', 'latest-NAME') to (path, record)."""
    p = Path(ref)
    if p.suffix == ".json" and p.is_file():
        return p, load_path(p)
    all_records = list_records(directory)
    if ref == "latest" or ref.startswith("latest-"):
        want = ref[len("latest-"):] if ref != "latest" else None
        matches = [pr for pr in all_records if want is None or pr[1].get("name") == want]
        if not matches:
            raise MeasureError(f"no records{' of ' + want if want else ''} in {directory}")
        return matches[-1]
    exact = [pr for pr in all_records if pr[1].get("id") == ref]
    if exact:
        return exact[0]
    matches = [pr for pr in all_records if pr[1].get("id", "").startswith(ref)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise MeasureError(f"no record {ref!r} in {directory}")
    raise MeasureError(f"{ref!r} matches {len(matches)} records; give more of the id")
