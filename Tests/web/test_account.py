#!/usr/bin/env python3
# This source file is part of the Switchboard open source project
# SPDX-License-Identifier: Apache-2.0
"""Browser tests of "Your data and account" (web/js/screens/account.js): download my data, delete my account.

    SWITCHBOARD_TEST_DATABASE_URL=... python3 Tests/web/test_account.py [-k NAME]
"""

import io
import json
import os
import tarfile
import tempfile

from playwright.sync_api import expect

import harness
import people
from harness import axe_check, screenshot, test
from people import PASSWORD

EXPORT_DIR = tempfile.mkdtemp(prefix="switchboard-web-exports.")


def open_account_screen(person):
    person.go("Settings")
    person.page.get_by_role("link", name="Download my data or delete my account").click()
    expect(person.page.locator("main[data-screen=account] h1")).to_have_text("Your data and account")


@test
def download_my_data(env):
    ann = people.Person(env, "Ann").register()
    bob = people.Person(env, "Bob").register()
    people.befriend(ann, bob)
    ann.open_chat_with(bob)
    ann.page.get_by_label("Your message").fill("keep this one")
    ann.page.get_by_role("button", name="Send", exact=True).click()
    expect(ann.page.get_by_text("keep this one")).to_be_visible()

    open_account_screen(ann)
    page = ann.page
    page.get_by_role("button", name="Download my data").click()
    save = page.get_by_role("button", name="Save my data")
    expect(save).to_be_visible()
    expect(page.get_by_role("status").filter(has_text="Your data is ready")).to_be_visible()
    screenshot(page, "account-export-ready")
    axe_check(page, "account-export-ready")
    with page.expect_download() as info:
        save.click()
    download = info.value
    path = download.path()
    with tarfile.open(path, "r:gz") as archive:
        names = archive.getnames()
        profile = json.load(archive.extractfile(next(n for n in names if n.endswith("/profile.json"))))
        conversations = json.load(archive.extractfile(next(n for n in names if n.endswith("/conversations.json"))))
    assert profile["phone"] == ann.phone and profile["display_name"] == "Ann", profile
    assert any(m.get("text") == "keep this one" for c in conversations for m in c["messages"]), conversations
    assert download.suggested_filename.endswith(".tar.gz"), download.suggested_filename
    env.expect_clean(page)


@test
def delete_my_account(env):
    cat = people.Person(env, "Cat").register()
    dan = people.Person(env, "Dan").register()
    people.befriend(cat, dan)
    cat.open_chat_with(dan)
    cat.page.get_by_label("Your message").fill("soon gone")
    cat.page.get_by_role("button", name="Send", exact=True).click()
    dan.open_chat_with(cat)
    expect(dan.page.get_by_text("soon gone")).to_be_visible()

    open_account_screen(cat)
    page = cat.page
    expect(page.get_by_text("Warning: this deletes your account for good")).to_be_visible()
    screenshot(page, "account-delete")
    axe_check(page, "account-delete")
    # No password, then a wrong one: nothing happens but a clear error.
    page.get_by_role("button", name="Delete my account for good").click()
    expect(page.get_by_role("alert").filter(has_text="Please type your password")).to_be_visible()
    page.get_by_label("Your password, to confirm").fill("not the password 1")
    page.get_by_role("button", name="Delete my account for good").click()
    expect(page.get_by_role("alert").filter(has_text="password")).to_be_visible()
    expect(page.locator("main[data-screen=account]")).to_be_visible()
    # The right one: back on the login screen with a notice; the account is gone.
    page.get_by_label("Your password, to confirm").fill(PASSWORD)
    page.get_by_role("button", name="Delete my account for good").click()
    expect(page.locator("main[data-screen=login]")).to_be_visible()
    expect(page.get_by_text("Your account has been deleted.")).to_be_visible()
    screenshot(page, "account-deleted")
    page.get_by_label("Phone number").fill(cat.phone)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("alert")).to_be_visible()

    # Dan's open chat shows the message as a deleted account's at once (user.deleted), and after a reload.
    tombstone = "This message was removed when its sender deleted their account."
    expect(dan.page.get_by_text(tombstone)).to_be_visible()
    expect(dan.page.get_by_text("soon gone")).to_have_count(0)
    dan.page.reload()
    expect(dan.page.get_by_text(tombstone)).to_be_visible()
    expect(dan.page.get_by_text("soon gone")).to_have_count(0)
    env.expect_clean(dan.page)


if __name__ == "__main__":
    harness.main(server_args=["--export-dir", EXPORT_DIR])
