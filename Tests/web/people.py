"""People for the browser tests: one user in one browser context (one device), driving the app's screens.

Shared by test_app.py, test_media.py and test_a11y.py (each subclasses or uses `Person`).
"""
import random

from playwright.sync_api import expect

import harness

PASSWORD = "correct horse 42"
expect.set_options(timeout=harness.WAIT * 1000)


def new_phone():
    # +1 555 then 7 digits: valid E.164, and unique enough for one database per run.
    return "+1555" + "".join(random.choice("0123456789") for _ in range(7))


class Person:
    """One user in one browser context (one device). `options` go to the browser context (viewport, ...)."""

    def __init__(self, env, name, phone=None, **options):
        self.env = env
        self.name = name
        self.phone = phone or new_phone()
        self.page = env.new_page(name, **options)
        self.context = self.page.context

    def open(self, hash_=""):
        self.page.goto(self.env.url.rstrip("/") + "/" + hash_)

    def register(self, remember=False):
        page = self.page
        self.open("#/register")
        expect(page.locator("main[data-screen=register]")).to_be_visible()
        page.get_by_label("Phone number").fill(self.phone)
        page.get_by_label("Your name").fill(self.name)
        page.get_by_label("Password", exact=True).fill(PASSWORD)
        page.get_by_label("Password again").fill(PASSWORD)
        if remember:
            page.get_by_label("Keep me logged in on this computer").check()
        page.get_by_role("button", name="Create account").click()
        expect(page.locator("main[data-screen=chats]")).to_be_visible()
        return self

    def login(self, remember=False):
        page = self.page
        self.open("#/login")
        expect(page.locator("main[data-screen=login]")).to_be_visible()
        page.get_by_label("Phone number").fill(self.phone)
        page.get_by_label("Password").fill(PASSWORD)
        if remember:
            page.get_by_label("Keep me logged in on this computer").check()
        page.get_by_role("button", name="Log in").click()
        expect(page.locator("main[data-screen=chats]")).to_be_visible()
        return self

    def go(self, link):
        self.page.get_by_role("navigation").get_by_role("link", name=link, exact=True).click()

    def request_friend(self, other):
        self.go("Friends")
        self.page.get_by_label("Their phone number").fill(other.phone)
        self.page.get_by_role("button", name="Send friend request").click()
        expect(self.page.get_by_role("button", name=f"Cancel request to {other.name}")).to_be_visible()

    def accept_friend(self, other):
        self.go("Friends")
        self.page.get_by_role("button", name=f"Accept the friend request from {other.name}").click()
        expect(self.page.get_by_role("button", name=f"Send a message to {other.name}")).to_be_visible()

    def befriend(self, other):
        """This person asks, `other` accepts."""
        self.request_friend(other)
        other.accept_friend(self)

    def open_chat_with(self, other):
        self.go("Friends")
        self.page.get_by_role("button", name=f"Send a message to {other.name}").click()
        expect(self.page.locator("main[data-screen=chat] h1")).to_have_text(other.name)


def befriend(a, b):
    a.befriend(b)


class Line:
    """Carries a page's WebSocket so that the test can cut it as a network failure would (test_app.py has its own,
    which can also lose replies):
    `cut()` closes the connection and refuses new ones, `restore()` lets the reconnect attempts through."""

    def __init__(self, page):
        self.connections = []
        self.down = False
        page.route_web_socket("**/ws", self.route)

    def route(self, socket):
        if self.down:
            socket.close()
            return
        server = socket.connect_to_server()
        socket.on_message(server.send)
        server.on_message(socket.send)
        self.connections.append((socket, server))

    def cut(self):
        self.down = True
        for socket, server in self.connections:
            socket.close()
            server.close()
        self.connections = []

    def restore(self):
        self.down = False
