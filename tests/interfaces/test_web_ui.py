"""The operators' web UI in a real browser: Debian's Chromium driven by Playwright against the real server
(uvicorn on a free port, a temporary store, the bundled embedder).

Screenshots go to ``test-artifacts/web-ui/``. ``MEMSCRIBE_UPDATE_UI_SCREENSHOT=1`` also refreshes
``docs/ui.png`` (the README's picture of the memory browser).
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from pathlib import Path

import httpx
import pytest

from memscribe.config import Settings
from memscribe.interfaces.server import create_app
from memscribe.interfaces.server.keys import KeyStore, keys_path

os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
CHROMIUM = os.environ.get("MEMSCRIBE_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "web-ui"

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright (python) is not installed")
pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists(), reason=f"chromium not found at {CHROMIUM}: run .ci/setup-chromium.sh"
)

BANK = "From now on send the refunds to my bank account ending 4411."


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    """The real server in a thread, seeded through its own API."""
    import uvicorn

    home = tmp_path_factory.mktemp("ui-home")
    s = Settings(home=home)
    ks = KeyStore(keys_path(s))
    _, key = ks.create("acme")
    _, other = ks.create("globex")
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(s), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "server did not start"
        time.sleep(0.05)
    base = f"http://127.0.0.1:{port}"
    api = httpx.Client(base_url=base, headers={"Authorization": f"Bearer {key}"}, timeout=30)
    seed = [
        ("I prefer window seats on long flights.", "2026-05-02T09:00:00+08:00"),
        ("I'm allergic to peanuts, please remember that.", "2026-05-03T12:00:00+08:00"),
        ("I have a dentist appointment on June 12 at 3pm.", "2026-05-20T10:00:00+08:00"),
        ("I prefer tea over coffee in the morning.", "2026-05-21T08:00:00+08:00"),
        ("My daughter Mia starts school in September.", "2026-05-22T19:00:00+08:00"),
        ("我喜欢靠窗的座位，坐高铁的时候尤其如此。", "2026-05-23T09:00:00+08:00"),
    ]
    for text, at in seed:
        r = api.post("/v1/memories", json={"messages": text, "user_id": "ann", "at": at, "session_id": "s1"})
        assert r.status_code == 200, r.text
    r = api.post("/v1/memories", json={"messages": BANK, "user_id": "ann"})
    assert r.json()["items"][0]["action"] == "review", r.text
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    yield {"base": base, "key": key, "other": other, "api": api}
    api.close()
    server.should_exit = True
    thread.join(timeout=30)


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        yield b
        b.close()


def _login(browser, live, key=None):
    ctx = browser.new_context(viewport={"width": 1280, "height": 860})
    page = ctx.new_page()
    external: list[str] = []
    page.on("request", lambda req: external.append(req.url) if not req.url.startswith(live["base"]) else None)
    page.goto(live["base"] + "/ui/users/ann")
    assert "/ui/login" in page.url  # no cookie: the login page, remembering where we were going
    page.fill("#key", key or live["key"])
    page.click("button[type=submit]")
    page.wait_for_load_state()
    return ctx, page, external


def test_search_and_browse(browser, live):
    ctx, page, external = _login(browser, live)
    assert page.url.endswith("/ui/users/ann")
    rows = page.locator("table.memories tbody tr")
    assert rows.count() >= 5
    page.select_option("select[name=kind]", "preference")
    page.click("form.filters button[type=submit]")
    page.wait_for_url(
        "**kind=preference**"
    )  # reading the table before the filtered page loads sees the old one
    page.wait_for_load_state()
    kinds = page.locator("table.memories tbody td .tag").all_inner_texts()
    assert kinds and set(kinds) == {"preference"}
    page.goto(live["base"] + "/ui/users/ann")
    page.fill("input[name=q]", "which seat does she like on a plane?")
    page.click("form.filters button[type=submit]")
    page.wait_for_url("**q=**")
    page.wait_for_load_state()
    first = page.locator("table.memories tbody tr").first
    assert "window seats" in first.inner_text()
    page.goto(live["base"] + "/ui/users/ann")
    page.set_viewport_size({"width": 1280, "height": 520})
    page.screenshot(path=str(ARTIFACTS / "browser.png"), full_page=True)
    if os.environ.get("MEMSCRIBE_UPDATE_UI_SCREENSHOT") == "1":
        (ROOT / "docs").mkdir(exist_ok=True)
        shutil.copy(ARTIFACTS / "browser.png", ROOT / "docs" / "ui.png")
    assert external == [], f"the UI loaded something from outside: {external}"
    ctx.close()


def test_edit_creates_a_version_and_rollback_restores_it(browser, live):
    ctx, page, _ = _login(browser, live)
    page.click("text=prefers tea over coffee")
    page.wait_for_url("**/ui/memories/*")
    mid = page.url.rsplit("/", 1)[-1]
    assert page.inner_text("#version") == "1"
    assert page.locator("table.audit tbody tr").count() >= 1  # why is this remembered

    page.fill("#edit-text", "Ann prefers green tea over coffee in the morning.")
    page.fill("input[name=reason]", "she corrected it")
    page.click("form.edit button[type=submit]")
    page.wait_for_load_state()
    assert "Saved as a new version" in page.inner_text(".flash")
    assert page.inner_text("#memtext") == "Ann prefers green tea over coffee in the morning."
    assert page.inner_text("#version") == "2"
    newest = page.locator("#versions li").first
    assert newest.get_attribute("data-version") == "2" and "she corrected it" in newest.inner_text()
    assert "green" in " ".join(newest.locator("ins").all_inner_texts())  # the diff against v1
    assert "The user" in " ".join(newest.locator("del").all_inner_texts())
    page.screenshot(path=str(ARTIFACTS / "memory-edited.png"), full_page=True)

    page.click("#versions li[data-version='1'] button")
    page.wait_for_load_state()
    assert "Rolled back" in page.inner_text(".flash")
    assert "green" not in page.inner_text("#memtext") and "tea" in page.inner_text("#memtext")
    assert page.inner_text("#version") == "3"
    rec = live["api"].get(f"/v1/memories/{mid}").json()
    assert rec["version"] == 3 and rec["text"] == page.inner_text("#memtext")
    ctx.close()


def test_review_queue_approve_with_edit(browser, live):
    ctx, page, _ = _login(browser, live)
    page.goto(live["base"] + "/ui/review")
    card = page.locator("section.review").filter(has_text="4411")
    assert card.count() == 1 and "money" in card.inner_text()
    mid = card.get_attribute("data-id")
    page.screenshot(path=str(ARTIFACTS / "review.png"), full_page=True)
    card.locator("textarea[name=text]").fill("Refunds go to the user's bank account ending 4412.")
    card.locator("button", has_text="Approve").click()
    page.wait_for_load_state()
    assert "Approved" in page.inner_text(".flash")
    assert page.locator(f"section.review[data-id='{mid}']").count() == 0
    rec = live["api"].get(f"/v1/memories/{mid}").json()
    assert rec["status"] == "active" and rec["text"].endswith("4412.")
    hits = live["api"].post("/v1/search", json={"query": "where do refunds go?", "user_id": "ann"}).json()
    assert mid in [h["memory"]["id"] for h in hits["hits"]]
    ctx.close()


def test_archive_restore_stats_and_guards(browser, live):
    ctx, page, _ = _login(browser, live)
    page.click("text=dentist appointment")
    page.wait_for_url("**/ui/memories/*")
    page.click("button:has-text('Archive')")
    page.wait_for_load_state()
    assert page.inner_text("#status") == "archived"
    page.click("button:has-text('Restore')")
    page.wait_for_load_state()
    assert page.inner_text("#status") == "active"
    edit_url = page.url.split("?")[0] + "/edit"

    # a form post without the page's CSRF token is refused, and nothing changes
    r = ctx.request.post(edit_url, form={"text": "forged"}, max_redirects=0)
    assert r.status == 403
    page.reload()
    assert "forged" not in page.inner_text("#memtext")

    page.goto(live["base"] + "/ui/stats")
    page.screenshot(path=str(ARTIFACTS / "stats.png"), full_page=True)
    assert page.locator("svg.chart").count() == 4  # growth, kinds, statuses, latency
    ctx.close()

    # another tenant's key sees none of this tenant's users or memories
    ctx2, page2, _ = _login(browser, live, key=live["other"])
    page2.goto(live["base"] + "/ui/")
    assert "ann" not in page2.locator("main").inner_text().split()
    page2.goto(edit_url.rsplit("/", 1)[0])
    assert "404" in page2.inner_text("h1")
    ctx2.close()


def test_every_page_fits_a_390_px_phone_without_horizontal_scrolling(browser, live):
    """At a phone's width (390 CSS px) no page is wider than the screen: the header wraps and wide tables
    scroll inside their own box instead of the page."""
    ctx, page, _ = _login(browser, live)
    page.set_viewport_size({"width": 390, "height": 844})
    page.click("text=dentist appointment")
    page.wait_for_url("**/ui/memories/*")
    memory_url = page.url
    too_wide = {}
    for url in [
        live["base"] + "/ui/",
        live["base"] + "/ui/users/ann",
        live["base"] + "/ui/users/ann?q=window+seat",
        memory_url,
        live["base"] + "/ui/review",
        live["base"] + "/ui/stats",
    ]:
        page.goto(url)
        page.wait_for_load_state()
        width = page.evaluate("document.documentElement.scrollWidth")
        if width > 390:
            too_wide[url] = width
    page.screenshot(path=str(ARTIFACTS / "phone-390.png"), full_page=True)
    ctx.close()
    login = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    login.goto(live["base"] + "/ui/login")
    if (w := login.evaluate("document.documentElement.scrollWidth")) > 390:
        too_wide["login"] = w
    login.context.close()
    assert not too_wide, too_wide


def test_the_stylesheet_names_cjk_fonts_for_chinese_text(live):
    """Chinese memories render in a CJK face where one is installed (macOS, Windows, Linux Noto / WenQuanYi)."""
    css = httpx.get(live["base"] + "/ui/static/style.css").text
    stack = css.split("html {", 1)[1].split("}", 1)[0]
    for face in ("PingFang SC", "Microsoft YaHei", "Noto Sans CJK SC", "WenQuanYi Micro Hei"):
        assert face in stack


def test_swagger_docs_render_offline(browser, live):
    """/docs in a real browser: every request stays on the server (assets from the swagger-ui-bundle-v2
    package), and Swagger UI renders the spec's operations, Mem0's routes among them."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 860})
    page = ctx.new_page()
    external: list[str] = []
    page.on("request", lambda req: external.append(req.url) if not req.url.startswith(live["base"]) else None)
    page.route(
        "**/*",
        lambda route: route.continue_() if route.request.url.startswith(live["base"]) else route.abort(),
    )
    page.goto(live["base"] + "/docs")
    page.wait_for_selector(".opblock", timeout=20_000)
    paths = page.locator(".opblock-summary-path").all_inner_texts()
    assert any(p.startswith("/v1/memories") for p in paths) and "/search" in paths
    page.screenshot(path=str(ARTIFACTS / "docs.png"))
    assert external == [], f"/docs loaded something from outside: {external}"
    ctx.close()
