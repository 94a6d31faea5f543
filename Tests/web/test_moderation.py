#!/usr/bin/env python3
# This source file is part of the Switchboard open source project
# SPDX-License-Identifier: Apache-2.0
"""Browser tests of moderation (docs/moderation.md): the "Report" action on a message and on a person, and the
administration screen (reports with their content, remove, suspend, reinstate, the audit log), shown only to
administrators. The administrator is made with `switchboard admin grant` on the test's database.

    SWITCHBOARD_TEST_DATABASE_URL=... python3 Tests/web/test_moderation.py [-k NAME]
"""
import subprocess

from playwright.sync_api import expect

import harness
import people
from harness import test, screenshot, axe_check
from people import Person


def grant(env, person):
    done = subprocess.run([harness.SERVER, "admin", "grant", person.phone, "--database-url", env.server.database_url],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, f"admin grant: {done.stdout} {done.stderr}"


def send(person, text):
    person.page.get_by_label("Your message").fill(text)
    person.page.get_by_role("button", name="Send", exact=True).click()
    expect(person.page.locator("li[data-seq]", has_text=text)).to_have_count(1)


@test
def test_report_and_the_administration_screen(env):
    ann = Person(env, "Ann").register()
    bob = Person(env, "Bob").register()
    mod = Person(env, "Mod").register()
    people.befriend(ann, bob)
    bob.open_chat_with(ann)
    send(bob, "buy cheap pills")
    ann.open_chat_with(bob)
    expect(ann.page.locator("li[data-seq]", has_text="buy cheap pills")).to_have_count(1)

    # Ann reports Bob's message: Options, Report, a reason, optional words.
    ann.page.get_by_role("button", name="Options for the message from Bob").last.click()
    ann.page.get_by_role("button", name="Report", exact=True).click()
    dialog = ann.page.get_by_role("dialog", name="Report this message")
    expect(dialog).to_be_visible()
    axe_check(ann.page, "report-dialog")
    screenshot(ann.page, "report-dialog")
    dialog.get_by_label("Why are you reporting this?").select_option("spam")
    dialog.get_by_label("Anything the administrators should know (optional)").fill("ads again")
    dialog.get_by_role("button", name="Send report").click()
    expect(ann.page.get_by_text("Your report was sent")).to_be_visible()
    expect(dialog).to_have_count(0)

    # And Bob himself, from the friends list.
    ann.go("Friends")
    ann.page.get_by_role("button", name="Report Bob").click()
    dialog = ann.page.get_by_role("dialog", name="Report Bob")
    dialog.get_by_label("Why are you reporting this?").select_option("harassment")
    dialog.get_by_role("button", name="Send report").click()
    expect(ann.page.get_by_text("Your report was sent")).to_be_visible()

    # Not an administrator: no link, and the screen's address leads back to the chats.
    expect(ann.page.get_by_role("navigation").get_by_role("link", name="Administration")).to_be_hidden()
    ann.open("#/admin")
    expect(ann.page.locator("main[data-screen=chats]")).to_be_visible()
    ann.open_chat_with(bob)

    # Mod becomes an administrator; after a reload the app knows the role from the server.
    grant(env, mod)
    mod.page.reload()
    mod.go("Administration")
    main = mod.page.locator("main[data-screen=admin]")
    expect(main).to_be_visible()
    report = main.locator("li[data-report]", has_text="buy cheap pills")
    expect(report).to_be_visible()
    expect(main.locator("li[data-report]", has_text="User Bob")).to_be_visible()
    axe_check(mod.page, "admin")
    screenshot(mod.page, "admin")

    # Remove: Ann's open chat shows the tombstone live; the report is resolved (gone from the open list).
    mod.page.on("dialog", lambda d: d.accept())
    report.get_by_role("button", name="Remove message").click()
    expect(ann.page.get_by_text("This message was removed by moderation.")).to_be_visible()
    expect(ann.page.locator("li[data-kind=system]", has_text="A message was removed by moderation.")).to_be_visible()
    expect(main.locator("li[data-report]", has_text="buy cheap pills")).to_have_count(0)

    # Suspend Bob: his page goes to the login screen and says why; logging in is refused.
    main.get_by_role("button", name="Suspend Bob").first.click()
    expect(bob.page.locator("main[data-screen=login]")).to_be_visible()
    expect(bob.page.get_by_text("Your account has been suspended")).to_be_visible()
    bob.page.get_by_label("Phone number").fill(bob.phone)
    bob.page.get_by_label("Password").fill(people.PASSWORD)
    bob.page.get_by_role("button", name="Log in").click()
    expect(bob.page.get_by_text("This account is suspended")).to_be_visible()

    # Reinstate from the closed reports; the audit log lists every action.
    main.get_by_role("button", name="Closed reports").click()
    main.get_by_role("button", name="Reinstate Bob").first.click()
    expect(mod.page.get_by_text("Done.")).to_be_visible()
    audit = main.get_by_role("list", name="Audit log")
    for action in ("reinstate user", "suspend user", "remove message", "grant user"):
        expect(audit.get_by_text(action)).to_be_visible()
    bob.login()
    env.expect_clean(mod.page)
    env.expect_clean(ann.page)


if __name__ == "__main__":
    harness.main()
