// A profile by handle (#/u/HANDLE): name, @handle, bio, stats (posts, following, followers, kept live by
// `profile.counts`), Follow / Requested / Unfollow, and in "More": block and mute. Below, the posts, with or
// without replies, live through `user:<id>`. A protected account's posts show only to its followers; a blocked
// or unknown handle answers "not found".
import { el, heading, errorBox, busy, pagedList } from '../ui.js';
import { feed, counted, userLabel } from '../social.js';
import { avatar } from '../photos.js';

const PAGE = 20;

let stop = [];

export function show(root, params, app) {
  const { t, client } = app;
  const handle = decodeURIComponent(params.id ?? '');
  const title = heading(t('profile.loading'));
  const error = errorBox();
  const about = el('section', { class: 'profile-about', 'aria-label': t('profile.about') });
  const stats = el('p', { class: 'stats', 'aria-live': 'off' });
  const tools = el('div', { class: 'actions' });
  const posts = el('section', { 'aria-labelledby': 'profile-posts' });
  root.append(title, error, about, stats, tools, posts);
  let profile = null;
  let replies = false;
  let unwatch = null;
  let current = null;

  // Following and followers open a list under the stats (`following`, `followers`; refused for a protected
  // account's non-followers, said in words).
  const people = el('section', { class: 'people', 'aria-labelledby': 'profile-people', hidden: true });
  stats.after(people);
  let showing = null;
  const showPeople = async (op) => {
    if (showing === op) {
      showing = null;
      people.hidden = true;
      drawStats(profile.stats ?? {});
      return;
    }
    showing = op;
    drawStats(profile.stats ?? {});
    const list = el('ul', { class: 'list', 'aria-labelledby': 'profile-people', 'aria-busy': 'true' });
    const more = el('button', { type: 'button', class: 'quiet', hidden: true }, t('profile.people_more'));
    const problem = errorBox();
    people.replaceChildren(el('h2', { id: 'profile-people' }, t(`profile.${op}_title`, { name: profile.display_name })), problem, list,
      el('div', { class: 'actions' }, more));
    people.hidden = false;
    await pagedList({ list, more, error: problem, emptyText: t('profile.people_none'), fetchPage: async (before) => {
      const page = await client.request(op, { user_id: profile.user_id, limit: 20, ...(before ? { before } : {}) });
      return { items: page.users.map((u) => el('li', {}, avatar(app, u), el('div', { class: 'who' }, el('div', { class: 'name' },
        u.handle ? el('a', { href: `#/u/${encodeURIComponent(u.handle)}` }, userLabel(u)) : userLabel(u))))), next: page.next_before ?? null };
    } })();
  };
  const statButton = (op, text) => el('button', { type: 'button', class: 'quiet small', 'aria-expanded': String(showing === op),
    onclick: () => showPeople(op) }, text);

  const drawStats = (s) => {
    if (profile?.stats) Object.assign(profile.stats, s);
    stats.replaceChildren(
      el('span', {}, counted(app, 'profile.stat_posts', s.posts ?? 0)), ' · ',
      statButton('following', t('profile.stat_following', { count: s.following ?? 0 })), ' · ',
      statButton('followers', counted(app, 'profile.stat_followers', s.followers ?? 0)));
    stats.dataset.followers = String(s.followers ?? 0);
    stats.dataset.posts = String(s.posts ?? 0);
  };

  let blockedName = null; // someone I blocked here: the server no longer shows their profile
  const act = (op, done) => (e) => busy(e.currentTarget, async () => {
    await client.request(op, { user_id: profile.user_id });
    if (op === 'block') blockedName = profile.display_name;
    if (done) app.toast(done);
    if (await loadProfile()) loadPosts();
  }, (text) => app.toast(text));

  const drawTools = () => {
    const r = profile.relationship;
    const name = profile.display_name;
    if (!r) {
      tools.replaceChildren(el('a', { href: '#/settings' }, t('profile.edit_own')));
      return;
    }
    const parts = [];
    if (r.blocking) {
      parts.push(el('p', { class: 'notice' }, t('profile.you_blocked', { name })));
    } else if (r.following === 'active') {
      parts.push(el('button', { type: 'button', class: 'quiet', 'aria-pressed': 'true', 'aria-label': t('profile.unfollow_label', { name }),
        onclick: act('unfollow', t('profile.unfollowed', { name })) }, t('profile.following_button')));
    } else if (r.following === 'pending') {
      parts.push(el('button', { type: 'button', class: 'quiet', 'aria-label': t('profile.cancel_request_label', { name }),
        onclick: act('unfollow', t('profile.request_cancelled')) }, t('profile.requested')));
    } else {
      parts.push(el('button', { type: 'button', class: 'primary', 'aria-label': t('profile.follow_label', { name }),
        onclick: (e) => busy(e.currentTarget, async () => {
          const result = await client.request('follow', { user_id: profile.user_id });
          app.toast(result.state === 'pending' ? t('profile.requested_done', { name }) : t('profile.followed', { name }));
          if (await loadProfile()) loadPosts();
        }, (text) => app.toast(text)) }, t('profile.follow')));
    }
    if (r.followed_by) parts.push(el('span', { class: 'mark' }, t('profile.follows_you')));
    const menu = el('details', { class: 'menu' }, el('summary', {}, t('profile.more')),
      el('div', { class: 'actions tight' },
        el('button', { type: 'button', class: 'quiet small', onclick: act(r.muting ? 'unmute' : 'mute', t(r.muting ? 'profile.unmuted' : 'profile.muted', { name })) },
          t(r.muting ? 'profile.unmute' : 'profile.mute', { name })),
        el('button', { type: 'button', class: 'danger small', onclick: (e) => {
          if (!r.blocking && !confirm(t('profile.block_confirm', { name }))) return;
          act(r.blocking ? 'unblock' : 'block', t(r.blocking ? 'profile.unblocked' : 'profile.blocked', { name }))(e);
        } }, t(r.blocking ? 'profile.unblock' : 'profile.block', { name }))));
    parts.push(menu);
    tools.replaceChildren(...parts);
  };

  const loadProfile = async () => {
    try {
      ({ profile } = await client.request('profile.get', { handle }));
    } catch (failure) {
      // Someone I just blocked is no longer shown: say so, and where to unblock them.
      title.textContent = blockedName ?? t('profile.unavailable');
      error.show(blockedName && failure.code === 'not_found' ? '' : app.errorText(failure));
      about.replaceChildren(blockedName ? el('p', { class: 'notice' }, t('profile.you_blocked', { name: blockedName }), ' ',
        el('a', { href: '#/settings' }, t('profile.blocked_list'))) : '');
      stats.replaceChildren();
      tools.replaceChildren();
      posts.replaceChildren();
      return false;
    }
    error.show('');
    title.textContent = profile.display_name;
    document.title = t('app.document_title', { name: profile.display_name });
    // (No bio: nothing; `replaceChildren(null)` would show the word "null".)
    about.replaceChildren(avatar(app, profile, { large: true }),
      el('p', { class: 'handle' }, `@${profile.handle ?? handle}`, profile.protected ? el('span', { class: 'mark' }, ' ', t('profile.protected')) : null),
      ...(profile.bio ? [el('p', { class: 'description' }, profile.bio)] : []));
    drawStats(profile.stats ?? {});
    drawTools();
    return true;
  };

  const loadPosts = async () => {
    unwatch?.();
    unwatch = null;
    current?.stop();
    const id = profile.user_id;
    const withReplies = replies;
    const list = feed(app, { label: t(withReplies ? 'profile.replies_label' : 'profile.posts_label', { name: profile.display_name }),
      emptyText: t('profile.no_posts'),
      accept: (post) => post.author?.user_id === id && (withReplies || !post.reply_to),
      fetchPage: (before) => client.request('timeline.user', { user_id: id, replies: withReplies, limit: PAGE, ...(before !== null ? { before } : {}) }) });
    current = list;
    const toggle = (on, text) => el('button', { type: 'button', class: 'quiet small', 'aria-pressed': String(replies === on),
      onclick: () => { if (replies !== on) { replies = on; loadPosts(); } } }, text);
    posts.replaceChildren(el('h2', { id: 'profile-posts' }, t('profile.posts')),
      el('div', { class: 'actions tight', role: 'group', 'aria-label': t('profile.show') },
        toggle(false, t('profile.tab_posts')), toggle(true, t('profile.tab_replies'))),
      list.node);
    let page;
    try {
      page = await list.load();
    } catch (failure) {
      if (failure.code === 'forbidden') {
        list.node.replaceChildren(el('p', { class: 'notice' }, t('profile.protected_posts', { name: profile.display_name })));
      }
      return;
    }
    if (current !== list) return;
    unwatch = app.social.watch([`user:${id}`], page.after, {
      post: (post) => list.add(post),
      deleted: (d) => list.remove(d),
      resync: () => list.load().catch(() => {}),
      profileCounts: (c) => { if (c.user_id === id) drawStats(c); },
    });
  };

  loadProfile().then((ok) => { if (ok) loadPosts(); });
  // A follow approved or ended, a block or a mute (from any of my devices): the page as it is now.
  const relationship = app.social.watch([], null, {
    relationship: (e) => {
      if (profile && e.user_id === profile.user_id) loadProfile().then((ok) => ok && loadPosts());
    },
  });
  stop = [relationship, () => unwatch?.(), () => current?.stop()];
}

export function hide() {
  for (const off of stop) off();
  stop = [];
}
