#!/usr/bin/env python3
# This source file is part of the Switchboard open source project
# SPDX-License-Identifier: Apache-2.0
"""Browser tests of the active hours on the settings (profile) screen (web/js/screens/hours.js): the daily series
(stats.active_hours) and the hours of a chosen date (stats.active_day).

    SWITCHBOARD_TEST_DATABASE_URL=... python3 Tests/web/test_hours.py [-k NAME]
"""

import re
from zoneinfo import ZoneInfo

from playwright.sync_api import expect

import harness
import people
from harness import axe_check, screenshot, test


@test
def active_hours_on_the_settings_screen(env):
    # One UTC day (the new account's zone) from the registration to the checks of "today" below, by the server's
    # clock: not across midnight.
    harness.clear_of_midnight(ZoneInfo("UTC"), 60)
    ann = people.Person(env, "Ann").register()
    ann.go("Settings")
    page = ann.page
    section = page.get_by_role("region", name="Your active hours")
    expect(section).to_be_visible()
    series = section.get_by_role("list", name="Time connected each day, last 30 days")
    expect(series).to_be_visible()
    # Registered today: one day in the series, counting the connection open now (in words for screen readers).
    expect(series.get_by_role("listitem")).to_have_count(1)
    expect(series.get_by_role("img")).to_have_attribute("aria-label", re.compile(r"^\w{3}, \w{3} \d+: "))
    expect(section.get_by_text("(days in the time zone UTC)")).to_be_visible()
    picker = section.get_by_label("Show the hours of a day")
    today = picker.input_value()
    assert len(today) == 10 and today == picker.get_attribute("max") == picker.get_attribute("min"), today
    hourly = section.locator("ol.hourly")
    expect(hourly.get_by_role("listitem")).to_have_count(24)
    # The connection keeps counting: a reload shows it once a second is counted (never "none" for today). Reloaded
    # until then (bounded), not after a fixed pause.
    def counted():
        page.reload()
        bar = page.get_by_role("region", name="Your active hours").locator("ol.daily li").first
        return bar.get_attribute("data-seconds") != "0"
    harness.wait_for(counted, what="the open connection's seconds in today's bar", interval=0.3)
    section = page.get_by_role("region", name="Your active hours")
    expect(section.locator("ol.daily li").first).not_to_have_attribute("data-seconds", "0")
    expect(section.locator("p.hours-day-total")).not_to_contain_text("none")
    # Changing the time zone: saved, and the summary names it.
    zone = section.get_by_label("Your time zone")
    expect(zone).to_have_value("UTC")
    zone.select_option("Asia/Tokyo")
    section.get_by_role("button", name="Save time zone").click()
    expect(page.get_by_text("Your time zone is saved.")).to_be_visible()
    expect(section.get_by_text("(days in the time zone Asia/Tokyo)")).to_be_visible()
    page.reload()
    zone = page.get_by_role("region", name="Your active hours").get_by_label("Your time zone")
    expect(zone).to_have_value("Asia/Tokyo")
    screenshot(page, "settings-active-hours")
    axe_check(page, "settings-active-hours")
    env.expect_clean(page)


if __name__ == "__main__":
    harness.main()
