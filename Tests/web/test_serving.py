#!/usr/bin/env python3
# This source file is part of the Switchboard open source project
# SPDX-License-Identifier: Apache-2.0
"""The hub serving a web root to Chromium (the fixture Tests/web/fixture, not the app): the module script runs
under the Content-Security-Policy with no console errors, a reload revalidates with 304s, JavaScript comes
gzipped, axe finds nothing serious, and the harness notices a CSP violation.

    SWITCHBOARD_TEST_DATABASE_URL=... python3 Tests/web/test_serving.py [-k NAME]
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402
from harness import axe_check, screenshot, test  # noqa: E402


def load(env, name="reader"):
    page = env.new_page(name)
    response = page.goto(env.url)
    page.wait_for_selector("body[data-ready='yes']")
    return page, response


@test
def the_module_runs_under_the_csp(env):
    page, response = load(env)
    assert response.status == 200, response.status
    headers = response.headers
    assert "script-src 'self'" in headers.get("content-security-policy", ""), headers
    assert headers.get("x-content-type-options") == "nosniff", headers
    assert page.text_content("#status").startswith("Ready:"), page.text_content("#status")
    env.expect_clean(page)
    screenshot(page, "fixture")


@test
def a_reload_revalidates_with_304s(env):
    page, first = load(env)
    etag = first.headers["etag"]
    page.sb_responses.clear()
    page.sb_requests.clear()
    page.reload()
    page.wait_for_selector("body[data-ready='yes']")
    statuses = {url.removeprefix(env.url.rstrip("/")): status for url, status in page.sb_responses}
    # The document: Chromium asked with its tag (it reports the 304 it got as 200), and the hub answers that
    # request with 304.
    asked = {url.removeprefix(env.url.rstrip("/")): headers for url, headers in page.sb_requests}
    assert asked["/"].get("if-none-match") == etag, asked["/"]
    assert harness.http_get(env.url, {"If-None-Match": etag})[0] == 304
    assert statuses.get("/js/app.js") == 304, statuses
    assert statuses.get("/css/site.css") == 304, statuses
    env.expect_clean(page)


@test
def javascript_comes_gzipped(env):
    page = env.new_page("gzip")
    seen = {}
    page.on("response", lambda r: seen.setdefault(r.url.removeprefix(env.url.rstrip("/")), r.all_headers()))
    page.goto(env.url)
    page.wait_for_selector("body[data-ready='yes']")
    script = seen.get("/js/app.js", {})
    assert script.get("content-encoding") == "gzip", script
    assert "accept-encoding" in script.get("vary", "").lower(), script
    assert script.get("content-type") == "text/javascript; charset=utf-8", script
    # The small style sheet is not worth compressing.
    assert "content-encoding" not in seen.get("/css/site.css", {}), seen.get("/css/site.css")
    env.expect_clean(page)


@test
def axe_finds_nothing_serious(env):
    page, _ = load(env, "axe")
    axe_check(page, "fixture")


@test
def the_harness_sees_a_csp_violation(env):
    page, _ = load(env, "csp")
    page.evaluate("""() => {
        const s = document.createElement('script');
        s.textContent = 'window.injected = true';
        document.body.append(s);
    }""")
    harness.wait_for(lambda: any("csp" in p or "Content Security Policy" in p for p in env.problems(page)), 5,
                     "the CSP violation to be recorded")
    assert page.evaluate("window.injected === undefined"), "the inline script ran"
    try:
        env.expect_clean(page)
    except AssertionError:
        return
    raise AssertionError("expect_clean did not fail on a CSP violation")


if __name__ == "__main__":
    harness.main(web_root=harness.FIXTURE_ROOT, time_limit=120)
