"""Open the HTML report in a real headless Chromium and check what a person
sees: sites marked by state, details on hover and click, a history picture,
no script errors."""
import json
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # noqa: E402
from lens_helpers import PYTHONS, program, run_watch

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
        "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


def test_html_report_in_chromium(tmp_path):
    if not os.path.exists(CHROMIUM):
        pytest.fail("%s is missing: run `bash scripts/ensure-chromium.sh` "
                    "(installs Debian's chromium)" % CHROMIUM)
    from playwright.sync_api import sync_playwright

    py = PYTHONS.get("3.13") or PYTHONS.get("3.12") or PYTHONS.get("3.11")
    html_dir = tmp_path / "html"
    r = run_watch(["--python", py, "--interval", "2", "--html", str(html_dir),
                   "--json", str(tmp_path / "r.json"), "--quiet",
                   program("retarget.py"), "0.01"])
    assert r.returncode == 0, r.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    index = html_dir / "index.html"
    assert index.exists()
    assert os.listdir(html_dir) == ["index.html"]  # self-contained

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            errors = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            requests = []
            page.on("request", lambda req: requests.append(req.url))
            page.goto(index.as_uri())
            page.wait_for_function("window.__lensReady === true", timeout=15000)

            # every site with a line is marked by a badge, coloured by verdict
            with_line = [s for s in report["sites"] if s["line"]]
            assert page.locator(".badge").count() == len(with_line)
            assert page.locator(".site").count() > 0
            assert page.locator(".badge.v-polymorphic").count() == 1
            assert page.locator(".badge.v-specialized").count() > 0
            # the ranked list leads with the polymorphic site, in words
            first = page.locator("ol.findings li").first
            assert "5 classes seen passing through o.x in get()" in first.inner_text()
            assert first.locator("code").all_inner_texts()[:2] == ["o.x", "get()"]

            # hover: a tooltip with the classes
            badge = page.locator(".badge.v-polymorphic")
            badge.scroll_into_view_if_needed()
            badge.hover()
            tip = page.locator("#tip")
            assert tip.is_visible()
            assert "classes:" in tip.inner_text()
            assert "re-targeted" in tip.inner_text()

            # click: details with the history picture
            page.locator(".badge.v-specialized").first.click()
            badge.click()
            details = page.locator("#details")
            text = details.inner_text()
            assert "LOAD_ATTR_INSTANCE_VALUE" in text and "polymorphic" in text
            assert page.locator("#details svg.history").is_visible()
            assert page.locator("#details svg.history path.counter").count() == 1
            site = [s for s in report["sites"] if s["verdict"] == "polymorphic"][0]
            ticks = page.locator("#details svg.history line.tick").count()
            assert ticks >= site["retargets"]
            box = page.locator("#details svg.history").bounding_box()
            assert box["width"] > 200 and box["height"] > 80
            page.screenshot(path=str(tmp_path / "report.png"), full_page=True)
            assert errors == []
            assert all(u.startswith("file:") or u.startswith("data:") for u in requests)
        finally:
            browser.close()
