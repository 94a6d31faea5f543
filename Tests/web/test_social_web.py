#!/usr/bin/env python3
# This source file is part of the Switchboard open source project
# SPDX-License-Identifier: Apache-2.0
"""Browser tests of the social layer's screens (docs/web.md, "Posts"): the compose countdown in user-perceived
characters (an emoji with a skin tone or a family emoji counts as one), a post reaching a follower's open home
page live behind "1 new post" (and after a dropped connection, through `live.subscribe` with `since`), a like
count changing live on the author's page, following a protected account and its approval reaching the
follower's open profile page, notifications grouped ("Dan and 2 others liked your post") with the unread badge
and "Mark all as read", and a thread page (ancestors, the post, replies arriving live). axe-core checks every
screen.

    SWITCHBOARD_TEST_DATABASE_URL=... python3 Tests/web/test_social_web.py [-k NAME]
"""
import random

from playwright.sync_api import expect

import harness
import people  # noqa: F401 (sets Playwright's expectation timeout)
from harness import test, screenshot, axe_check
from people import Line, Person


def unique(name):
    return f"{name}{random.randint(10000, 99999)}"


def social_person(env, name):
    """Registers `name` and chooses a handle in Settings (checked as typed: "@x is available.")."""
    person = Person(env, name).register()
    person.handle = unique(name.lower())
    person.go("Settings")
    box = person.page.get_by_label("Your handle")
    box.fill(person.handle)
    expect(person.page.locator(".handle-status")).to_have_text(f"@{person.handle} is available.")
    person.page.get_by_role("button", name="Save handle").click()
    expect(person.page.get_by_role("link", name=f"See your profile, @{person.handle}")).to_be_visible()
    return person


def open_profile(person, other):
    person.open(f"#/u/{other.handle}")
    expect(person.page.locator("main[data-screen=u] h1")).to_have_text(other.name)


def follow(person, other):
    open_profile(person, other)
    person.page.get_by_role("button", name=f"Follow {other.name}").click()


def notifications_tab(person):
    return person.page.locator('header a[data-screen="notifications"]')


def home(person):
    person.go("Posts")
    expect(person.page.locator("main[data-screen=posts] ul.posts-feed[aria-busy=false]")).to_be_attached()


def write_post(person, text):
    page = person.page
    page.get_by_label("What is happening?").fill(text)
    page.locator("main form.compose").first.get_by_role("button", name="Post", exact=True).click()
    item = page.locator("main li.post", has_text=text).first
    expect(item).to_be_visible()
    return int(item.get_attribute("data-post"))


def post_item(person, text):
    return person.page.locator("main li.post", has_text=text).first


@test
def test_compose_countdown(env):
    ann = social_person(env, "Ann")
    home(ann)
    page = ann.page
    box = page.get_by_label("What is happening?")
    count = page.locator("main form.compose .countdown").first
    send = page.locator("main form.compose").first.get_by_role("button", name="Post", exact=True)
    expect(count).to_have_text("280 characters left")
    expect(send).to_be_disabled()
    box.fill("a" * 279)
    expect(count).to_have_text("1 character left")
    # An emoji with a skin tone and a family emoji are one character each (grapheme clusters), as the server counts.
    box.fill("👍🏽" * 140 + "👨‍👩‍👧" * 140)
    expect(count).to_have_text("0 characters left")
    expect(send).to_be_enabled()
    box.fill("👍🏽" * 140 + "👨‍👩‍👧" * 143)
    expect(count).to_have_text("3 characters too many")
    expect(count).to_have_class("countdown over")
    expect(send).to_be_disabled()
    assert page.evaluate("getComputedStyle(document.querySelector('main .countdown')).color") == "rgb(164, 22, 26)"
    screenshot(page, "compose-over")
    axe_check(page, "compose-over")
    # Back under the limit, a post of exactly 280 emoji goes out and shows at the top of my home.
    box.fill("🎉" * 280)
    expect(count).to_have_text("0 characters left")
    send.click()
    expect(post_item(ann, "🎉" * 280)).to_be_visible()
    expect(count).to_have_text("280 characters left")
    env.expect_clean(page)


@test
def test_post_live_on_second_home_and_like_count(env):
    ann = social_person(env, "Ann")
    bob = social_person(env, "Bob")
    follow(bob, ann)
    expect(bob.page.get_by_role("button", name=f"You follow {ann.name}. Press to unfollow")).to_be_visible()
    home(bob)
    home(ann)
    write_post(ann, "Hello from Ann")
    # Bob's open home does not jump: the post waits behind "1 new post".
    fresh = bob.page.get_by_role("button", name="1 new post")
    expect(fresh).to_be_visible()
    expect(bob.page.locator("main li.post", has_text="Hello from Ann")).to_have_count(0)
    screenshot(bob.page, "home-new-post")
    axe_check(bob.page, "home-new-post")
    fresh.click()
    item = post_item(bob, "Hello from Ann")
    expect(item).to_be_visible()
    axe_check(bob.page, "home-posts")
    # Bob likes it: the count changes live on Ann's page.
    item.get_by_role("button", name=f"Like the post by {ann.name}, 0 likes").click()
    expect(item.get_by_role("button", name=f"You liked the post by {ann.name}, 1 like. Press to undo")).to_be_visible()
    ann_item = post_item(ann, "Hello from Ann")
    expect(ann_item.locator("button.like")).to_have_text("Like (1)")
    item.locator("button.like").click()
    expect(item.locator("button.like")).to_have_text("Like (0)")
    expect(ann_item.locator("button.like")).to_have_text("Like (0)")

    # Bob's connection drops; what Ann posts meanwhile comes with the resubscription (`since`).
    line = Line(bob.page)
    bob.page.reload()
    home(bob)
    expect(post_item(bob, "Hello from Ann")).to_be_visible()
    line.cut()
    expect(bob.page.locator("#banner")).to_be_visible()
    write_post(ann, "Posted while Bob was away")
    # A like while he is away: `post.counts` is not replayed; his page reads the post again after the resume.
    post_item(ann, "Hello from Ann").locator("button.like").click()
    expect(post_item(ann, "Hello from Ann").locator("button.like")).to_contain_text("(1)")
    expect(post_item(bob, "Hello from Ann").locator("button.like")).to_have_text("Like (0)")
    line.restore()
    expect(bob.page.locator("#banner")).to_be_hidden()
    expect(post_item(bob, "Hello from Ann").locator("button.like")).to_have_text("Like (1)")
    expect(bob.page.get_by_role("button", name="1 new post")).to_be_visible()
    bob.page.get_by_role("button", name="1 new post").click()
    expect(post_item(bob, "Posted while Bob was away")).to_be_visible()
    env.expect_clean(ann.page)


@test
def test_follow_protected_account_and_approve(env):
    ann = social_person(env, "Ann")
    bob = social_person(env, "Bob")
    # Ann protects her posts and writes one.
    ann.go("Settings")
    ann.page.get_by_label("Protect my posts").check()
    ann.page.get_by_label("Bio (optional)").fill("Walks, birds and bread.")
    ann.page.get_by_role("button", name="Save", exact=True).click()
    expect(ann.page.locator("#toast")).to_have_text("Your profile is saved.")
    home(ann)
    write_post(ann, "Only for my followers")

    open_profile(bob, ann)
    main = bob.page.locator("main[data-screen=u]")
    expect(main.get_by_text("Walks, birds and bread.")).to_be_visible()
    expect(main.get_by_text("Protected account")).to_be_visible()
    expect(main.get_by_text(f"{ann.name} protects their posts. Follow them")).to_be_visible()
    expect(main.locator("li.post")).to_have_count(0)
    bob.page.get_by_role("button", name=f"Follow {ann.name}").click()
    expect(bob.page.get_by_role("button", name=f"You asked to follow {ann.name}. Press to withdraw the request")).to_be_visible()
    expect(bob.page.locator("#toast")).to_contain_text("Your request to follow is sent.")
    axe_check(bob.page, "profile-requested")

    # Ann sees the request (badge, notifications, Settings) and approves it.
    expect(notifications_tab(ann)).to_have_attribute("data-unread", "1")
    notifications_tab(ann).click()
    expect(ann.page.locator("main li", has_text=f"{bob.name} asked to follow you")).to_be_visible()
    ann.go("Settings")
    ann.page.get_by_role("button", name=f"Let {bob.name} follow you").click()
    expect(ann.page.locator("#toast")).to_have_text(f"{bob.name} follows you now.")
    screenshot(ann.page, "settings-social")
    axe_check(ann.page, "settings-social")

    # Bob's open profile page follows the approval: Following, and the posts.
    expect(bob.page.get_by_role("button", name=f"You follow {ann.name}. Press to unfollow")).to_be_visible()
    expect(main.locator("li.post", has_text="Only for my followers")).to_be_visible()
    expect(main.locator(".stats")).to_contain_text("1 follower")
    main.get_by_role("button", name="1 follower").click()
    expect(main.get_by_role("list", name=f"People who follow {ann.name}")).to_contain_text(f"{bob.name} (@{bob.handle})")
    screenshot(bob.page, "profile-following")
    axe_check(bob.page, "profile-following")
    env.expect_clean(bob.page)


@test
def test_notifications_grouped(env):
    ann = social_person(env, "Ann")
    others = [social_person(env, name) for name in ("Bob", "Cat", "Dan")]
    home(ann)
    post_id = write_post(ann, "Like me, please")
    for person in others:
        person.open(f"#/post/{post_id}")
        item = person.page.locator("main ul.focused li.post")
        item.locator("button.like").click()
        expect(item.locator("button.like")).to_contain_text("Liked")
    badge = notifications_tab(ann)
    expect(badge).to_have_attribute("data-unread", "3")
    expect(badge).to_have_accessible_name("Notifications, 3 unread")
    notifications_tab(ann).click()
    group = ann.page.locator("main li[data-kind=like]")
    expect(group).to_have_count(1)
    expect(group).to_contain_text("Dan and 2 others liked your post")
    expect(group).to_contain_text("Like me, please")
    expect(group.get_by_text("New")).to_be_visible()
    screenshot(ann.page, "notifications")
    axe_check(ann.page, "notifications")
    ann.page.get_by_role("button", name="Mark all as read").click()
    expect(badge).to_have_attribute("data-unread", "0")
    expect(group.get_by_text("New")).to_have_count(0)

    # Bob's Likes tab has the post; Ann's Mentions tab gets Bob's mention of her (its @handle a link to her).
    bob = others[0]
    bob.open("#/posts/likes")
    expect(bob.page.locator("main li.post", has_text="Like me, please")).to_be_visible()
    home(bob)
    write_post(bob, f"Thank you @{ann.handle} for the #Bread")
    expect(badge).to_have_attribute("data-unread", "1")
    ann.open("#/posts/mentions")
    mention = ann.page.locator("main li.post", has_text="for the")
    expect(mention.get_by_role("link", name=f"@{ann.handle}")).to_have_attribute("href", f"#/u/{ann.handle}")
    axe_check(ann.page, "mentions")
    # Its hashtag leads to the tag's timeline.
    mention.get_by_role("link", name="#Bread").click()
    expect(ann.page.locator("main h1")).to_have_text("#bread")
    expect(ann.page.locator("main li.post", has_text="for the")).to_be_visible()
    env.expect_clean(ann.page)


@test
def test_thread_page(env):
    ann = social_person(env, "Ann")
    bob = social_person(env, "Bob")
    home(ann)
    root_id = write_post(ann, "What is the best bread?")
    # Ann keeps her post's thread open; Bob replies from it: the reply arrives live.
    ann.open(f"#/post/{root_id}")
    expect(ann.page.locator("main[data-screen=post] h1")).to_have_text(f"Post by {ann.name}")
    expect(ann.page.get_by_text("No replies yet.")).to_be_visible()
    bob.open(f"#/post/{root_id}")
    bob.page.get_by_label(f"Your reply to {ann.name} (@{ann.handle})").fill("Sourdough, of course")
    bob.page.get_by_role("button", name="Reply", exact=True).last.click()
    reply = bob.page.locator("main ol.replies li.post", has_text="Sourdough, of course")
    expect(reply).to_be_visible()
    reply_id = int(reply.get_attribute("data-post"))
    expect(ann.page.locator("main ol.replies li.post", has_text="Sourdough, of course")).to_be_visible()
    expect(ann.page.locator("main ul.focused li.post").get_by_role("link", name="1 reply")).to_be_visible()
    screenshot(ann.page, "thread")
    axe_check(ann.page, "thread")
    # The reply's own page shows the conversation above it.
    ann.open(f"#/post/{reply_id}")
    expect(ann.page.locator("main[data-screen=post] h1")).to_have_text(f"Post by {bob.name}")
    ancestors = ann.page.locator("main ol.ancestors li.post")
    expect(ancestors).to_have_count(1)
    expect(ancestors).to_contain_text("What is the best bread?")
    expect(ann.page.locator("main ul.focused")).to_contain_text("Replying to @" + ann.handle)
    env.expect_clean(bob.page)


@test
def test_home_pages(env):
    ann = social_person(env, "Ann")
    home(ann)
    for n in range(1, 23):
        write_post(ann, f"Number {n:02d}")
    ann.page.reload()
    home(ann)
    posts = ann.page.locator("main ul.posts-feed li.post")
    expect(posts).to_have_count(20)
    expect(posts.first).to_contain_text("Number 22")
    # The next page loads when "Show older posts" scrolls into view: the two oldest, once each, and no button.
    ann.page.get_by_role("button", name="Show older posts").scroll_into_view_if_needed()
    expect(posts).to_have_count(22)
    expect(posts.last).to_contain_text("Number 01")
    expect(ann.page.get_by_role("button", name="Show older posts")).to_be_hidden()
    env.expect_clean(ann.page)


@test
def test_register_with_handle(env):
    taken = social_person(env, "Ann")
    eve = Person(env, "Eve")
    page = eve.page
    eve.open("#/register")
    page.get_by_label("Phone number").fill(eve.phone)
    page.get_by_label("Your name").fill(eve.name)
    page.get_by_label("Password", exact=True).fill(people.PASSWORD)
    page.get_by_label("Password again").fill(people.PASSWORD)
    page.get_by_label("Handle (optional)").fill(taken.handle.upper())
    page.get_by_role("button", name="Create account").click()
    expect(page.get_by_role("alert")).to_have_text("That handle is taken. Please choose another one.")
    handle = unique("eve")
    page.get_by_label("Handle (optional)").fill(handle)
    page.get_by_role("button", name="Create account").click()
    expect(page.locator("main[data-screen=chats]")).to_be_visible()
    eve.go("Settings")
    expect(page.get_by_role("link", name=f"See your profile, @{handle}")).to_be_visible()
    env.expect_clean(page)


@test
def test_repost_delete_and_block(env):
    ann = social_person(env, "Ann")
    bob = social_person(env, "Bob")
    follow(ann, bob)
    home(bob)
    write_post(bob, "Fresh rolls at six")
    home(ann)
    item = post_item(ann, "Fresh rolls at six")
    item.get_by_role("button", name=f"Repost the post by {bob.name}, 0 reposts").click()
    expect(ann.page.locator("#toast")).to_have_text("You reposted it.")
    expect(item.locator("button.repost")).to_have_text("Reposted (1)")
    # Bob's own page shows the count live; his delete takes the post and Ann's repost off Ann's open home.
    expect(post_item(bob, "Fresh rolls at six").locator("button.repost")).to_have_text("Repost (1)")
    ann.page.reload()
    home(ann)
    expect(ann.page.locator("main li.post", has_text="Fresh rolls at six")).to_have_count(2)
    expect(ann.page.locator("main li.post", has_text=f"{ann.name} reposted")).to_have_count(1)
    bob.page.once("dialog", lambda dialog: dialog.accept())
    post_item(bob, "Fresh rolls at six").get_by_role("button", name="Delete your post").click()
    expect(bob.page.locator("#toast")).to_have_text("Your post is deleted.")
    expect(ann.page.locator("main li.post", has_text="Fresh rolls at six")).to_have_count(0)

    # Bob's profile page, open on Ann's screen, gets his next post live (`user:<id>`); his reply to it shows only
    # under "Posts and replies".
    open_profile(ann, bob)
    main = ann.page.locator("main[data-screen=u]")
    expect(main.get_by_text("No posts yet.")).to_be_visible()
    write_post(bob, "Evening bake")
    main.get_by_role("button", name="1 new post").click()
    expect(main.locator("li.post", has_text="Evening bake")).to_be_visible()
    expect(main.locator(".stats")).to_contain_text("1 post")
    post_item(bob, "Evening bake").get_by_role("button", name=f"Reply to {bob.name}").click()
    bob.page.get_by_label(f"Your reply to {bob.name} (@{bob.handle})").fill("Rye this time")
    bob.page.locator("main .reply-box").get_by_role("button", name="Reply", exact=True).click()
    expect(bob.page.locator("#toast")).to_have_text("Your reply is published.")
    expect(main.locator(".stats")).to_contain_text("2 posts")
    expect(main.locator("li.post", has_text="Rye this time")).to_have_count(0)
    main.get_by_role("button", name="Posts and replies").click()
    expect(main.locator("li.post", has_text="Rye this time")).to_be_visible()

    # Ann mutes, then blocks Bob from the profile's "More" menu; Settings lists him, and unblocks.
    main.get_by_text("More").click()
    main.get_by_role("button", name=f"Mute {bob.name}").click()
    expect(ann.page.locator("#toast")).to_contain_text(f"{bob.name} is muted.")
    main.get_by_text("More").click()
    ann.page.once("dialog", lambda dialog: dialog.accept())
    main.get_by_role("button", name=f"Block {bob.name}").click()
    expect(ann.page.locator("#toast")).to_have_text(f"{bob.name} is blocked.")
    expect(main.get_by_text(f"You blocked {bob.name}.")).to_be_visible()
    ann.go("Settings")
    blocked = ann.page.get_by_role("list", name="People you blocked")
    expect(blocked).to_contain_text(bob.name)
    expect(ann.page.get_by_role("list", name="People you muted")).to_contain_text(bob.name)
    axe_check(ann.page, "settings-blocked")
    ann.page.get_by_role("button", name=f"Unblock {bob.name}").click()
    expect(blocked).to_contain_text("You have not blocked anyone.")
    env.expect_clean(ann.page)
    env.expect_clean(bob.page)


if __name__ == "__main__":
    harness.main(time_limit=600)
