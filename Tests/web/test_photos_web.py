#!/usr/bin/env python3
# This source file is part of the Switchboard open source project
# SPDX-License-Identifier: Apache-2.0
"""Browser tests of photos in the web app (docs/web.md, "Photos and moments"; issue 19): the Moments tab ("No
moments yet", sharing a moment of three photos with a caption and a progress bar per file, a friend's open feed
receiving it live, the photo viewer with the arrow keys, the buttons, a swipe, Escape and the focus going back,
likes with their count and the likers' names live on the owner's page, deleting one's own moment live on the
friend's page), pages of 10, the composer's limit of 9, a file over 5 MB uploaded through tus with a failed
chunk resumed from the offset the server reports, a damaged file refused in words, avatars set and removed in
Settings and seen live in a friend's list, a changed avatar followed live on every avatar on screen (a friend's
moment card, likers and profile page, a follower's post card and following list; the old blob URL released), a post with photos and no text (grid and viewer), a stranger's
fetch of a moment's photo answered 404. axe-core checks every screen and the open viewer.

Images are made at test time: PNGs written by Python (zlib), and a JPEG by `vips` when it is installed.

    SWITCHBOARD_TEST_DATABASE_URL=... python3 Tests/web/test_photos_web.py [-k NAME]
"""
import os
import random
import re
import shutil
import struct
import subprocess
import tempfile
import zlib

from playwright.sync_api import expect

import harness
import people  # noqa: F401 (sets Playwright's expectation timeout)
from harness import test, screenshot, axe_check, wait_for
from people import Person

TUS_CHUNK = 2 * 1024 * 1024


# MARK: images made here

def png(width, height, rgb=None, noise=False):
    """A truecolour PNG: one colour (`rgb`), a gradient, or random noise (which does not compress: a big file)."""
    rows = bytearray()
    rnd = random.Random(width * 7 + height)
    for y in range(height):
        rows.append(0)
        if noise:
            rows += rnd.randbytes(width * 3)
        elif rgb:
            rows += bytes(rgb) * width
        else:
            rows += b"".join(bytes(((x * 255) // max(1, width - 1), (y * 255) // max(1, height - 1), 128)) for x in range(width))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(bytes(rows), 1)) + chunk(b"IEND", b"")


def vips_jpeg(width, height):
    """A JPEG made by libvips' own tool (`vips`), or a PNG when vips is not installed."""
    if not shutil.which("vips"):
        return png(width, height), "image/png", "png"
    folder = tempfile.mkdtemp(prefix="sb-photos-")
    try:
        path = os.path.join(folder, "x.jpg")
        subprocess.run(["vips", "xyz", os.path.join(folder, "xyz.v"), str(width), str(height)], check=True, capture_output=True)
        subprocess.run(["vips", "colourspace", os.path.join(folder, "xyz.v"), os.path.join(folder, "srgb.v"), "srgb"], check=True, capture_output=True)
        subprocess.run(["vips", "cast", os.path.join(folder, "srgb.v"), path + "[Q=85]", "uchar"], check=True, capture_output=True)
        with open(path, "rb") as f:
            return f.read(), "image/jpeg", "jpg"
    except subprocess.CalledProcessError:
        return png(width, height), "image/png", "png"
    finally:
        shutil.rmtree(folder, ignore_errors=True)


COLOURS = [(200, 40, 40), (40, 160, 60), (30, 60, 200), (220, 180, 20), (120, 40, 160), (20, 170, 170), (240, 120, 0),
           (90, 90, 90), (160, 100, 60), (0, 0, 0)]


def files(count, start=0):
    """`count` distinct small PNGs for a file input."""
    return [{"name": f"photo{start + i + 1}.png", "mimeType": "image/png",
             "buffer": png(96 + 8 * i, 64 + 4 * i, COLOURS[(start + i) % len(COLOURS)])} for i in range(count)]


# MARK: people and screens

def friends(env, *names):
    group = [Person(env, name).register() for name in names]
    for other in group[1:]:
        group[0].befriend(other)
    return group


def moments_tab(person):
    person.go("Moments")
    expect(person.page.locator("main[data-screen=moments] ul.moments-feed[aria-busy=false]")).to_be_attached()


def share_moment(person, chosen, caption=""):
    page = person.page
    page.get_by_label("Add photos (up to 9)").set_input_files(chosen)
    expect(page.locator("main .moment-compose ul.picked li")).to_have_count(len(chosen))
    if caption:
        page.get_by_label("Caption (optional)").fill(caption)
    page.get_by_role("button", name="Share", exact=True).click()
    expect(page.locator("main .moment-compose ul.picked li")).to_have_count(0)
    item = page.locator("main li.moment").first
    if caption:
        item = page.locator("main li.moment", has_text=caption).first
    expect(item).to_be_visible()
    return int(item.get_attribute("data-moment"))


def moment(person, moment_id):
    return person.page.locator(f'main li.moment[data-moment="{moment_id}"]')


def session_token(page):
    return page.evaluate("""() => JSON.parse(sessionStorage.getItem('switchboard.session')
        ?? localStorage.getItem('switchboard.session')).token""")


# Calls ops on a second WebSocket of the page's session (for data the test needs in bulk).
CALL_OPS = """async (calls) => {
  const session = JSON.parse(sessionStorage.getItem('switchboard.session') ?? localStorage.getItem('switchboard.session'));
  const ws = new WebSocket(`ws://${location.host}/ws`, 'switchboard.v1');
  await new Promise((resolve, reject) => { ws.onopen = resolve; ws.onerror = reject; });
  let n = 0;
  const waiting = new Map();
  ws.onmessage = (e) => {
    const m = JSON.parse(e.data);
    if (m.re !== undefined && waiting.has(m.re)) { waiting.get(m.re)(m); waiting.delete(m.re); }
  };
  const call = (op, params = {}) => new Promise((resolve) => { const id = ++n; waiting.set(id, resolve); ws.send(JSON.stringify({ id, op, ...params })); });
  const auth = await call('authenticate', { token: session.token });
  if (auth.error) throw new Error(JSON.stringify(auth.error));
  const results = [];
  for (const [op, params] of calls) results.push(await call(op, params));
  ws.close();
  return results;
}"""

UPLOAD = """async ({ bytes, type }) => {
  const session = JSON.parse(sessionStorage.getItem('switchboard.session') ?? localStorage.getItem('switchboard.session'));
  const body = new Uint8Array(bytes);
  const r = await fetch('/photos', { method: 'POST', headers: { Authorization: `Bearer ${session.token}`, 'Content-Type': type }, body });
  return { status: r.status, body: await r.json() };
}"""


def upload(person, data, kind="image/png"):
    result = person.page.evaluate(UPLOAD, {"bytes": list(data), "type": kind})
    assert result["status"] == 201, result
    return result["body"]


def loaded_images(locator):
    """How many images under `locator` have been fetched and decoded (not just the colour placeholder)."""
    return locator.evaluate("(n) => [...n.querySelectorAll('img')].filter((i) => i.complete && i.naturalWidth > 0).length")


# MARK: tests

@test
def test_moments_share_view_like_delete(env):
    ann, bob = friends(env, "Ann", "Bob")
    moments_tab(bob)
    expect(bob.page.get_by_text("No moments yet")).to_be_visible()
    screenshot(bob.page, "moments-empty")
    axe_check(bob.page, "moments-empty")
    moments_tab(ann)
    jpeg, jpeg_type, jpeg_ext = vips_jpeg(640, 480)
    chosen = files(2) + [{"name": f"made-by-vips.{jpeg_ext}", "mimeType": jpeg_type, "buffer": jpeg}]
    page = ann.page
    page.get_by_label("Add photos (up to 9)").set_input_files(chosen)
    expect(page.locator("main .moment-compose ul.picked li")).to_have_count(3)
    expect(page.get_by_role("progressbar", name="Uploading photo1.png")).to_be_visible()
    axe_check(page, "moments-compose")
    screenshot(page, "moments-compose")
    # The progress bars reach 100 as the files go out (watched before the list is cleared).
    page.evaluate("""() => { window.__progress = [];
      for (const bar of document.querySelectorAll('main .moment-compose progress'))
        new MutationObserver(() => window.__progress.push(Number(bar.value))).observe(bar, { attributes: true }); }""")
    page.get_by_label("Caption (optional)").fill("Sunday by the lake")
    page.get_by_role("button", name="Share", exact=True).click()
    mine = page.locator("main li.moment", has_text="Sunday by the lake")
    expect(mine).to_be_visible()
    assert page.evaluate("window.__progress.filter((v) => v === 100).length") >= 3
    moment_id = int(mine.get_attribute("data-moment"))
    # Bob's open feed gets it live; "No moments yet" goes.
    theirs = moment(bob, moment_id)
    expect(theirs).to_be_visible()
    expect(bob.page.get_by_text("No moments yet")).to_be_hidden()
    expect(theirs.locator(".caption")).to_have_text("Sunday by the lake")
    expect(theirs.locator(".photo-grid li")).to_have_count(3)
    wait_for(lambda: loaded_images(theirs.locator(".photo-grid")) == 3, what="the three thumbnails")
    screenshot(bob.page, "moments-feed")
    axe_check(bob.page, "moments-feed")

    # The viewer: arrows, buttons, swipe, Home/End, Escape; the focus goes back to the thumbnail.
    second = theirs.get_by_role("button", name="Open photo 2 of 3")
    second.click()
    viewer = bob.page.locator("dialog.viewer")
    expect(viewer).to_be_visible()
    expect(viewer.locator(".viewer-count")).to_have_text("Photo 2 of 3")
    expect(viewer.get_by_role("img", name="Photo 2 of 3")).to_be_visible()
    wait_for(lambda: loaded_images(viewer) == 1, what="the display image")
    size = viewer.locator("img").evaluate("(i) => [i.naturalWidth, i.naturalHeight]")
    assert size == [96 + 8, 64 + 4], size  # never enlarged: the display rendition of a small photo is its own size
    screenshot(bob.page, "viewer")
    axe_check(bob.page, "viewer")
    bob.page.keyboard.press("ArrowRight")
    expect(viewer.locator(".viewer-count")).to_have_text("Photo 3 of 3")
    expect(viewer.get_by_role("button", name="Next photo")).to_be_disabled()
    bob.page.keyboard.press("ArrowLeft")
    bob.page.keyboard.press("ArrowLeft")
    expect(viewer.locator(".viewer-count")).to_have_text("Photo 1 of 3")
    viewer.get_by_role("button", name="Next photo").click()
    expect(viewer.locator(".viewer-count")).to_have_text("Photo 2 of 3")
    # A swipe to the left (a drag with the pointer) shows the next photo; to the right the previous.
    frame = viewer.locator(".viewer-frame").bounding_box()
    y = frame["y"] + frame["height"] / 2
    for start, end, expected in ((0.8, 0.2, "Photo 3 of 3"), (0.2, 0.8, "Photo 2 of 3")):
        bob.page.mouse.move(frame["x"] + frame["width"] * start, y)
        bob.page.mouse.down()
        bob.page.mouse.move(frame["x"] + frame["width"] * end, y, steps=5)
        bob.page.mouse.up()
        expect(viewer.locator(".viewer-count")).to_have_text(expected)
    bob.page.keyboard.press("End")
    expect(viewer.locator(".viewer-count")).to_have_text("Photo 3 of 3")
    bob.page.keyboard.press("Home")
    expect(viewer.locator(".viewer-count")).to_have_text("Photo 1 of 3")
    bob.page.keyboard.press("Escape")
    expect(viewer).to_have_count(0)
    expect(second).to_be_focused()
    # With the keyboard alone: Enter on the thumbnail opens it with the focus on Close, Tab stays in the dialog
    # (the page behind is inert), Escape closes it and the focus is back.
    bob.page.keyboard.press("Enter")
    expect(viewer.locator(".viewer-count")).to_have_text("Photo 2 of 3")
    expect(viewer.get_by_role("button", name="Close")).to_be_focused()
    bob.page.keyboard.press("Tab")
    expect(viewer.get_by_role("button", name="Previous photo")).to_be_focused()
    bob.page.keyboard.press("Enter")
    expect(viewer.locator(".viewer-count")).to_have_text("Photo 1 of 3")
    # Previous is disabled now: the focus went to Close rather than being lost.
    expect(viewer.get_by_role("button", name="Close")).to_be_focused()
    assert bob.page.evaluate("document.querySelector('main').inert || document.querySelector('dialog.viewer').matches(':modal')")
    bob.page.keyboard.press("Escape")
    expect(viewer).to_have_count(0)
    expect(second).to_be_focused()

    # Likes: Bob's like shows on Ann's open page live, with his name; "Who liked this" lists him.
    like = theirs.get_by_role("button", name="Like the moment of Ann, 0 likes")
    like.click()
    expect(theirs.get_by_role("button", name="You like the moment of Ann, 1 like. Press to take it back")).to_have_attribute("aria-pressed", "true")
    expect(mine.locator(".likers")).to_have_text("Liked by Bob")
    expect(mine.get_by_role("button", name="Like the moment of Ann, 1 like")).to_be_visible()
    mine.get_by_role("button", name="Who liked this").click()
    expect(mine.get_by_role("list", name="People who like the moment of Ann")).to_have_text("B Bob")
    axe_check(page, "moment-likers")
    # A second device of Bob's sees his like as his (liked) when it loads the feed.
    bob2 = Person(env, "Bob's phone", phone=bob.phone).login()
    moments_tab(bob2)
    expect(moment(bob2, moment_id).get_by_role("button", name="You like the moment of Ann, 1 like. Press to take it back")).to_be_visible()
    # Unlike: the count goes back on both pages.
    theirs.get_by_role("button", name="You like the moment of Ann, 1 like. Press to take it back").click()
    expect(mine.locator(".likers")).to_have_text("")
    expect(mine.get_by_role("button", name="Like the moment of Ann, 0 likes")).to_be_visible()
    expect(moment(bob2, moment_id).get_by_role("button", name="Like the moment of Ann, 0 likes")).to_be_visible()

    # Ann deletes it (after the confirmation): gone from Bob's open feed too.
    page.once("dialog", lambda d: d.accept())
    mine.get_by_role("button", name="Delete your moment of", exact=False).click()
    expect(mine).to_have_count(0)
    expect(theirs).to_have_count(0)
    expect(bob.page.get_by_text("No moments yet")).to_be_visible()
    expect(page.get_by_text("No moments yet")).to_be_visible()
    for person in (ann, bob, bob2):
        env.expect_clean(person.page)


@test
def test_moments_pages_of_ten_and_stranger_gets_404(env):
    ann, bob = friends(env, "Ann", "Bob")
    carol = Person(env, "Carol").register()
    moments_tab(ann)
    photo = upload(ann, png(80, 60, (10, 120, 200)))
    again = upload(ann, png(80, 60, (10, 120, 200)))
    assert again["photo_id"] == photo["photo_id"] and again.get("duplicate") is True, again
    made = ann.page.evaluate(CALL_OPS, [["moments.create", {"photo_ids": [photo["photo_id"]], "caption": f"Moment {i}"}] for i in range(1, 12)])
    ids = [m["ok"]["moment"]["moment_id"] for m in made]
    moments_tab(bob)
    items = bob.page.locator("main li.moment")
    expect(items).to_have_count(10)
    expect(items.first.locator(".caption")).to_have_text("Moment 11")
    bob.page.get_by_role("button", name="Show older moments").click()
    expect(items).to_have_count(11)
    shown = [int(x) for x in items.evaluate_all("(nodes) => nodes.map((n) => n.dataset.moment)")]
    assert shown == sorted(ids, reverse=True), shown
    expect(bob.page.get_by_role("button", name="Show older moments")).to_be_hidden()
    # A 360 px phone: nothing needs sideways scrolling, the viewer included.
    bob.page.set_viewport_size({"width": 360, "height": 640})
    assert bob.page.evaluate("document.documentElement.scrollWidth") <= 360
    items.first.get_by_role("button", name="Open photo 1 of 1").click()
    expect(bob.page.locator("dialog.viewer .viewer-count")).to_have_text("Photo 1 of 1")
    assert bob.page.evaluate("document.documentElement.scrollWidth") <= 360
    box = bob.page.locator("dialog.viewer").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 360, box
    screenshot(bob.page, "viewer-360")
    bob.page.get_by_role("button", name="Close").click()
    expect(bob.page.locator("dialog.viewer")).to_have_count(0)
    # Carol is no friend: her feed is empty and the photo's URL answers 404 to her (the same as a missing id).
    moments_tab(carol)
    expect(carol.page.get_by_text("No moments yet")).to_be_visible()
    token = session_token(carol.page)
    status, _, _ = harness.http_get(f"{env.url}photos/{photo['photo_id']}?size=thumb", {"Authorization": f"Bearer {token}"})
    assert status == 404, status
    status, _, _ = harness.http_get(f"{env.url}photos/{photo['photo_id']}?size=thumb", {"Authorization": f"Bearer {session_token(bob.page)}"})
    assert status == 200, status
    # Ann's own photos (one: the same file twice is one photo); deleting it empties, and so deletes, all eleven
    # moments: Bob's open feed follows.
    moments_tab(ann)
    ann.page.get_by_role("button", name="Show your photos").click()
    mine = ann.page.get_by_role("list", name="Your photos, newest first")
    expect(mine.locator("li")).to_have_count(1)
    wait_for(lambda: loaded_images(mine) == 1, what="the thumbnail of Ann's photo")
    axe_check(ann.page, "your-photos")
    ann.page.once("dialog", lambda d: d.accept())
    mine.get_by_role("button", name="Delete your photo of", exact=False).click()
    expect(mine).to_have_text("You have no photos yet.")
    expect(items).to_have_count(0)
    expect(bob.page.get_by_text("No moments yet")).to_be_visible()
    expect(ann.page.locator("main li.moment")).to_have_count(0)
    for person in (ann, bob, carol):
        env.expect_clean(person.page)


@test
def test_composer_limits_errors_and_resumed_large_upload(env):
    (ann,) = friends(env, "Ann")
    moments_tab(ann)
    page = ann.page
    # Ten chosen: nine are kept, and the tenth is refused in words.
    page.get_by_label("Add photos (up to 9)").set_input_files(files(10))
    expect(page.locator("main .moment-compose ul.picked li")).to_have_count(9)
    expect(page.locator("main .moment-compose .photo-picker .error")).to_have_text("You can add up to 9 photos. The others were left out.")
    # A 360 px phone: the chosen files (preview, name, progress bar, Remove) need no sideways scrolling.
    wide = page.viewport_size
    page.set_viewport_size({"width": 360, "height": 640})
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    screenshot(page, "moments-compose-360")
    page.set_viewport_size(wide)
    page.get_by_role("button", name="Remove photo9.png").click()
    expect(page.locator("main .moment-compose ul.picked li")).to_have_count(8)
    for i in range(8, 0, -1):
        page.get_by_role("button", name=f"Remove photo{i}.png").click()
    expect(page.get_by_role("button", name="Share", exact=True)).to_be_disabled()
    # A damaged file: the server refuses it and the page says so; nothing is shared.
    page.get_by_label("Add photos (up to 9)").set_input_files([{"name": "broken.jpg", "mimeType": "image/jpeg",
                                                                 "buffer": b"\xff\xd8\xff\xe0" + b"\x00" * 200}])
    page.get_by_role("button", name="Share", exact=True).click()
    expect(page.locator("main form.moment-compose > [role=alert]")).to_contain_text("Please choose")
    expect(page.get_by_text("No moments yet")).to_be_visible()
    page.get_by_role("button", name="Remove broken.jpg").click()

    # Over 5 MB: tus. The second chunk's PATCH fails on the way; the page asks the server (HEAD) where it stands
    # and goes on from there.
    big = png(1500, 1400, noise=True)
    assert len(big) > 5 * 1024 * 1024
    patches = []
    failed = []
    methods = []

    def on_patch(route):
        request = route.request
        methods.append(request.method)
        if request.method == "PATCH":
            offset = int(request.headers.get("upload-offset", "-1"))
            patches.append(offset)
            if offset == TUS_CHUNK and not failed:
                failed.append(offset)
                route.abort("connectionreset")
                return
        route.continue_()

    page.route("**/uploads/**", on_patch)
    page.get_by_label("Add photos (up to 9)").set_input_files([{"name": "big.png", "mimeType": "image/png", "buffer": big}])
    page.get_by_label("Caption (optional)").fill("A big one")
    page.get_by_role("button", name="Share", exact=True).click()
    item = page.locator("main li.moment", has_text="A big one")
    expect(item).to_be_visible(timeout=60000)
    assert failed == [TUS_CHUNK], failed
    assert patches[:3] == [0, TUS_CHUNK, TUS_CHUNK], patches
    assert patches == sorted(patches) and patches[-1] == (len(big) - 1) // TUS_CHUNK * TUS_CHUNK, patches
    # After the failed chunk: HEAD (the stored offset), then the same chunk again.
    assert methods.index("HEAD") == 2 and methods.count("HEAD") == 1, methods
    wait_for(lambda: loaded_images(item.locator(".photo-grid")) == 1, what="the big photo's thumbnail")
    size = item.locator(".photo").evaluate("(n) => getComputedStyle(n).aspectRatio")
    assert size.replace(" ", "") == "1500/1400", size
    env.expect_clean(page, allow=("ERR_CONNECTION_RESET", "ERR_FAILED", "status of 415", "status of 422", "status of 400"))


@test
def test_avatar_set_and_remove_seen_live_by_a_friend(env):
    ann, bob = friends(env, "Ann", "Bob")
    bob.go("Friends")
    row = bob.page.locator(f'main li[data-user]', has_text="Ann")
    expect(row.locator(".avatar.initial")).to_have_text("A")
    ann.go("Settings")
    page = ann.page
    expect(page.get_by_text("You have no picture yet.")).to_be_visible()
    page.get_by_label("Choose a picture").set_input_files([{"name": "me.png", "mimeType": "image/png", "buffer": png(300, 300)}])
    expect(page.get_by_text("Your picture is saved.")).to_be_visible()
    wait_for(lambda: loaded_images(page.locator(".avatar-current")) == 1, what="Ann's avatar in Settings")
    screenshot(page, "settings-avatar")
    axe_check(page, "settings-avatar")
    wide = page.viewport_size
    page.set_viewport_size({"width": 360, "height": 640})
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    screenshot(page, "settings-avatar-360")
    page.set_viewport_size(wide)
    # Bob's open friends list follows (profile.updated), with the picture fetched.
    expect(row.locator(".avatar img")).to_be_attached()
    wait_for(lambda: loaded_images(row) == 1, what="Ann's avatar in Bob's list")
    screenshot(bob.page, "friends-avatar")
    # A moment shows its owner's picture.
    moments_tab(ann)
    share_moment(ann, files(1), "With my picture")
    moments_tab(bob)
    wait_for(lambda: loaded_images(bob.page.locator("main li.moment .post-head")) == 1, what="the owner's avatar on the moment")
    # Removed: back to the initial, on Bob's list too.
    bob.go("Friends")
    ann.go("Settings")
    page.get_by_role("button", name="Remove picture").click()
    expect(page.get_by_text("Your picture is removed.")).to_be_visible()
    expect(page.get_by_text("You have no picture yet.")).to_be_visible()
    row = bob.page.locator(f'main li[data-user]', has_text="Ann")
    expect(row.locator(".avatar.initial")).to_have_text("A")
    for person in (ann, bob):
        env.expect_clean(person.page)


def with_handle(env, name):
    """Registers `name` and chooses a handle in Settings (a profile page is reached by its handle)."""
    person = Person(env, name).register()
    person.handle = f"{name.lower()}{random.randint(10000, 99999)}"
    person.go("Settings")
    person.page.get_by_label("Your handle").fill(person.handle)
    expect(person.page.locator(".handle-status")).to_have_text(f"@{person.handle} is available.")
    person.page.get_by_role("button", name="Save handle").click()
    expect(person.page.get_by_role("link", name=f"See your profile, @{person.handle}")).to_be_visible()
    return person


def set_picture(person, name, rgb):
    """Chooses a picture in Settings; returns its photo id."""
    page = person.page
    page.get_by_label("Choose a picture").set_input_files([{"name": name, "mimeType": "image/png", "buffer": png(200, 160, rgb)}])
    expect(page.get_by_text("Your picture is saved.")).to_be_visible()
    expect(page.locator(".avatar-current")).not_to_have_attribute("data-avatar", "")
    return int(page.locator(".avatar-current").get_attribute("data-avatar"))


def shows_picture(locator, photo_id):
    """The avatar under `locator` shows `photo_id`, fetched and decoded."""
    expect(locator.locator(f'.avatar[data-avatar-photo="{photo_id}"]')).to_have_count(1)
    wait_for(lambda: loaded_images(locator.locator(".avatar")) == 1, what=f"picture {photo_id} under {locator}")


def shows_initial(locator, letter):
    expect(locator.locator(".avatar")).to_have_count(1)
    expect(locator.locator(".avatar")).to_have_class(re.compile(r"\binitial\b"))
    expect(locator.locator(".avatar")).to_have_text(letter)


def blob_alive(page, url):
    """Whether the blob URL still gives an image (a revoked one fails to load; `fetch` is not allowed by the CSP)."""
    return page.evaluate("""(u) => new Promise((resolve) => { const i = new Image();
      i.onload = () => resolve(true); i.onerror = () => resolve(false); i.src = u; })""", url)


@test
def test_avatar_change_follows_everywhere_live(env):
    """Every avatar on screen follows `profile.updated`: a friend's open moment card, its likers, the profile
    header and a post card on the friend's open profile page of Ann, a follower's open home and following list;
    a new picture replaces the old one (whose blob URL is released), and removing it brings back the initial."""
    ann = with_handle(env, "Ann")
    bob = Person(env, "Bob").register()
    ann.befriend(bob)
    cara = with_handle(env, "Cara")
    cara.open(f"#/u/{ann.handle}")
    cara.page.get_by_role("button", name="Follow Ann").click()
    expect(cara.page.get_by_role("button", name="You follow Ann. Press to unfollow")).to_be_visible()
    # Ann posts, shares a moment and likes it herself (so that she is among its likers).
    ann.go("Posts")
    ann.page.get_by_label("What is happening?").fill("Hello from Ann")
    ann.page.locator("main form.compose").first.get_by_role("button", name="Post", exact=True).click()
    expect(ann.page.locator("main li.post", has_text="Hello from Ann")).to_be_visible()
    moments_tab(ann)
    moment_id = share_moment(ann, files(1), "Ann's moment")
    moment(ann, moment_id).get_by_role("button", name="Like the moment of Ann, 0 likes").click()
    expect(moment(ann, moment_id).locator(".likers")).to_have_text("Liked by Ann")

    # Bob (a friend): the moment card with its likers open; on his phone Ann's profile page.
    moments_tab(bob)
    card = moment(bob, moment_id)
    card.get_by_role("button", name="Who liked this").click()
    likers = card.get_by_role("list", name="People who like the moment of Ann")
    expect(likers).to_have_text("A Ann")
    bob2 = Person(env, "Bob's phone", phone=bob.phone).login()
    bob2.open(f"#/u/{ann.handle}")
    header = bob2.page.locator("main .profile-about")
    post = bob2.page.locator("main li.post", has_text="Hello from Ann")
    expect(post).to_be_visible()
    # Cara (a follower, no friend): her home with Ann's post.
    cara.go("Posts")
    cara_post = cara.page.locator("main li.post", has_text="Hello from Ann")
    expect(cara_post).to_be_visible()
    places = {"moment card": card.locator(".post-head"), "likers": likers.locator("li"), "profile header": header,
              "post card": post.locator(".post-head"), "follower's post card": cara_post.locator(".post-head")}
    for where in places.values():
        shows_initial(where, "A")
    expect(header).to_have_text(f"A@{ann.handle}")  # the initial and the handle: no bio, and no "null" for it

    # Ann chooses a picture: every one of them shows it, without a reload.
    ann.go("Settings")
    first = set_picture(ann, "red.png", (220, 30, 30))
    for where in places.values():
        shows_picture(where, first)
    screenshot(bob2.page, "profile-avatar-live")
    axe_check(bob2.page, "profile-avatar-live")
    old = card.locator(".post-head .avatar img").get_attribute("src")
    assert old.startswith("blob:"), old
    assert blob_alive(bob.page, old)

    # Another picture: every one changes again, and Bob's page releases the old blob URL (nothing shows it).
    second = set_picture(ann, "blue.png", (30, 30, 220))
    assert second != first
    for where in places.values():
        shows_picture(where, second)
    wait_for(lambda: not blob_alive(bob.page, old), what="the old picture's blob URL released")
    # A follow list open on the follower's page: Cara's own profile, "1 following" (Ann).
    cara.open(f"#/u/{cara.handle}")
    cara.page.get_by_role("button", name="1 following").click()
    following = cara.page.get_by_role("list", name="People Cara follows").locator("li", has_text="Ann")
    shows_picture(following, second)
    # At 360 px the profile header with its picture needs no sideways scrolling.
    bob2.page.set_viewport_size({"width": 360, "height": 640})
    assert bob2.page.evaluate("document.documentElement.scrollWidth") <= 360
    screenshot(bob2.page, "profile-avatar-360")

    # A new name (`profile.updated` with only the name and handle) says nothing about the picture: it stays. Ann's
    # moment shared after it reaches Bob's open feed after the event, so the event has been handled. (Bob's page
    # reloaded first: it knows the picture from the feed it read, not from an earlier event.)
    bob.page.reload()
    expect(bob.page.locator("main[data-screen=moments] ul.moments-feed[aria-busy=false]")).to_be_attached()
    card.get_by_role("button", name="Who liked this").click()
    shows_picture(places["moment card"], second)
    ann.page.get_by_label("Your name").fill("Anna")
    ann.page.get_by_role("button", name="Save name").click()
    expect(ann.page.get_by_text("Your name is saved.")).to_be_visible()
    moments_tab(ann)
    share_moment(ann, files(1, start=3), "After the rename")
    expect(bob.page.locator("main li.moment", has_text="After the rename")).to_be_visible()
    for where in (places["moment card"], places["likers"]):
        shows_picture(where, second)
    ann.go("Settings")

    # Removed: the initial everywhere, live.
    ann.page.get_by_role("button", name="Remove picture").click()
    expect(ann.page.get_by_text("You have no picture yet.")).to_be_visible()
    del places["follower's post card"]  # Cara has left her home for her profile
    for where in [*places.values(), following]:
        shows_initial(where, "A")
    for person in (ann, bob2, cara):
        env.expect_clean(person.page)
    env.expect_clean(bob.page, allow=(old,))  # the probe of the released URL


@test
def test_post_with_photos(env):
    ann = Person(env, "Ann").register()
    handle = f"ann{random.randint(10000, 99999)}"
    ann.go("Settings")
    ann.page.get_by_label("Your handle").fill(handle)
    expect(ann.page.locator(".handle-status")).to_have_text(f"@{handle} is available.")
    ann.page.get_by_role("button", name="Save handle").click()
    expect(ann.page.get_by_role("link", name=f"See your profile, @{handle}")).to_be_visible()
    ann.go("Posts")
    page = ann.page
    expect(page.locator("main[data-screen=posts] ul.posts-feed[aria-busy=false]")).to_be_attached()
    picker = page.get_by_label("Add photos (up to 4)")
    picker.set_input_files(files(5))
    expect(page.locator("main form.compose ul.picked li")).to_have_count(4)
    expect(page.locator("main form.compose .photo-picker .error")).to_have_text("You can add up to 4 photos. The others were left out.")
    page.get_by_role("button", name="Remove photo3.png").click()
    page.get_by_role("button", name="Remove photo4.png").click()
    # Photos and no text: Post is enabled.
    send = page.locator("main form.compose").first.get_by_role("button", name="Post", exact=True)
    expect(send).to_be_enabled()
    axe_check(page, "compose-photos")
    send.click()
    item = page.locator("main li.post").first
    expect(item.locator(".photo-grid li")).to_have_count(2)
    wait_for(lambda: loaded_images(item.locator(".photo-grid")) == 2, what="the post's thumbnails")
    item.get_by_role("button", name="Open photo 1 of 2").click()
    viewer = page.locator("dialog.viewer")
    expect(viewer.locator(".viewer-count")).to_have_text("Photo 1 of 2")
    page.keyboard.press("ArrowRight")
    expect(viewer.locator(".viewer-count")).to_have_text("Photo 2 of 2")
    page.keyboard.press("Escape")
    expect(item.get_by_role("button", name="Open photo 1 of 2")).to_be_focused()
    screenshot(page, "post-photos")
    axe_check(page, "post-photos")
    # Another reader (a public account: anyone signed in may read it) sees the grid on the profile.
    dan = Person(env, "Dan").register()
    dan.open(f"#/u/{handle}")
    post = dan.page.locator("main li.post").first
    expect(post.locator(".photo-grid li")).to_have_count(2)
    wait_for(lambda: loaded_images(post.locator(".photo-grid")) == 2, what="the thumbnails for another reader")
    for person in (ann, dan):
        env.expect_clean(person.page)


if __name__ == "__main__":
    harness.main(time_limit=600)
