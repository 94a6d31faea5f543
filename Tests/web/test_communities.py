#!/usr/bin/env python3
# This source file is part of the Switchboard open source project
# SPDX-License-Identifier: Apache-2.0
"""Browser tests of communities, events, the calendar and courses (docs/web.md, "Communities"): an administrator
creates a community and publishes events from the web app; a member's Communities tab shows the red dot within
3 s on both of her devices, and viewing the community on one clears it on the other; joining an event puts it in
the month calendar on each day it touches in her time zone (an event spanning her midnight), with today
highlighted and weeks starting on her locale's first weekday; an ended event refuses joining with the message;
core members post announcements and lessons and members mark lessons completed. axe-core checks every screen.

    SWITCHBOARD_TEST_DATABASE_URL=... python3 Tests/web/test_communities.py [-k NAME]

The administrator is made with `switchboard admin grant` on the test's database; an event is moved into the past
with SQL (the server has no op for that, rightly).
"""
import datetime as dt
import os
import shutil
import subprocess
import time
from zoneinfo import ZoneInfo

from playwright.sync_api import expect

import harness
import people
from harness import test, screenshot, axe_check
from people import Line, Person

ORGANISER_ZONE = "Europe/Paris"
MEMBER_ZONE = "America/New_York"
NOTIFY_BUDGET_MS = 3000  # the budget from publication to the red dot


def grant(env, person):
    done = subprocess.run([harness.SERVER, "admin", "grant", person.phone, "--database-url", env.server.database_url],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, f"admin grant: {done.stdout} {done.stderr}"


def psql():
    found = shutil.which("psql")
    if found:
        return found
    for version in sorted(os.listdir("/usr/lib/postgresql"), reverse=True):
        candidate = os.path.join("/usr/lib/postgresql", version, "bin", "psql")
        if os.path.exists(candidate):
            return candidate
    raise RuntimeError("psql not found")


def sql(env, statement):
    done = subprocess.run([psql(), env.server.database_url, "-q", "-t", "-A", "-c", statement], capture_output=True,
                          text=True, timeout=30)
    assert done.returncode == 0, f"psql: {done.stderr}"
    return done.stdout.strip()


def tab(person):
    return person.page.locator('header a[data-screen="communities"]')


def open_community(person, name):
    person.page.locator('header a[data-screen="communities"]').click()
    main = person.page.locator("main[data-screen=communities]")
    main.locator("li[data-community]", has_text=name).get_by_role("link").click()
    expect(person.page.locator("main[data-screen=community] h1")).to_have_text(name)
    return person.page.locator("main[data-screen=community]")


def create_community(adm, name, description, category):
    adm.page.locator('header a[data-screen="communities"]').click()
    form = adm.page.get_by_role("region", name="Create a community")
    form.get_by_label("Name").fill(name)
    form.get_by_label("Description (optional)").fill(description)
    form.get_by_label("Category (optional)").fill(category)
    form.get_by_role("button", name="Create community").click()
    expect(adm.page.locator("main[data-screen=community] h1")).to_have_text(name)


def publish_event(adm, title, starts, ends, zone, capacity=None, place=""):
    """Fills the community page's "Publish an event" form (times are wall-clock times in `zone`)."""
    form = adm.page.locator("main[data-screen=community] form.event-form")
    form.get_by_label("Title").fill(title)
    form.get_by_label("Starts").fill(starts.strftime("%Y-%m-%dT%H:%M"))
    form.get_by_label("Ends").fill(ends.strftime("%Y-%m-%dT%H:%M"))
    form.get_by_label("Time zone of these times").select_option(zone)
    if place:
        form.get_by_label("Place (optional)").fill(place)
    if capacity is not None:
        form.get_by_label("Places (optional)").fill(str(capacity))
    form.get_by_role("button", name="Publish event").click()


def midweek_night(zone, after_days=2):
    """23:00 on a Tuesday in `zone`, at least `after_days` days ahead, whose Wednesday is in the same month: an event
    from then to 02:00 touches two days of one week (from Monday, as in fr-FR) and of one month, whatever the date
    of the run. ("Two days ahead" fell on a Monday some weeks, and on the 1st of a month some nights.)"""
    day = dt.datetime.now(zone).date() + dt.timedelta(days=after_days)
    while day.weekday() != 1 or (day + dt.timedelta(days=1)).day == 1:
        day += dt.timedelta(days=1)
    return dt.datetime.combine(day, dt.time(23, 0), zone)


def event_id(page, title):
    item = page.locator("li[data-event]", has_text=title).first
    expect(item).to_be_visible()
    return int(item.get_attribute("data-event"))


@test
def test_community_event_dot_and_calendar(env):
    adm = Person(env, "Adm", timezone_id=ORGANISER_ZONE).register()
    ann = Person(env, "Ann", timezone_id=MEMBER_ZONE, locale="fr-FR").register()
    grant(env, adm)
    adm.page.reload()
    expect(adm.page.get_by_role("navigation").get_by_role("link", name="Administration")).to_be_visible()

    # The administrator creates a community from the list screen.
    create_community(adm, "Walkers", "We walk together every week.", "Walking")
    axe_check(adm.page, "community-admin")
    screenshot(adm.page, "community-admin")

    # Ann finds it among the others, and joins; her second device logs in too.
    ann.page.locator('header a[data-screen="communities"]').click()
    listing = ann.page.locator("main[data-screen=communities]")
    expect(listing.get_by_role("list", name="Other communities").locator("li", has_text="Walkers")).to_be_visible()
    expect(ann.page.get_by_role("button", name="Create community")).to_have_count(0)  # not an administrator
    axe_check(ann.page, "communities")
    screenshot(ann.page, "communities")
    page = open_community(ann, "Walkers")
    expect(page.get_by_text("Join this community to see")).to_be_visible()
    page.get_by_role("button", name="Join this community").click()
    expect(page.get_by_role("button", name="Leave this community")).to_be_visible()
    expect(page.get_by_role("heading", name="Upcoming events")).to_be_visible()
    ann2 = Person(env, "Ann", phone=ann.phone, timezone_id=MEMBER_ZONE, locale="fr-FR").login()
    ann.go("Chats")
    for device in (ann, ann2):
        expect(tab(device)).to_have_attribute("data-unread", "0")

    # An event from 23:00 to 02:00 in New York, across Ann's midnight (a Tuesday night at least two days ahead),
    # published in Paris time (05:00-08:00 most of the year; 04:00-07:00 when only one side of the Atlantic keeps
    # summer time).
    paris = ZoneInfo(ORGANISER_ZONE)
    new_york = ZoneInfo(MEMBER_ZONE)
    starts = midweek_night(new_york).astimezone(paris)
    ends = starts + dt.timedelta(hours=3)
    started = time.monotonic()
    publish_event(adm, "Sunrise walk", starts, ends, ORGANISER_ZONE, capacity=5, place="The park gate")
    expect(adm.page.get_by_text("The event Sunrise walk is published.")).to_be_visible()

    # The red dot on both of Ann's devices within 3 s of publishing.
    for device in (ann, ann2):
        expect(tab(device)).to_have_attribute("data-unread", "1", timeout=NOTIFY_BUDGET_MS)
        expect(tab(device).locator(".dot")).to_be_visible()
    print(f"  red dot on both devices {1000 * (time.monotonic() - started):.0f} ms after the click on Publish")
    expect(tab(ann)).to_have_accessible_name("Communities, 1 new")
    expect(tab(ann2)).to_have_accessible_name("Communities, 1 new")
    expect(ann.page.locator("#community-news")).to_contain_text("Sunrise walk")
    screenshot(ann2.page, "red-dot")

    # Ann views the community on her first device: the dot goes on both (community.read to her other device).
    page = open_community(ann, "Walkers")
    expect(tab(ann)).to_have_attribute("data-unread", "0")
    expect(tab(ann2)).to_have_attribute("data-unread", "0")
    expect(tab(ann2).locator(".dot")).to_be_hidden()

    # The event page: her time and the organiser's; join; places taken.
    page.locator("li[data-event]", has_text="Sunrise walk").get_by_role("link").click()
    event_page = ann.page.locator("main[data-screen=event]")
    expect(event_page.locator("h1")).to_have_text("Sunrise walk")
    expect(event_page.locator("dd.when")).to_contain_text(MEMBER_ZONE)
    expect(event_page.locator("dd.organiser-when")).to_contain_text(ORGANISER_ZONE)
    expect(event_page.locator("dd.places")).to_have_text("0 of 5 places taken")
    event_page.get_by_role("button", name="Join this event").click()
    expect(event_page.get_by_text("You are going to this event.")).to_be_visible()
    expect(event_page.locator("dd.places")).to_have_text("1 of 5 places taken")
    expect(event_page.get_by_role("list").filter(has_text="Ann (you)")).to_be_visible()
    axe_check(ann.page, "event")
    screenshot(ann.page, "event")
    sunrise = int(ann.page.evaluate("location.hash").split("/")[-1])

    # The month calendar shows it on both New York days it touches; today is highlighted; weeks start on
    # Monday (fr-FR).
    first_day = starts.astimezone(new_york).date()
    second_day = ends.astimezone(new_york).date()
    assert first_day != second_day, "the event should span the member's midnight"
    for shown in (first_day, second_day):
        ann.open(f"#/calendar/month:{shown.isoformat()}")
        calendar = ann.page.locator("main[data-screen=calendar]")
        expect(calendar.locator(f"td[data-date='{shown.isoformat()}'] li[data-event='{sunrise}']")).to_be_visible()
        expect(calendar.locator("table.calendar-month th").first).to_have_attribute("abbr", "lundi")
    for other in calendar.locator("li.calendar-event").all():
        assert other.get_attribute("data-event") == str(sunrise)
    # Today by the test's clock and by the server's (which the page shows): not across New York's midnight.
    harness.clear_of_midnight(new_york)
    today = dt.datetime.now(new_york).date()
    ann.open(f"#/calendar/month:{today.isoformat()}")
    calendar = ann.page.locator("main[data-screen=calendar]")
    expect(calendar.locator("td[aria-current=date]")).to_have_attribute("data-date", today.isoformat())
    axe_check(ann.page, "calendar-month")
    screenshot(ann.page, "calendar-month")

    # Previous/next keep the focus on the button; the week and day views list the event too.
    shown_month = calendar.locator("#calendar-range").inner_text()
    calendar.get_by_role("button", name="Next month").focus()
    ann.page.keyboard.press("Enter")
    expect(calendar.locator("#calendar-range")).not_to_have_text(shown_month)
    assert ann.page.evaluate("document.activeElement.textContent") == "Next month"
    ann.open(f"#/calendar/day:{second_day.isoformat()}")
    # Looked for in the day view itself: until it replaces the month shown before, that month (the event's, some
    # days) lists the event on both of its days.
    day_view = calendar.locator(f"section.calendar-day[data-date='{second_day.isoformat()}']")
    expect(day_view.locator(f"li[data-event='{sunrise}']")).to_contain_text("Sunrise walk")
    ann.page.get_by_role("button", name="Week", exact=True).click()
    week_day = ann.page.locator(f"main[data-screen=calendar] ol.calendar-week li[data-date='{first_day.isoformat()}']")
    expect(week_day.locator(f"li[data-event='{sunrise}']")).to_be_visible()
    axe_check(ann.page, "calendar-week")
    ann.page.get_by_role("button", name="Year", exact=True).click()
    year = ann.page.locator("main[data-screen=calendar]")
    expect(year.locator(f"td[data-date='{first_day.isoformat()}'].has-events")).to_be_visible()
    axe_check(ann.page, "calendar-year")
    screenshot(ann.page, "calendar-year")

    # An event that has already ended: listed under past events, marked, and joining is refused with the message.
    adm_page = adm.page.locator("main[data-screen=community]")
    publish_event(adm, "Yesterday's walk", starts + dt.timedelta(days=1), ends + dt.timedelta(days=1), ORGANISER_ZONE)
    expect(adm.page.get_by_text("The event Yesterday's walk is published.")).to_be_visible()
    past = event_id(adm_page, "Yesterday's walk")
    sql(env, f"UPDATE community_events SET starts_at = now() - interval '26 hours', "
             f"ends_at = now() - interval '24 hours' "
             f"WHERE id = {past}")
    page = open_community(ann, "Walkers")
    past_list = page.get_by_role("list", name="Past events")
    expect(past_list.locator(f"li[data-event='{past}']")).to_contain_text("This event has ended")
    expect(page.get_by_role("list", name="Upcoming events").locator(f"li[data-event='{past}']")).to_have_count(0)
    axe_check(ann.page, "community-member")
    screenshot(ann.page, "community-member")
    past_list.locator(f"li[data-event='{past}']").get_by_role("link").click()
    event_page = ann.page.locator("main[data-screen=event]")
    expect(event_page.locator("p.event-status")).to_have_text("This event has ended")
    event_page.get_by_role("button", name="Join this event").click()
    expect(event_page.get_by_role("alert")).to_have_text("This event has already ended. You can no longer join it.")

    # Quitting the community takes Ann off its upcoming event: gone from her calendar.
    page = open_community(ann, "Walkers")
    ann.page.once("dialog", lambda d: d.accept())
    page.get_by_role("button", name="Leave this community").click()
    expect(page.get_by_role("button", name="Join this community")).to_be_visible()
    ann.open(f"#/calendar/month:{first_day.isoformat()}")
    expect(ann.page.locator("main[data-screen=calendar] table.calendar-month")).to_be_visible()
    expect(ann.page.locator(f"main[data-screen=calendar] li[data-event='{sunrise}']")).to_have_count(0)
    for p in (adm.page, ann.page, ann2.page):
        env.expect_clean(p)


@test
def test_core_member_posts_and_course(env):
    adm = Person(env, "Adm").register()
    cora = Person(env, "Cora").register()
    bob = Person(env, "Bob")
    line = Line(bob.page)
    bob.register()
    grant(env, adm)
    adm.page.reload()
    expect(adm.page.get_by_role("navigation").get_by_role("link", name="Administration")).to_be_visible()
    create_community(adm, "Choir", "We sing.", "Music")
    for member in (cora, bob):
        page = open_community(member, "Choir")
        page.get_by_role("button", name="Join this community").click()
        expect(page.get_by_role("button", name="Leave this community")).to_be_visible()

    # The administrator appoints Cora a core member; she can now post.
    page = open_community(adm, "Choir")
    page.get_by_role("button", name="Make Cora a core member").click()
    expect(page.get_by_role("button", name="Remove Cora from the core members")).to_be_visible()
    page = open_community(cora, "Choir")
    expect(page.get_by_text("Core member").first).to_be_visible()
    bob.go("Chats")
    form = page.get_by_role("region", name="Post an announcement")
    form.get_by_label("Title").fill("Rehearsal moved")
    form.get_by_label("Text").fill("Thursday at six.")
    form.get_by_role("button", name="Post announcement").click()
    expect(page.get_by_role("list", name="Announcements").locator("li", has_text="Rehearsal moved")).to_be_visible()
    expect(tab(bob)).to_have_attribute("data-unread", "1", timeout=NOTIFY_BUDGET_MS)

    # A lesson from the course screen, while Bob is offline: back online, `communities.unread` brings his dot up to
    # date.
    bob.context.set_offline(True)
    line.cut()
    expect(bob.page.locator("#banner")).to_be_visible()
    page.get_by_role("link", name="Open the course").click()
    course = cora.page.locator("main[data-screen=course]")
    expect(course.locator("h1")).to_have_text("Course: Choir")
    lesson_form = course.get_by_role("region", name="Add a lesson")
    lesson_form.get_by_label("Lesson title").fill("Breathing")
    lesson_form.get_by_label("Lesson text").fill("In through the nose.")
    lesson_form.get_by_label("Video address (optional)").fill("https://example.com/breathing")
    lesson_form.get_by_role("button", name="Add lesson").click()
    expect(course.get_by_role("heading", name="Lesson 1: Breathing")).to_be_visible()
    expect(tab(bob)).to_have_attribute("data-unread", "1")
    line.restore()
    bob.context.set_offline(False)
    expect(bob.page.locator("#banner")).to_be_hidden()
    expect(tab(bob)).to_have_attribute("data-unread", "2")

    # Bob reads the announcement and marks the lesson completed; his progress shows.
    page = open_community(bob, "Choir")
    expect(page.get_by_role("list", name="Announcements").locator("li", has_text="Thursday at six.")).to_be_visible()
    expect(tab(bob)).to_have_attribute("data-unread", "0")
    expect(page.get_by_text("0 of 1 lessons completed")).to_be_visible()
    page.get_by_role("link", name="Open the course").click()
    course = bob.page.locator("main[data-screen=course]")
    toggle = course.get_by_role("button", name="Completed: Breathing")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    expect(course.locator("#course-progress-text")).to_have_text("1 of 1 lessons completed")
    video = course.get_by_role("link", name="Watch the video")
    expect(video).to_have_attribute("href", "https://example.com/breathing")
    axe_check(bob.page, "course")
    screenshot(bob.page, "course")
    # Core members see everyone's progress.
    cora.page.reload()
    progress = cora.page.get_by_role("region", name="Progress of the members")
    expect(progress.locator("li", has_text="Bob")).to_contain_text("1 of 1")
    env.expect_clean(adm.page)
    env.expect_clean(cora.page)
    env.expect_clean(bob.page, allow=("ERR_INTERNET_DISCONNECTED",))  # the reconnect attempts while offline


@test
def test_event_edited_and_cancelled(env):
    adm = Person(env, "Adm", timezone_id=ORGANISER_ZONE).register()
    bob = Person(env, "Bob", timezone_id=ORGANISER_ZONE).register()
    grant(env, adm)
    adm.page.reload()
    expect(adm.page.get_by_role("navigation").get_by_role("link", name="Administration")).to_be_visible()
    create_community(adm, "Gardeners", "Weeding on Saturdays.", "Gardening")
    page = open_community(bob, "Gardeners")
    page.get_by_role("button", name="Join this community").click()
    expect(page.get_by_role("button", name="Leave this community")).to_be_visible()

    paris = ZoneInfo(ORGANISER_ZONE)
    day = dt.datetime.now(paris).date() + dt.timedelta(days=3)
    starts = dt.datetime.combine(day, dt.time(10, 0), paris)
    publish_event(adm, "Weeding", starts, starts + dt.timedelta(hours=2), ORGANISER_ZONE, capacity=1, place="Plot 4")
    expect(adm.page.get_by_text("The event Weeding is published.")).to_be_visible()
    page.locator("li[data-event]", has_text="Weeding").get_by_role("link").click()
    event_page = bob.page.locator("main[data-screen=event]")
    expect(event_page.locator("dd.places")).to_have_text("0 of 1 places taken")
    expect(event_page.locator("dd.organiser-when")).to_have_count(0)  # the same zone: said once
    event_page.get_by_role("button", name="Join this event").click()
    expect(event_page.locator("dd.places")).to_have_text("Full: all 1 places are taken")
    weeding = int(bob.page.evaluate("location.hash").split("/")[-1])

    # The administrator edits the place on the event page: Bob's open page follows (event.changed), his dot rises.
    adm.open(f"#/event/{weeding}")
    admin_event = adm.page.locator("main[data-screen=event]")
    expect(admin_event.locator("h1")).to_have_text("Weeding")
    expect(admin_event.get_by_text("Only the community's members can join its events.")).to_be_visible()
    edit = admin_event.locator("form.event-form")
    expect(edit.get_by_label("Starts")).to_have_value(starts.strftime("%Y-%m-%dT%H:%M"))
    edit.get_by_label("Place (optional)").fill("Plot 7")
    edit.get_by_role("button", name="Save event").click()
    expect(adm.page.get_by_text("The event is updated.")).to_be_visible()
    expect(event_page.locator("dl.facts")).to_contain_text("Plot 7")
    expect(tab(bob)).to_have_attribute("data-unread", "1", timeout=NOTIFY_BUDGET_MS)
    axe_check(adm.page, "event-admin")
    screenshot(adm.page, "event-admin")

    # Cancelled: Bob's page says so and offers nothing; his calendar keeps it, marked cancelled.
    adm.page.once("dialog", lambda d: d.accept())
    admin_event.get_by_role("button", name="Cancel event").click()
    expect(admin_event.locator("p.event-status")).to_have_text("Cancelled")
    expect(event_page.locator("p.event-status")).to_have_text("Cancelled")
    expect(event_page.get_by_role("button", name="I cannot come")).to_have_count(0)
    expect(tab(bob)).to_have_attribute("data-unread", "2", timeout=NOTIFY_BUDGET_MS)
    bob.open(f"#/calendar/month:{day.isoformat()}")
    cell = bob.page.locator(f"main[data-screen=calendar] td[data-date='{day.isoformat()}']")
    expect(cell.locator(f"li[data-event='{weeding}']")).to_contain_text("cancelled")
    page = open_community(bob, "Gardeners")
    expect(page.locator(f"li[data-event='{weeding}']").first).to_contain_text("Cancelled")
    # "Event changed" and "event cancelled", new since the last visit.
    expect(page.locator("li.is-new")).to_have_count(2)
    expect(tab(bob)).to_have_attribute("data-unread", "0")
    for p in (adm.page, bob.page):
        env.expect_clean(p)


@test
def test_list_in_pages_joined_first(env):
    sql(env, "INSERT INTO communities (name, category) SELECT 'Club ' || lpad(g::text, 2, '0'), 'Clubs' "
             "FROM generate_series(1, 25) AS g")
    live = int(sql(env, "SELECT count(*) FROM communities WHERE archived_at IS NULL"))
    eve = Person(env, "Eve").register()
    eve.page.locator('header a[data-screen="communities"]').click()
    main = eve.page.locator("main[data-screen=communities]")
    expect(main.locator("li[data-community]")).to_have_count(20)
    expect(main.get_by_role("list", name="Your communities")).to_contain_text("You have not joined a community yet.")
    main.get_by_role("button", name="Show more communities").click()
    expect(main.locator("li[data-community]")).to_have_count(min(live, 40))
    while main.get_by_role("button", name="Show more communities").is_visible():
        count = main.locator("li[data-community]").count()
        main.get_by_role("button", name="Show more communities").click()
        expect(main.locator("li[data-community]")).not_to_have_count(count)
    expect(main.locator("li[data-community]")).to_have_count(live)

    # Joined first: Club 07 moves to "Your communities"; the others stay in order by name.
    main.locator("li[data-community]", has_text="Club 07").get_by_role("link").click()
    eve.page.get_by_role("button", name="Join this community").click()
    expect(eve.page.get_by_role("button", name="Leave this community")).to_be_visible()
    eve.page.locator('header a[data-screen="communities"]').click()
    mine = main.get_by_role("list", name="Your communities").locator("li[data-community]")
    expect(mine).to_have_count(1)
    expect(mine).to_contain_text("Club 07")
    others = main.get_by_role("list", name="Other communities").locator("li[data-community] .name")
    expect(others.first).to_be_visible()
    names = others.all_inner_texts()
    clubs = [n for n in names if n.startswith("Club ")]
    assert clubs == sorted(clubs) and "Club 07" not in clubs, clubs
    env.expect_clean(eve.page)


if __name__ == "__main__":
    harness.main(time_limit=400)
