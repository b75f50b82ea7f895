"""Self-contained HTML report for `quickening watch --html DIR`.

Writes ``DIR/index.html``: one file with the data (the JSON report plus the
source of each file that has sites), CSS and JavaScript inlined, so it opens
from disk with no server and no network.  Each module's source is shown with
every site marked by its state; hovering a site shows a summary, clicking it
opens the details with a picture of its history (counter value over time on
bands coloured by form, re-targetings marked with the class cached).
"""

import html as _html
import json
import os

from quickening.lens.report import to_json

_STATIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_html")


def _read(name):
    with open(os.path.join(_STATIC, name), encoding="utf-8") as f:
        return f.read()


def build_html(report, argv=None, exit_status=None, wall=None, code_text=None,
               max_history=3000):
    data = to_json(report, argv=argv, exit_status=exit_status, wall=wall)
    for s in data["sites"]:
        h = s["history"]
        if len(h) > max_history:       # keep first/last, thin the middle
            step = len(h) / float(max_history)
            s["history"] = [h[int(i * step)] for i in range(max_history - 1)] + [h[-1]]
            s["history_thinned"] = len(h)
    files = {}
    for s in data["sites"]:
        fn = s["file"]
        if fn in files:
            continue
        text = None
        if fn == "<string>" and code_text is not None:
            text = code_text
        elif not fn.startswith("<"):
            try:
                with open(fn, encoding="utf-8", errors="replace") as f:
                    text = f.read()
            except OSError:
                text = None
        files[fn] = text.splitlines() if text is not None else None
    data["files"] = files
    payload = json.dumps(data).replace("</", "<\\/")
    title = "quickening watch — %s" % " ".join(argv or [])
    return (_read("report.html")
            .replace("{{TITLE}}", _html.escape(title))
            .replace("{{CSS}}", _read("report.css"))
            .replace("{{JS}}", _read("report.js"))
            .replace("{{DATA}}", payload))


def write_html(report, directory, **kw):
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, "index.html")
    with open(path, "w", encoding="utf-8") as f:
        f.write(build_html(report, **kw))
    return path
