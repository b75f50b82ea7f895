"""What the measuring machine is and how busy it is, read at run time."""

import datetime
import os
import platform
import socket


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def load_average():
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (OSError, AttributeError):
        return None


def fmt_load(load) -> str:
    """'0.52 0.40 0.33' (1, 5 and 15 minute load averages) or 'unknown'."""
    if not load:
        return "unknown"
    return " ".join(f"{x:.2f}" for x in load)


def busy_note(record) -> str | None:
    """A warning when the machine was busy while a record was measured."""
    cores = (record.get("machine") or {}).get("cores") or 1
    loads = [(record.get("machine") or {}).get("load_average"),
             (record.get("machine_end") or {}).get("load_average")]
    loads += [r.get("load_average") for r in record.get("runs") or []]
    peak = max((x[0] for x in loads if x), default=None)
    if peak is None or peak <= 0.75 * cores:
        return None
    return (f"the machine was busy (1-minute load up to {peak:.2f} on {cores} cores): other "
            "work shared the CPUs, so ranges are wide and claims are fewer; measure again "
            "when it is quiet")


def usable_cores():
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count()


def now_utc() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def describe_machine() -> dict:
    return {
        "cpu_model": cpu_model(),
        "cores": os.cpu_count(),
        "usable_cores": usable_cores(),
        "load_average": load_average(),
        "platform": platform.platform(),
        "hostname": socket.gethostname(),
        "date": now_utc(),
    }
