# This source file is part of the Switchboard open source project
# SPDX-License-Identifier: Apache-2.0
"""Phone verification in the web app (issue 37): signing up with the code the server "sends" (here to its log,
`--sms-gateway log`, the embedded default's gateway) and choosing a new password with a code.

    python3 Tests/web/test_signup.py [-k NAME]
"""
import re

from playwright.sync_api import expect

import harness
from harness import test, screenshot, axe_check
from people import Person, PASSWORD


def codes(env):
    """Every code the server logged so far, in order (`--sms-gateway log`)."""
    return re.findall(r"code=(\d{6}) ", env.server.log_tail(1_000_000))


def next_code(env, before):
    """The first code logged after `before` codes."""
    harness.wait_for(lambda: len(codes(env)) > before, harness.WAIT, "a code in the server log")
    return codes(env)[before]


def sign_up(env, person):
    page = person.page
    person.open("#/register")
    page.get_by_label("Phone number").fill(person.phone)
    page.get_by_label("Your name").fill(person.name)
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Password again").fill(PASSWORD)
    before = len(codes(env))
    page.get_by_role("button", name="Create account").click()
    # The server wants a code: the screen asked for one and shows the field.
    expect(page.get_by_label("Code from the SMS")).to_be_visible()
    expect(page.get_by_role("status").filter(has_text="on its way")).to_be_visible()
    code = next_code(env, before)
    page.get_by_label("Code from the SMS").fill("000000" if code != "000000" else "000001")
    page.get_by_role("button", name="Create account").click()
    expect(page.get_by_role("alert")).to_contain_text("wrong or has expired")
    page.get_by_label("Code from the SMS").fill(code)
    page.get_by_role("button", name="Create account").click()
    expect(page.locator("main[data-screen=chats]")).to_be_visible()


@test
def test_sign_up_with_the_code_sent_to_the_phone(env):
    ann = Person(env, "Ann")
    sign_up(env, ann)
    env.expect_clean(ann.page, allow=("invalid_code",))


@test
def test_a_forgotten_password_is_reset_with_a_code(env):
    ann = Person(env, "Ann")
    sign_up(env, ann)
    other = Person(env, "Ann elsewhere", phone=ann.phone)
    page = other.page
    other.open("#/login")
    page.get_by_role("link", name="Forgot your password?").click()
    expect(page.locator("main[data-screen=reset]")).to_be_visible()
    page.get_by_label("Phone number").fill(ann.phone)
    before = len(codes(env))
    page.get_by_role("button", name="Send me a code").click()
    expect(page.get_by_role("status").filter(has_text="on its way")).to_be_visible()
    axe_check(page, "reset")
    screenshot(page, "reset")
    page.get_by_label("Code from the SMS").fill(next_code(env, before))
    page.get_by_label("New password").fill("fresh harbour 58")
    page.get_by_label("Password again").fill("fresh harbour 58")
    page.get_by_role("button", name="Set the new password").click()
    expect(page.locator("main[data-screen=chats]")).to_be_visible()
    # The first browser's session was revoked with the reset: it is back on the login screen.
    expect(ann.page.locator("main[data-screen=login]")).to_be_visible()
    env.expect_clean(page)


if __name__ == "__main__":
    harness.main(server_args=["--phone-verification", "required", "--sms-gateway", "log"])
