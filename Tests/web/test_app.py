#!/usr/bin/env python3
# This source file is part of the Switchboard open source project
# SPDX-License-Identifier: Apache-2.0
"""Browser tests of the web app (web/): accounts, friends, chats, groups, connection life, accessibility.

Chromium (Debian's) through Playwright for Python, against the debug server serving web/, with the harness of
Tests/web/harness.py. Every wait is bounded.

    SWITCHBOARD_TEST_DATABASE_URL=... python3 Tests/web/test_app.py [-k NAME]

Prints one line per test, where the screenshots are, the time from opening the page with a remembered
session to a usable chat list, and a closing "N passed, N failed"; exits 1 when a test failed.
"""

import json
import time

from playwright.sync_api import expect

import harness
import people
from harness import axe_check, screenshot, test
from people import PASSWORD, befriend, new_phone  # noqa: F401 (test_a11y imports them from here)

PRESENCE_GRACE_S = 1  # the server's --presence-grace: how long a user who left stays online


# MARK: steps a person takes

class Line:
    """Carries a page's WebSocket through the test, which can cut it as a network failure would: `cut()` closes
    the connection and refuses new ones (as `context.set_offline` refuses them; it leaves open sockets alone),
    `restore()` lets the page's reconnect attempts through again. With `lose_send_replies` set, the server's
    replies to `messages.send` never reach the page (an acknowledgement lost with the connection)."""

    def __init__(self, page):
        self.connections = []
        self.down = False
        self.lose_send_replies = False
        page.route_web_socket("**/ws", self.route)

    def route(self, socket):
        if self.down:
            socket.close()
            return
        server = socket.connect_to_server()
        sends = set()

        def from_page(message):
            frame = json.loads(message)
            if frame.get("op") == "messages.send":
                sends.add(frame["id"])
            server.send(message)

        def from_server(message):
            if self.lose_send_replies and json.loads(message).get("re") in sends:
                return
            socket.send(message)

        socket.on_message(from_page)
        server.on_message(from_server)
        self.connections.append((socket, server))

    def cut(self):
        self.down = True
        for socket, server in self.connections:
            socket.close()
            server.close()
        self.connections = []

    def restore(self):
        self.down = False
        self.lose_send_replies = False


class Person(people.Person):
    """One user in one browser context (one device); with `cuttable`, its WebSocket goes through a `Line`."""

    def __init__(self, env, name, phone=None, cuttable=False):
        super().__init__(env, name, phone)
        self.line = Line(self.page) if cuttable else None

    def open_chat_named(self, name):
        self.go("Chats")
        self.page.locator(".chat-link", has_text=name).first.click()
        expect(self.page.locator("main[data-screen=chat] h1")).to_have_text(name)

    def send(self, text):
        self.page.get_by_label("Your message").fill(text)
        self.page.get_by_role("button", name="Send", exact=True).click()

    def messages(self):
        """(seq, kind, text) of the messages shown, in page order."""
        return self.page.eval_on_selector_all(
            "main[data-screen=chat] li[data-seq]",
            "items => items.map(li => [Number(li.dataset.seq), li.dataset.kind, "
            "(li.querySelector('.text') || li.querySelector('.deleted') || li.querySelector('p')).textContent])")

    def expect_message(self, text):
        expect(self.page.locator("li[data-seq]", has_text=text)).to_have_count(1)


def expect_clean(env, *persons, allow=()):
    for person in persons:
        env.expect_clean(person.page, allow=allow)


def fits_narrow_screen(page, name):
    """At 360 CSS pixels wide (a small phone, or a 720 px window at 200% zoom) nothing needs sideways scrolling."""
    size = page.viewport_size
    page.set_viewport_size({"width": 360, "height": 740})
    screenshot(page, f"{name}-360")
    width = page.evaluate("document.documentElement.scrollWidth")
    page.set_viewport_size(size)
    assert width <= 360, f"{name} is {width} px wide at 360"


def assert_once_in_order(person):
    seqs = [seq for seq, _, _ in person.messages()]
    assert seqs == sorted(seqs) and len(seqs) == len(set(seqs)), f"{person.name} shows {seqs}"
    return seqs


# MARK: tests

@test
def test_register_refuses_weak_password(env):
    ann = Person(env, "Ann")
    page = ann.page
    ann.open("#/register")
    axe_check(page, "register")
    screenshot(page, "register")
    page.get_by_label("Phone number").fill(ann.phone)
    page.get_by_label("Your name").fill("Ann")
    page.get_by_label("Password", exact=True).fill("123456")
    page.get_by_label("Password again").fill("123456")
    page.get_by_role("button", name="Create account").click()
    expect(page.get_by_role("alert")).to_contain_text("simple sequence")
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Password again").fill(PASSWORD + "x")
    page.get_by_role("button", name="Create account").click()
    expect(page.get_by_role("alert")).to_contain_text("not the same")
    ann.open("#/login")
    axe_check(page, "login")
    screenshot(page, "login")
    page.get_by_label("Phone number").fill(ann.phone)
    page.get_by_label("Password").fill("wrong password 1")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("alert")).to_contain_text("phone number or the password is wrong")
    expect_clean(env, ann)


@test
def test_friends_chat_and_groups(env):
    ann, bob, cleo = Person(env, "Ann").register(), Person(env, "Bob").register(), Person(env, "Cleo").register()
    axe_check(ann.page, "chats-empty")

    # Friends: Ann adds Bob by phone, Bob accepts; Ann finds Cleo through contact matching.
    ann.request_friend(bob)
    axe_check(ann.page, "friends-outgoing")
    bob.go("Friends")
    expect(bob.page.get_by_role("button", name="Accept the friend request from Ann")).to_be_visible()
    axe_check(bob.page, "friends-incoming")
    screenshot(bob.page, "friends-incoming")
    bob.accept_friend(ann)
    expect(ann.page.get_by_role("button", name="Send a message to Bob")).to_be_visible()  # live, by event
    ann.page.get_by_label("Phone numbers").fill(f"{cleo.phone}\n+15550000000\nnot a number")
    ann.page.get_by_role("button", name="Find", exact=True).click()
    ann.page.get_by_role("button", name="Send friend request to Cleo").click()
    cleo.accept_friend(ann)
    expect(ann.page.locator("li[data-user]")).to_have_count(2)
    names = ann.page.locator("li[data-user] .name").all_text_contents()
    assert names == sorted(names, key=str.lower), names
    screenshot(ann.page, "friends")

    # Chat both ways, live, with typing shown both ways.
    bob.open_chat_with(ann)
    bob.send("Hello Ann")
    ann.open_chat_named("Bob")
    ann.expect_message("Hello Ann")
    ann.page.get_by_label("Your message").press_sequentially("Hi Bob", delay=20)
    expect(bob.page.get_by_text("Ann is typing")).to_be_visible()
    ann.page.get_by_label("Your message").press("Enter")
    bob.expect_message("Hi Bob")
    expect(bob.page.get_by_text("Ann is typing")).to_have_count(0)
    bob.page.get_by_label("Your message").press_sequentially("Good", delay=20)
    expect(ann.page.get_by_text("Bob is typing")).to_be_visible()
    bob.page.get_by_label("Your message").press("Enter")
    ann.expect_message("Good")
    expect(bob.page.locator("li[data-seq]", has_text="Good").get_by_text("Read")).to_be_visible()
    ann.page.get_by_role("button", name="Record voice message").click()  # a tap starts recording
    expect(bob.page.get_by_text("Ann is recording a voice message")).to_be_visible()
    ann.page.get_by_role("button", name="Cancel recording").click()
    expect(bob.page.get_by_text("Ann is recording a voice message")).to_have_count(0)
    assert [m[2] for m in ann.messages()] == ["Hello Ann", "Hi Bob", "Good"], ann.messages()

    # Older pages: 12 more, then Bob opens the chat anew and sees the 10 newest, then all.
    for i in range(12):
        ann.send(f"note {i}")
    ann.expect_message("note 11")
    bob.open_chat_named("Ann")
    expect(bob.page.locator("li[data-seq]")).to_have_count(10)
    bob.page.get_by_role("button", name="Show older messages").click()
    expect(bob.page.locator("li[data-seq]")).to_have_count(15)
    assert assert_once_in_order(bob) == list(range(1, 16))

    # Delete for everyone and hide.
    ann.page.get_by_role("button", name="Options for the message from You").last.click()
    ann.page.on("dialog", lambda dialog: dialog.accept())
    ann.page.get_by_role("button", name="Delete for everyone").click()
    expect(bob.page.locator("li[data-seq]", has_text="note 11")).to_have_count(0)
    expect(bob.page.get_by_text("This message was deleted.")).to_be_visible()
    expect(bob.page.locator("li[data-kind=system]", has_text="Ann deleted a message.")).to_be_visible()
    bob.page.get_by_role("button", name="Options for the message from Ann").first.click()
    bob.page.get_by_role("button", name="Hide for me").first.click()
    expect(bob.page.locator("li[data-seq]", has_text="Hi Bob")).to_have_count(0)

    # Pin for everyone (issue 36's worked example): Bob pins Ann's latest message from its options; the pinned bar
    # shows on both pages (Ann's by the event), the message is marked; Ann unpins it from the bar's list.
    bob.page.get_by_role("button", name="Options for the message from Ann").last.click()
    bob.page.get_by_role("button", name="Pin for everyone").click()
    bob_bar = bob.page.get_by_role("region", name="Pinned messages")
    expect(bob_bar).to_contain_text("1 pinned. Latest: Ann: note 10")
    ann_bar = ann.page.get_by_role("region", name="Pinned messages")
    expect(ann_bar).to_contain_text("1 pinned. Latest: You: note 10")
    expect(ann.page.locator("li[data-seq]", has_text="note 10").get_by_text("Pinned", exact=True)).to_be_visible()
    ann_bar.get_by_role("button", name="1 pinned").click()
    expect(ann_bar.get_by_text("pinned by Bob")).to_be_visible()
    axe_check(ann.page, "chat-pins")
    screenshot(ann.page, "chat-pins")
    ann_bar.get_by_role("button", name='Unpin "You: note 10"').click()
    expect(bob_bar).to_be_hidden()
    expect(ann_bar).to_be_hidden()
    expect(bob.page.locator("li[data-seq]", has_text="note 10").get_by_text("Pinned", exact=True)).to_be_hidden()
    axe_check(ann.page, "chat")
    screenshot(ann.page, "chat")
    fits_narrow_screen(ann.page, "chat")
    ann.go("Chats")
    expect(ann.page.locator(".chat-link", has_text="Bob")).to_be_visible()
    axe_check(ann.page, "chats")

    # A group of Ann, Bob and Cleo, named after its members; renamed; Bob quits.
    ann.go("New group")
    axe_check(ann.page, "group-new")
    ann.page.get_by_label("Bob").check()
    ann.page.get_by_role("button", name="Create group").click()
    expect(ann.page.get_by_role("alert")).to_contain_text("at least two friends")
    ann.page.get_by_label("Cleo").check()
    screenshot(ann.page, "group-new")
    ann.page.get_by_role("button", name="Create group").click()
    title = ann.page.locator("main[data-screen=chat] h1")
    expect(title).to_contain_text("Bob")
    expect(title).to_contain_text("Cleo")
    expect(ann.page.locator("li[data-kind=system]", has_text="You created the group with Bob, Cleo.")).to_be_visible()
    ann.send("Welcome to the group")
    bob.go("Chats")
    bob.page.locator(".chat-link", has_text="Cleo").click()
    bob.expect_message("Welcome to the group")
    ann.page.get_by_role("link", name="Group settings").click()
    expect(ann.page.locator("main[data-screen=group]")).to_be_visible()
    axe_check(ann.page, "group")
    screenshot(ann.page, "group")
    ann.page.get_by_label("New name").fill("Book club")
    ann.page.get_by_role("button", name="Rename").click()
    expect(bob.page.locator("main[data-screen=chat] h1")).to_have_text("Book club")
    expect(bob.page.locator("li[data-kind=system]", has_text='renamed the group to "Book club"')).to_be_visible()
    bob.page.get_by_role("link", name="Group settings").click()
    bob.page.on("dialog", lambda dialog: dialog.accept())
    bob.page.get_by_role("button", name="Leave group").click()
    expect(bob.page.locator("main[data-screen=chats]")).to_be_visible()
    ann.page.get_by_role("link", name="Back to the chat").click()
    expect(ann.page.locator("li[data-kind=system]", has_text="Bob left the group.")).to_be_visible()
    expect(ann.page.locator(".detail")).not_to_contain_text("Bob")
    assert_once_in_order(ann)
    screenshot(ann.page, "group-chat")

    # Ann adds Bob back (only friends not in the group are offered); he sees the group and the system message.
    ann.page.get_by_role("link", name="Group settings").click()
    chooser = ann.page.get_by_label("Friend to add")
    expect(chooser.locator("option")).to_have_text(["Bob"])
    chooser.select_option(label="Bob")
    ann.page.get_by_role("button", name="Add to group").click()
    expect(ann.page.get_by_text("All your friends are in this group already.")).to_be_visible()
    expect(ann.page.get_by_role("list", name="Members").locator("li")).to_have_count(3)
    bob.go("Chats")
    bob.page.locator(".chat-link", has_text="Book club").click()
    expect(bob.page.locator("li[data-kind=system]", has_text="Ann added you.")).to_be_visible()
    expect(bob.page.get_by_label("Your message")).to_be_visible()
    bob.send("Back again")
    ann.page.get_by_role("link", name="Back to the chat").click()
    ann.expect_message("Back again")
    expect_clean(env, ann, bob, cleo)


@test
def test_requests_declined_cancelled_and_presence(env):
    ann, dan = Person(env, "Ann").register(), Person(env, "Dan").register()
    ann.request_friend(dan)
    dan.go("Friends")
    expect(dan.page.get_by_role("button", name="Accept the friend request from Ann")).to_be_visible()
    ann.page.get_by_role("button", name="Cancel request to Dan").click()
    expect(dan.page.get_by_text("No new friend requests.")).to_be_visible()  # live, by event
    dan.request_friend(ann)
    ann.page.get_by_role("button", name="Decline the friend request from Dan").click()
    expect(dan.page.get_by_text("No requests waiting for an answer.")).to_be_visible()
    ann.request_friend(dan)
    dan.accept_friend(ann)
    friend = ann.page.locator("li[data-user]", has_text="Dan")
    expect(friend).to_contain_text("Online")
    dan.context.close()
    expect(friend).to_contain_text("Last seen", timeout=(PRESENCE_GRACE_S + harness.WAIT) * 1000)
    expect_clean(env, ann)


@test
def test_offline_then_resume(env):
    ann, bob = Person(env, "Ann").register(), Person(env, "Bob", cuttable=True).register()
    befriend(ann, bob)
    ann.open_chat_with(bob)
    ann.send("before")
    bob.open_chat_named("Ann")
    bob.expect_message("before")

    bob.context.set_offline(True)
    bob.line.cut()
    expect(bob.page.get_by_role("status").filter(has_text="You are offline")).to_be_visible()
    for i in range(5):
        ann.send(f"while you were away {i}")
    ann.expect_message("while you were away 4")
    bob.send("typed while offline")
    expect(bob.page.get_by_text("Waiting for the connection")).to_be_visible()
    axe_check(bob.page, "chat-offline")
    screenshot(bob.page, "chat-offline")
    bob.context.set_offline(False)
    bob.line.restore()

    ann.expect_message("typed while offline")
    bob.expect_message("while you were away 4")
    expect(bob.page.get_by_text("You are offline")).to_be_hidden()
    expect(bob.page.get_by_text("Waiting for the connection")).to_have_count(0)
    time.sleep(1)  # anything doubled would have arrived by now
    expected = ["before"] + [f"while you were away {i}" for i in range(5)] + ["typed while offline"]
    for person in (ann, bob):
        assert [m[2] for m in person.messages()] == expected, (person.name, person.messages())
        assert assert_once_in_order(person) == list(range(1, 8))

    # The acknowledgement of a stored message is lost with the connection: the resend and the catch-up
    # complete the send; the message shows once, on both sides.
    bob.line.lose_send_replies = True
    bob.send("acknowledgement lost")
    ann.expect_message("acknowledgement lost")
    expect(bob.page.get_by_text("Sending…")).to_be_visible()
    bob.line.cut()
    bob.line.restore()
    expect(bob.page.locator("li[data-seq='8']", has_text="acknowledgement lost")).to_be_visible()
    expect(bob.page.get_by_text("Sending…")).to_have_count(0)
    time.sleep(1)
    for person in (ann, bob):
        assert [m[2] for m in person.messages()] == expected + ["acknowledgement lost"], (person.name, person.messages())
        assert assert_once_in_order(person) == list(range(1, 9))
    expect_clean(env, ann)
    expect_clean(env, bob, allow=("ERR_INTERNET_DISCONNECTED",))  # the reconnect attempts while offline


@test
def test_a_message_over_a_gap_is_synced(env):
    """A message committed without a live delivery (issue 37: lost between nodes): the next one arrives over a gap
    in the seqs, the client syncs, and the missing one shows once, in its place."""
    ann, bob = Person(env, "Ann").register(), Person(env, "Bob").register()
    befriend(ann, bob)
    ann.open_chat_with(bob)
    ann.send("before the gap")
    bob.open_chat_named("Ann")
    bob.expect_message("before the gap")
    harness.run_sql(env.server.database_url, """
        INSERT INTO messages (conversation_id, seq, sender_id, kind, body)
            SELECT conversation_id, seq + 1, sender_id, 'text', 'lost on the way' FROM messages
            WHERE body = 'before the gap';
        UPDATE conversations SET last_seq = last_seq + 1
            WHERE id = (SELECT conversation_id FROM messages WHERE body = 'lost on the way');""")
    ann.send("after the gap")
    bob.expect_message("after the gap")
    bob.expect_message("lost on the way")
    assert [m[2] for m in bob.messages()] == ["before the gap", "lost on the way", "after the gap"], bob.messages()
    assert assert_once_in_order(bob) == [1, 2, 3]
    expect_clean(env, ann, bob)


@test
def test_revoked_session_goes_to_login(env):
    ann = Person(env, "Ann").register()
    elsewhere = Person(env, "Ann", phone=ann.phone).login()
    elsewhere.go("Settings")
    expect(elsewhere.page.locator("main[data-screen=settings]")).to_be_visible()
    expect(elsewhere.page.get_by_role("button", name="Log out that device").first).to_be_visible()
    axe_check(elsewhere.page, "settings")
    screenshot(elsewhere.page, "settings")
    elsewhere.page.get_by_role("button", name="Log out that device").click()
    expect(ann.page.locator("main[data-screen=login]")).to_be_visible()
    expect(ann.page.get_by_text("You have been logged out on this device")).to_be_visible()
    ann.open("#/chats")
    expect(ann.page.locator("main[data-screen=login]")).to_be_visible()  # nothing kept
    expect_clean(env, ann, elsewhere)


@test
def test_remembered_session_and_load_time(env):
    ann = Person(env, "Ann").register()
    bob = Person(env, "Bob").register()
    befriend(ann, bob)
    bob.open_chat_with(ann)
    bob.send("Are you there?")
    device = Person(env, "Ann", phone=ann.phone).login(remember=True)
    page = device.context.new_page()
    env.watch(page, "Ann (reopened)")
    started = time.monotonic()
    page.goto(env.url.rstrip("/") + "/")
    expect(page.locator("main[data-screen=chats] ul[aria-busy=false] .chat-link", has_text="Bob")).to_be_visible()
    elapsed_ms = (time.monotonic() - started) * 1000
    print(f"    page opened with a remembered session to a usable chat list: {elapsed_ms:.0f} ms")
    expect(page.locator(".unread")).to_have_text("1")
    screenshot(page, "chats")
    fits_narrow_screen(page, "chats")
    page.get_by_role("navigation").get_by_role("button", name="Log out").click()
    expect(page.locator("main[data-screen=login]")).to_be_visible()
    assert page.evaluate("localStorage.length + sessionStorage.length") == 0
    env.expect_clean(page)


if __name__ == "__main__":
    harness.main(server_args=["--presence-grace", str(PRESENCE_GRACE_S)])
