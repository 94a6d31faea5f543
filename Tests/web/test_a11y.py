#!/usr/bin/env python3
# This source file is part of the Switchboard open source project
# SPDX-License-Identifier: Apache-2.0
"""Accessibility tests of the web app (web/): the keyboard alone, 200% zoom and 360 px wide, reactions,
removing a friend.

    SWITCHBOARD_TEST_DATABASE_URL=... python3 Tests/web/test_a11y.py [-k NAME]

Uses the harness (Tests/web/harness.py) and the people of Tests/web/test_app.py. Every wait is bounded.
"""

from playwright.sync_api import expect

import harness
from harness import axe_check, screenshot, test
from test_app import PASSWORD, PRESENCE_GRACE_S, Person, befriend

TAB_LIMIT = 80  # presses of Tab before a control counts as unreachable

# After each key press: the focused control's name (aria-label, its label, or its text), and whether its focus
# shows: the focused look (outline, box shadow) differs from its look once focus has moved on.
_STEP = """() => {
  const look = (e) => { const s = getComputedStyle(e);
    return [s.outlineStyle, s.outlineWidth, s.outlineColor, s.boxShadow].join('|'); };
  const a = document.activeElement;
  let unchanged = null;
  const prev = window.__sbPrev;
  if (prev && prev.el !== a && prev.el.isConnected && look(prev.el) === prev.look) unchanged = prev.name;
  if (!a || a === document.body) { window.__sbPrev = null; return {name: null, unchanged}; }
  const name = (a.getAttribute('aria-label') || (a.labels && a.labels[0] ? a.labels[0].textContent : '')
    || a.textContent || '').trim();
  const s = getComputedStyle(a);
  const shows = (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2) || s.boxShadow !== 'none';
  window.__sbPrev = {el: a, look: look(a), name};
  return {name, tag: a.tagName, shows, unchanged, expanded: a.getAttribute('aria-expanded')};
}"""


class Keys:
    """Drives one page with the keyboard alone, checking after each Tab that the focus is visible."""

    def __init__(self, page):
        self.page = page
        self.visited = []

    def state(self):
        return self.page.evaluate(_STEP)

    def tab_to(self, name, back=False, exact=True):
        """Presses Tab (Shift+Tab with `back`) until the focused control is called `name`."""
        for _ in range(TAB_LIMIT):
            self.page.keyboard.press("Shift+Tab" if back else "Tab")
            s = self.state()
            assert s["unchanged"] is None, f"focus on {s['unchanged']!r} looks the same as without it"
            if s["name"] is None:
                continue
            assert s["shows"], f"no visible focus on {s['name']!r} ({s['tag']})"
            self.visited.append(s["name"])
            if s["name"] == name if exact else name in s["name"]:
                return s
        raise AssertionError(f"{name!r} not reached by {'Shift+' if back else ''}Tab; visited {self.visited[-30:]}")

    def focused(self):
        return self.page.evaluate(
            "() => { const a = document.activeElement; return a ? (a.getAttribute('aria-label') || a.textContent).trim() : null }")

    def type_in(self, name, text):
        self.tab_to(name)
        self.page.keyboard.type(text)


@test
def test_keyboard_alone(env):
    bob = Person(env, "Bob").register()
    ann = Person(env, "Ann")
    page = ann.page
    keys = Keys(page)

    # Register, log out, log in.
    ann.open("#/register")
    expect(page.locator("main[data-screen=register]")).to_be_visible()
    keys.type_in("Phone number", ann.phone)
    keys.type_in("Your name", "Ann")
    keys.type_in("Password", PASSWORD)
    keys.type_in("Password again", PASSWORD)
    keys.tab_to("Create account")
    page.keyboard.press("Enter")
    expect(page.locator("main[data-screen=chats]")).to_be_visible()
    keys.tab_to("Log out")
    page.keyboard.press("Enter")
    expect(page.locator("main[data-screen=login]")).to_be_visible()
    keys.type_in("Phone number", ann.phone)
    keys.type_in("Password", PASSWORD)
    page.keyboard.press("Enter")  # submits the form from its field
    expect(page.locator("main[data-screen=chats]")).to_be_visible()

    # Add Bob by phone; he accepts; open the chat from the friends list.
    keys.tab_to("Friends")
    page.keyboard.press("Enter")
    expect(page.locator("main[data-screen=friends]")).to_be_visible()
    keys.type_in("Their phone number", bob.phone)
    page.keyboard.press("Enter")
    expect(page.get_by_role("button", name="Cancel request to Bob")).to_be_visible()
    bob.accept_friend(ann)
    expect(page.get_by_role("button", name="Send a message to Bob")).to_be_visible()
    keys.tab_to("Send a message to Bob", back=True)
    page.keyboard.press("Enter")
    expect(page.locator("main[data-screen=chat] h1")).to_have_text("Bob")

    # Send a text with Enter; reach its options backwards, open them with Space, react, close with Escape.
    keys.tab_to("Your message")
    page.keyboard.type("Hello by keyboard")
    page.keyboard.press("Enter")
    expect(page.locator("li[data-seq]", has_text="Hello by keyboard")).to_be_visible()
    s = keys.tab_to("Options for the message from You", back=True)
    assert s["expanded"] == "false", s
    page.keyboard.press("Space")
    options = page.locator("li[data-seq]", has_text="Hello by keyboard").locator(".message-actions")
    expect(options).to_be_visible()
    keys.tab_to("React with thumbs up")
    page.keyboard.press("Enter")
    expect(page.locator("li[data-seq]", has_text="Hello by keyboard").locator(".reactions li")).to_have_count(1)
    page.keyboard.press("ArrowRight")  # arrow keys do nothing harmful inside the options
    keys.tab_to("Hide for me")
    screenshot(page, "keyboard-options")
    page.keyboard.press("Escape")
    expect(options).to_be_hidden()
    assert keys.focused() == "Options for the message from You", keys.focused()
    # Escape also closes the options when the focus is still on their button.
    page.keyboard.press("Enter")
    expect(options).to_be_visible()
    page.keyboard.press("Escape")
    expect(options).to_be_hidden()
    assert keys.focused() == "Options for the message from You", keys.focused()
    expect(bob.page.locator("main")).to_be_visible()
    env.expect_clean(page)


# Problems of a screen at the current size: sideways scrolling, clipped text, controls out of sight, text
# under 18 px.
_LAYOUT = """() => {
  const w = innerWidth, out = [];
  const desc = (e) => e.tagName.toLowerCase() + (e.className ? '.' + String(e.className).replace(/ /g, '.') : '')
    + ' "' + (e.getAttribute('aria-label') || e.textContent || '').trim().slice(0, 30) + '"';
  if (document.documentElement.scrollWidth > w) out.push('page is ' + document.documentElement.scrollWidth + ' px wide');
  for (const e of document.querySelectorAll('body *')) {
    const s = getComputedStyle(e);
    if (e.closest('[hidden]') || s.display === 'none' || s.visibility === 'hidden') continue;
    const r = e.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    const field = e.matches('input, textarea, select');
    if (!field && s.overflowX !== 'visible' && e.scrollWidth > e.clientWidth + 1) out.push('cut off or scrolls sideways: ' + desc(e));
    if (!field && s.textOverflow === 'ellipsis') out.push('ellipsis: ' + desc(e));
    if (e.matches('button, a[href], input, textarea, select') && (r.left < -1 || r.right > w + 1)) out.push('out of sight: ' + desc(e));
    const text = [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if ((text || field) && parseFloat(s.fontSize) < 18) out.push(s.fontSize + ' text: ' + desc(e));
  }
  return out;
}"""

SIZES = [
    ("200%", {"viewport": {"width": 640, "height": 400}, "device_scale_factor": 2}),  # 1280x800 at 200%
    ("360px", {"viewport": {"width": 360, "height": 640}}),
]


def check_layout(page, name):
    screenshot(page, name)
    problems = page.evaluate(_LAYOUT)
    assert not problems, f"{name}: " + "; ".join(problems[:10])


@test
def test_zoom_200_and_360_wide(env):
    ann, bob, cleo = Person(env, "Ann").register(), Person(env, "Bob").register(), Person(env, "Cleo").register()
    befriend(ann, bob)
    befriend(ann, cleo)
    ann.go("New group")
    ann.page.get_by_label("Bob", exact=True).check()
    ann.page.get_by_label("Cleo", exact=True).check()
    ann.page.get_by_label("Group name").fill("A rather long group name for a small screen")
    ann.page.get_by_role("button", name="Create group").click()
    expect(ann.page.locator("main[data-screen=chat] h1")).to_contain_text("rather long")
    group = ann.page.evaluate("location.hash")
    ann.send("A message with a long word: Donaudampfschifffahrtsgesellschaftskapitänswitwenrentenversicherung")
    ann.page.get_by_role("button", name="Options for the message from You").last.click()
    ann.page.get_by_role("button", name="React with heart").last.click()
    expect(ann.page.locator(".reactions li")).to_have_count(1)

    for size, options in SIZES:
        page = env.new_page(f"Ann {size}", **options)
        page.goto(env.url)
        for screen in ("login", "register"):
            page.goto(f"{env.url}#/{screen}")
            expect(page.locator(f"main[data-screen={screen}] form")).to_be_visible()
            check_layout(page, f"{screen}-{size}")
            axe_check(page, f"{screen}-{size}")
        page.goto(f"{env.url}#/login")
        page.get_by_label("Phone number").fill(ann.phone)
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Log in").click()
        expect(page.locator("main[data-screen=chats] ul[aria-busy=false] .chat-link").first).to_be_visible()
        check_layout(page, f"chats-{size}")
        axe_check(page, f"chats-{size}")
        page.goto(f"{env.url}{group}")
        expect(page.locator("li[data-seq] .reactions li")).to_have_count(1)
        page.get_by_role("button", name="Options for the message from You").last.click()
        check_layout(page, f"chat-{size}")
        axe_check(page, f"chat-{size}")
        page.get_by_role("link", name="Group settings").click()
        expect(page.get_by_role("button", name="Rename")).to_be_visible()
        check_layout(page, f"group-{size}")
        axe_check(page, f"group-{size}")
        for screen, ready in (("friends", "li[data-user]"), ("group-new", "input[type=checkbox]"),
                              ("settings", "main li .name")):
            page.goto(f"{env.url}#/{screen}")
            expect(page.locator(ready).first).to_be_visible()
            check_layout(page, f"{screen}-{size}")
            axe_check(page, f"{screen}-{size}")
        env.expect_clean(page)


@test
def test_contrast_is_checked(env):
    """axe's color-contrast rule (WCAG AA) runs in every axe_check: no test file turns it off, and on a page
    with text it is among the rules axe ran."""
    import glob
    import os
    from axe_playwright_python.sync_playwright import Axe

    here = os.path.dirname(os.path.abspath(__file__))
    for path in glob.glob(os.path.join(here, "*.py")):
        if os.path.samefile(path, __file__):
            continue
        with open(path, encoding="utf-8") as f:
            assert "color-contrast" not in f.read(), f"{path} mentions color-contrast (it must not be ignored)"
    page = env.new_page("Ann")
    page.goto(f"{env.url}#/login")
    expect(page.locator("main[data-screen=login] form")).to_be_visible()
    response = Axe().run(page).response
    ran = {r["id"] for kind in ("passes", "violations", "incomplete") for r in response.get(kind, [])}
    assert "color-contrast" in ran, sorted(ran)
    assert not [v for v in response.get("violations", []) if v["id"] == "color-contrast"]


@test
def test_reactions_live_both_ways(env):
    ann, bob = Person(env, "Ann").register(), Person(env, "Bob").register()
    befriend(ann, bob)
    bob.open_chat_with(ann)
    bob.send("React to me")
    ann.open_chat_named("Bob")
    ann.expect_message("React to me")
    message_of = lambda person: person.page.locator("li[data-seq]", has_text="React to me")

    ann.page.get_by_role("button", name="Options for the message from Bob").click()
    ann.page.get_by_role("button", name="React with thumbs up").click()
    expect(message_of(ann).get_by_label("👍 thumbs up: 1, you too")).to_be_visible()
    expect(ann.page.get_by_role("button", name="React with thumbs up")).to_have_attribute("aria-pressed", "true")
    expect(message_of(bob).get_by_label("👍 thumbs up: 1", exact=True)).to_be_visible()  # live

    bob.page.get_by_role("button", name="Options for the message from You").click()
    bob.page.get_by_role("button", name="React with thumbs up").click()
    expect(message_of(bob).get_by_label("👍 thumbs up: 2, you too")).to_be_visible()
    expect(message_of(ann).get_by_label("👍 thumbs up: 2, you too")).to_be_visible()  # mine kept on a change of Bob's
    bob.page.get_by_role("button", name="React with heart").click()  # replaces Bob's thumbs up
    expect(message_of(ann).get_by_label("👍 thumbs up: 1, you too")).to_be_visible()
    expect(message_of(ann).get_by_label("❤️ heart: 1", exact=True)).to_be_visible()
    screenshot(ann.page, "reactions")
    axe_check(ann.page, "reactions")

    ann.page.get_by_role("button", name="React with thumbs up").click()  # again: takes it back
    expect(message_of(ann).locator(".reactions li")).to_have_count(1)
    expect(message_of(bob).locator(".reactions li")).to_have_count(1)
    expect(message_of(bob).get_by_label("❤️ heart: 1, you too")).to_be_visible()

    bob.open_chat_named("Ann")  # from history: counts and mine
    expect(message_of(bob).get_by_label("❤️ heart: 1, you too")).to_be_visible()
    expect(message_of(bob).locator(".reactions li")).to_have_count(1)
    env.expect_clean(ann.page)
    env.expect_clean(bob.page)


@test
def test_remove_friend_after_confirming(env):
    ann, bob = Person(env, "Ann").register(), Person(env, "Bob").register()
    befriend(ann, bob)
    bob.go("Friends")
    expect(bob.page.locator("li[data-user]", has_text="Ann")).to_be_visible()
    ann.go("Friends")
    asked = []

    def answer(dialog, accept):
        asked.append(dialog.message)
        dialog.accept() if accept else dialog.dismiss()

    ann.page.once("dialog", lambda d: answer(d, False))
    ann.page.get_by_role("button", name="Remove Bob from your friends").click()
    harness.wait_for(lambda: asked, what="the confirmation")
    assert "Remove Bob from your friends?" in asked[0], asked
    expect(ann.page.locator("li[data-user]", has_text="Bob")).to_be_visible()  # cancelled: still friends
    ann.page.once("dialog", lambda d: answer(d, True))
    ann.page.get_by_role("button", name="Remove Bob from your friends").click()
    expect(ann.page.locator("li[data-user]")).to_have_count(0)
    expect(ann.page.get_by_text("Bob is no longer your friend.")).to_be_visible()
    expect(bob.page.locator("li[data-user]")).to_have_count(0)  # live, by friend.removed
    axe_check(ann.page, "friends-removed")
    env.expect_clean(ann.page)
    env.expect_clean(bob.page)


if __name__ == "__main__":
    harness.main(server_args=["--presence-grace", str(PRESENCE_GRACE_S)],
                 tests=[test_keyboard_alone, test_zoom_200_and_360_wide, test_contrast_is_checked, test_reactions_live_both_ways,
                        test_remove_friend_after_confirming])
