// The social layer's shared parts (docs/web.md, "Posts"): live subscriptions with resume, the notifications
// badge, a post as a list item (reply, like, repost, delete), the compose form with its live countdown, and a
// feed (a list of posts in pages, with "N new posts" for live arrivals).
//
// Live pages: `installSocial(app)` keeps the connection's `live.subscribe` streams. `notifications` is always
// on while signed in; a screen adds its own with `app.social.watch(streams, since, handlers)` (handlers:
// `post`, `deleted`, `resync`), which returns the function that stops. After every (re)authentication the
// streams are subscribed again with `since` = the newest seq seen, and what was missed comes back in the reply:
// its posts and deletions go to the handlers as if live; `resync_required` (too much missed) makes them reload.
// `post.counts` and `post.photos` update every shown copy of a post in place, whatever the screen.
import { el, errorBox, busy, formatTime } from './ui.js';
import { voicePlayer } from './voice.js';
import { avatar, photoGrid, photoPicker } from './photos.js';

export const MAX_POST_LENGTH = 280;
export const MAX_POST_PHOTOS = 4;
// After a resume, the shown posts read again for their counts and photos (the first this many distinct posts).
const MAX_REREAD = 50;

export function installSocial(app) {
  const { client, t } = app;
  const watchers = new Set(); // {streams, handlers}
  let lastSeq = null;         // the newest post seq seen on any stream (for `since` after a reconnect)
  let unread = 0;
  let generation = 0;

  const seen = (seq) => {
    if (typeof seq === 'number' && (lastSeq === null || seq > lastSeq)) lastSeq = seq;
  };
  const live = el('p', { class: 'visually-hidden', role: 'status', 'aria-live': 'polite', id: 'social-news' });
  document.body.append(live);

  const drawBadge = () => {
    const link = document.querySelector('header a[data-screen="notifications"]');
    if (!link) return;
    let dot = link.querySelector('.dot');
    if (!dot) {
      dot = el('span', { class: 'dot', 'aria-hidden': 'true', hidden: true });
      link.append(dot);
    }
    dot.hidden = unread <= 0;
    dot.textContent = unread > 0 ? String(unread) : '';
    if (unread > 0) link.setAttribute('aria-label', t('social.unread_total', { name: t('nav.notifications'), count: unread }));
    else link.removeAttribute('aria-label');
    link.dataset.unread = String(Math.max(0, unread));
  };
  const setUnread = (count) => {
    unread = Math.max(0, count ?? 0);
    drawBadge();
  };

  const allStreams = () => {
    const streams = new Set(['notifications']);
    for (const w of watchers) for (const s of w.streams) streams.add(s);
    return [...streams];
  };

  const deliver = (result, only = null) => {
    seen(result.seq);
    const targets = only ? [only] : [...watchers];
    if (result.resync_required) {
      for (const w of targets) w.handlers.resync?.();
      return;
    }
    for (const post of result.posts ?? []) {
      seen(post.seq);
      for (const w of targets) w.handlers.post?.(post, { missed: true });
    }
    for (const d of result.deleted ?? []) for (const w of targets) w.handlers.deleted?.(d);
  };

  // A resume replays posts and deletions, never `post.counts` or `post.photos` (docs/protocol.md, "Live pages"):
  // the posts shown are read again (`post.get`, at most MAX_REREAD) so that what changed while away is drawn; one
  // deleted meanwhile leaves the page.
  const rereadShown = async (mine) => {
    const ids = [...new Set([...document.querySelectorAll('li.post[data-original]')]
      .map((item) => Number(item.dataset.original)))].slice(0, MAX_REREAD);
    for (const id of ids) {
      if (mine !== generation) return;   // another reconnection took over
      try {
        const { post } = await client.request('post.get', { post_id: id });
        const now = post.repost_of ?? post;
        updateCounts({ post_id: id, like_count: now.like_count, repost_count: now.repost_count, reply_count: now.reply_count });
        if (Array.isArray(now.photos)) updatePhotos({ post_id: id, photos: now.photos });
      } catch (error) {
        if (error?.code === 'not_found') removePost(id);
        else return;                     // offline again: the next resume reads them
      }
    }
  };

  // Every stream again on a new connection (its subscriptions died with the old one), then the truth of the
  // unread count.
  let owner = null;            // whose seqs and count these are (another login in this tab starts over)
  const refresh = async () => {
    if (app.me.userId === null) return;
    if (owner !== app.me.userId) {
      owner = app.me.userId;
      lastSeq = null;
      setUnread(0);
    }
    const mine = ++generation;
    const resumed = lastSeq !== null;
    try {
      const params = { streams: allStreams() };
      if (lastSeq !== null) params.since = lastSeq;
      const result = await client.request('live.subscribe', params);
      if (mine === generation) deliver(result);
      if (resumed && mine === generation) await rereadShown(mine);
    } catch {
      // Offline or refused: the next authentication subscribes again.
    }
    try {
      const result = await client.request('notifications.unread');
      setUnread(result.unread);
    } catch {
      // The badge keeps its count until the next authentication.
    }
  };

  client.on('post.new', ({ post }) => {
    if (!post) return;
    seen(post.seq);
    for (const w of [...watchers]) w.handlers.post?.(post, { missed: false });
  });
  client.on('post.deleted', (event) => {
    seen(event.seq);
    for (const w of [...watchers]) w.handlers.deleted?.(event);
  });
  client.on('post.counts', (counts) => updateCounts(counts));
  client.on('post.photos', (event) => updatePhotos(event));
  client.on('notification', ({ notification: n, unread: count }) => {
    setUnread(count);
    if (n?.actor) live.textContent = notificationLine(app, n.kind, [n.actor], 1);
    for (const w of [...watchers]) w.handlers.notification?.(n);
  });
  client.on('notifications.read', ({ unread: count }) => setUnread(count));
  client.on('profile.counts', (counts) => {
    for (const w of [...watchers]) w.handlers.profileCounts?.(counts);
  });
  for (const name of ['follow.changed', 'relationship.changed']) {
    client.on(name, (event) => { for (const w of [...watchers]) w.handlers.relationship?.(event); });
  }
  client.on('session', refresh);

  app.social = {
    refresh,
    seen,
    unread: () => unread,
    setUnread,
    drawBadge,
    // Subscribes `streams` for a screen: `since` (the page's `after`) brings what was posted between the page
    // and the subscription. Returns the function that unsubscribes.
    watch(streams, since, handlers) {
      const watcher = { streams, handlers };
      watchers.add(watcher);
      seen(since);
      const params = { streams };
      if (typeof since === 'number') params.since = since;
      if (streams.length) {
        client.request('live.subscribe', params).then((result) => {
          if (watchers.has(watcher)) deliver(result, watcher);
        }, (error) => handlers.error?.(error));
      }
      return () => {
        if (!watchers.delete(watcher)) return;
        const still = new Set(allStreams());
        const gone = streams.filter((s) => !still.has(s));
        if (gone.length) client.request('live.unsubscribe', { streams: gone }).catch(() => {});
      };
    },
  };
  return app.social;
}

// MARK: showing a post

// `key`, or `key_one` when `count` is 1 and strings.js has it ("1 reply", "2 replies").
export function counted(app, key, count, vars = {}) {
  const one = `${key}_one`;
  return app.t(count === 1 && one in app.strings ? one : key, { count, ...vars });
}

// The post whose counts and buttons an item shows (a repost shows its original's).
const original = (post) => post.repost_of ?? post;

// A name and a handle: "Ann (@ann)".
export function userLabel(user) {
  if (!user) return '';
  return user.handle ? `${user.display_name} (@${user.handle})` : user.display_name;
}

function userLink(user) {
  if (!user?.handle) return el('span', { class: 'name' }, user?.display_name ?? '');
  return el('a', { class: 'name', href: `#/u/${encodeURIComponent(user.handle)}` }, user.display_name,
    el('span', { class: 'handle' }, ` @${user.handle}`));
}

// The text with its stored mentions as links to their profiles and its stored hashtags as links to their
// timelines (the server parsed them; only those it stored become links).
function postText(post) {
  const node = el('p', { class: 'post-text' });
  const handles = new Set((post.mentions ?? []).map((m) => m.handle.toLowerCase()));
  const tags = new Set((post.hashtags ?? []).map((tag) => tag.toLowerCase()));
  const text = post.text ?? '';
  const pattern = /(^|[^A-Za-z0-9_.+-])@([A-Za-z0-9_]{1,30})(?![A-Za-z0-9_])|(^|[^\p{L}\p{N}_])#([\p{L}\p{N}_]{1,100})/gu;
  let at = 0;
  for (const match of text.matchAll(pattern)) {
    if (match[2] !== undefined) {
      const start = match.index + match[1].length;
      if (!handles.has(match[2].toLowerCase())) continue;
      node.append(text.slice(at, start), el('a', { href: `#/u/${encodeURIComponent(match[2])}` }, `@${match[2]}`));
      at = start + 1 + match[2].length;
    } else {
      const start = match.index + match[3].length;
      if (!tags.has(match[4].toLowerCase())) continue;
      node.append(text.slice(at, start), el('a', { href: `#/tag/${encodeURIComponent(match[4].toLowerCase())}` }, `#${match[4]}`));
      at = start + 1 + match[4].length;
    }
  }
  node.append(text.slice(at));
  return node;
}

// One post as a list item: `options.onReply(post)` opens a reply; `options.focus` marks the thread's own post.
export function postItem(app, post, options = {}) {
  const { t } = app;
  const shown = original(post);
  const item = el('li', { class: 'post', dataset: { post: post.post_id, original: shown.post_id, seq: post.seq } });
  const article = el('article', { 'aria-label': t('post.label', { name: shown.author?.display_name ?? t('someone'), time: formatTime(shown.created_at) }) });
  if (post.repost_of) {
    article.append(el('p', { class: 'detail repost-by' }, t('post.reposted_by', { name: post.author?.display_name ?? t('someone') })));
  }
  article.append(el('p', { class: 'post-head' }, avatar(app, shown.author), ' ', userLink(shown.author), ' ',
    el('a', { class: 'when', href: `#/post/${shown.post_id}`, 'aria-label': t('post.open_thread', { time: formatTime(shown.created_at) }) },
      formatTime(shown.created_at))));
  if (shown.reply_to_user) {
    article.append(el('p', { class: 'detail' }, t('post.replying_to', { name: shown.reply_to_user.handle ? `@${shown.reply_to_user.handle}` : shown.reply_to_user.display_name })));
  }
  if (shown.deleted) article.append(el('p', { class: 'deleted' }, t('post.deleted')));
  else if (shown.text) article.append(postText(shown));
  const grid = (photos) => photoGrid(app, photos, { label: t('post.photos_label', { name: shown.author?.display_name ?? t('someone'), count: photos.length }) });
  if (shown.photos?.length && !shown.deleted) article.append(grid(shown.photos));
  // `post.photos`: a deleted photo leaves the grid (the grid goes with the last one; photos are never added).
  item.socialPhotos = (photos) => {
    shown.photos = photos;
    const old = article.querySelector(':scope > .photo-grid');
    if (!photos.length) old?.remove();
    else old?.replaceWith(grid(photos));
  };
  if (shown.voice_clip_id && !shown.deleted) {
    article.append(el('p', { class: 'detail' }, t('post.voice')), voicePlayer(app, { voice_id: shown.voice_clip_id, duration_ms: 0 }));
  }
  if (!shown.deleted && options.actions !== false) article.append(postActions(app, post, item, options));
  item.append(article);
  return item;
}

function postActions(app, post, item, options) {
  const { t, client } = app;
  const shown = original(post);
  const name = shown.author?.display_name ?? t('someone');
  const counts = el('span', { class: 'replies' });
  const like = el('button', { type: 'button', class: 'quiet small like', 'aria-pressed': String(Boolean(shown.liked)) });
  const repost = el('button', { type: 'button', class: 'quiet small repost', 'aria-pressed': String(Boolean(shown.reposted)) });
  const reply = el('button', { type: 'button', class: 'quiet small reply', 'aria-label': t('post.reply_label', { name }) }, t('post.reply'));
  // Live events carry liked/reposted as false (encoded once for everyone): a copy already shown knows better,
  // and a repost of mine means I reposted it.
  const known = document.querySelector(`li.post[data-original="${Number(shown.post_id)}"]`)?.socialState;
  const state = { liked: Boolean(known ? known.liked : shown.liked),
    reposted: Boolean(known ? known.reposted : shown.reposted) || Boolean(post.repost_of && post.author?.user_id === app.me.userId),
    like_count: shown.like_count ?? 0, repost_count: shown.repost_count ?? 0, reply_count: shown.reply_count ?? 0 };
  item.socialState = state;
  const draw = () => {
    like.textContent = t(state.liked ? 'post.liked' : 'post.like', { count: state.like_count });
    like.setAttribute('aria-label', counted(app, state.liked ? 'post.liked_label' : 'post.like_label', state.like_count, { name }));
    like.setAttribute('aria-pressed', String(state.liked));
    repost.textContent = t(state.reposted ? 'post.reposted' : 'post.repost', { count: state.repost_count });
    repost.setAttribute('aria-label', counted(app, state.reposted ? 'post.reposted_label' : 'post.repost_label', state.repost_count, { name }));
    repost.setAttribute('aria-pressed', String(state.reposted));
    counts.replaceChildren(el('a', { href: `#/post/${shown.post_id}` }, counted(app, 'post.replies', state.reply_count)));
  };
  item.socialCounts = (c) => {
    for (const key of ['like_count', 'repost_count', 'reply_count']) if (typeof c[key] === 'number') state[key] = c[key];
    if (typeof c.liked === 'boolean') state.liked = c.liked;
    if (typeof c.reposted === 'boolean') state.reposted = c.reposted;
    draw();
  };
  draw();
  like.addEventListener('click', () => busy(like, async () => {
    const result = await client.request(state.liked ? 'post.unlike' : 'post.like', { post_id: shown.post_id });
    updateCounts({ post_id: shown.post_id, like_count: result.like_count, liked: result.liked });
  }, (text) => app.toast(text)));
  repost.addEventListener('click', () => busy(repost, async () => {
    if (state.reposted) {
      await client.request('post.unrepost', { post_id: shown.post_id });
      updateCounts({ post_id: shown.post_id, reposted: false, repost_count: Math.max(0, state.repost_count - 1) });
      app.toast(t('post.unreposted'));
    } else {
      const { post: made } = await client.request('post.repost', { post_id: shown.post_id });
      updateCounts({ post_id: shown.post_id, reposted: true, repost_count: made?.repost_of?.repost_count ?? state.repost_count + 1 });
      app.toast(t('post.reposted_done'));
    }
  }, (text) => app.toast(text)));
  reply.addEventListener('click', () => {
    if (options.onReply) options.onReply(shown, reply);
    else app.navigate(`#/post/${shown.post_id}`);
  });
  const buttons = [reply, like, repost];
  const mine = post.author?.user_id === app.me.userId;
  if (mine || app.me.role === 'admin') {
    const own = post.repost_of && mine;
    buttons.push(el('button', { type: 'button', class: 'danger small',
      'aria-label': own ? t('post.undo_repost_label', { name }) : t('post.delete_label', { name }),
      onclick: (e) => {
        if (!confirm(own ? t('post.undo_repost_confirm') : t('post.delete_confirm'))) return;
        busy(e.currentTarget, async () => {
          await client.request('post.delete', { post_id: post.post_id });
          removePost(post.post_id);
          app.toast(own ? t('post.unreposted') : t('post.deleted_done'));
        }, (text) => app.toast(text));
      } }, own ? t('post.undo_repost') : t('post.delete')));
  }
  return el('div', { class: 'post-actions' }, el('div', { class: 'actions tight' }, ...buttons), counts);
}

// Every shown copy of a post (the post itself and reposts of it) takes the new counts.
export function updateCounts(counts) {
  for (const item of document.querySelectorAll(`li.post[data-original="${Number(counts.post_id)}"]`)) item.socialCounts?.(counts);
}

// The photos of a post now (`post.photos`) in every shown copy of it.
export function updatePhotos({ post_id: id, photos }) {
  if (!Array.isArray(photos)) return;
  for (const item of document.querySelectorAll(`li.post[data-original="${Number(id)}"]`)) item.socialPhotos?.(photos);
}

// A deleted post (or repost) leaves every list; so do reposts of it.
export function removePost(postId) {
  const id = Number(postId);
  for (const item of document.querySelectorAll(`li.post[data-post="${id}"], li.post[data-original="${id}"]`)) {
    item.closest('ul, ol')?.dispatchEvent(new CustomEvent('post-removed', { detail: { postId: Number(item.dataset.post) } }));
    item.remove();
  }
}

// MARK: compose

const segmenter = typeof Intl !== 'undefined' && Intl.Segmenter ? new Intl.Segmenter(undefined, { granularity: 'grapheme' }) : null;

// User-perceived characters (grapheme clusters) of the text as the server counts it: trimmed, NFC.
export function graphemeCount(text) {
  const clean = text.trim().normalize('NFC');
  if (!segmenter) return Array.from(clean).length;
  let count = 0;
  for (const _ of segmenter.segment(clean)) count += 1;
  return count;
}

// The compose form: a text box, "N characters left" (red and Send disabled past the limit), Send. `replyTo`: the
// post answered. `onPosted(post)` after the server accepted it.
export function composeForm(app, { replyTo = null, onPosted, label = null, id = 'compose' } = {}) {
  const { t, client } = app;
  const textId = `${id}-text`;
  const countId = `${id}-count`;
  const input = el('textarea', { id: textId, rows: '3', 'aria-describedby': countId });
  const count = el('p', { class: 'countdown', id: countId });
  const announce = el('p', { class: 'visually-hidden', 'aria-live': 'polite' });
  const error = errorBox();
  const send = el('button', { type: 'submit' }, replyTo ? t('compose.reply_send') : t('compose.send'));
  // Up to 4 photos with a post (not with a reply); a post with photos may have no text.
  const picker = replyTo ? null : photoPicker(app, { max: MAX_POST_PHOTOS, label: t('compose.add_photos') });
  const hasPhotos = () => (picker?.count() ?? 0) > 0;
  let lastBand = 'ok';
  const update = () => {
    const left = MAX_POST_LENGTH - graphemeCount(input.value);
    const key = left >= 0 ? (left === 1 ? 'compose.left_one' : 'compose.left') : (left === -1 ? 'compose.over_one' : 'compose.over');
    count.textContent = t(key, { count: Math.abs(left) });
    count.dataset.left = String(left);
    count.classList.toggle('over', left < 0);
    input.setAttribute('aria-invalid', String(left < 0));
    send.disabled = left < 0 || (input.value.trim() === '' && !hasPhotos());
    // The count is read out only when it matters: near the limit and past it.
    const band = left < 0 ? 'over' : left <= 20 ? 'near' : 'ok';
    if (band !== lastBand && band !== 'ok') announce.textContent = count.textContent;
    lastBand = band;
  };
  input.addEventListener('input', update);
  picker?.addEventListener('change', update);
  const form = el('form', { class: 'compose', novalidate: true },
    el('div', { class: 'field' }, el('label', { for: textId }, label ?? (replyTo ? t('compose.reply_label', { name: userLabel(replyTo.author) }) : t('compose.label'))), input),
    count, announce, picker, error, el('div', { class: 'actions' }, send));
  let clientId = null; // kept until the post is made, so a retry after a lost reply makes it once
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (graphemeCount(input.value) > MAX_POST_LENGTH || (!input.value.trim() && !hasPhotos())) return;
    error.show('');
    clientId ??= newPostClientId();
    busy(send, async () => {
      const params = { text: input.value.trim(), client_id: clientId };
      if (replyTo) params.reply_to = replyTo.post_id;
      if (hasPhotos()) params.photo_ids = await picker.upload();
      const { post } = await client.request('post.create', params);
      clientId = null;
      picker?.clear();
      input.value = '';
      update();
      app.toast(replyTo ? t('compose.replied') : t('compose.posted'));
      onPosted?.(post);
    }, error.show).then(update);
  });
  update();
  form.focusText = () => input.focus();
  return form;
}

// The `onReply` of a list: a reply form under the post answered (one at a time); `onPosted(reply)` after it.
export function inlineReply(app, onPosted = null) {
  let box = null;
  return (post, button) => {
    box?.remove();
    const item = button.closest('li.post');
    box = el('div', { class: 'reply-box' }, composeForm(app, { replyTo: post, id: `reply-${post.post_id}`, onPosted: (reply) => {
      box?.remove();
      box = null;
      button.focus();
      onPosted?.(reply);
    } }));
    item.append(box);
    box.querySelector('textarea').focus();
  };
}

// MARK: a feed

// A list of posts, newest first, in pages (`fetchPage(before)` → {posts, before}), "Show older posts" (also
// loaded when it scrolls into view), and live arrivals: `add(post)` holds others' new posts behind an "N new
// posts" button (the page does not jump); my own show at once. Deleted posts leave it.
export function feed(app, { label, emptyText, fetchPage, accept = () => true, onReply = null, holdNew = true }) {
  const { t } = app;
  const list = el('ul', { class: 'list posts-feed', 'aria-label': label, 'aria-busy': 'true' });
  const error = errorBox();
  const more = el('button', { type: 'button', class: 'quiet', hidden: true }, t('feed.older'));
  const fresh = el('button', { type: 'button', class: 'fresh', hidden: true });
  const empty = el('p', { class: 'empty', hidden: true }, emptyText);
  const ids = new Set();
  let pending = [];
  let before = null;
  let loading = false;

  const itemFor = (post) => postItem(app, post, { onReply });
  const drawFresh = () => {
    fresh.hidden = pending.length === 0;
    fresh.textContent = t(pending.length === 1 ? 'feed.new_one' : 'feed.new_many', { count: pending.length });
  };
  const drawEmpty = () => { empty.hidden = list.children.length > 0 || pending.length > 0; };
  list.addEventListener('post-removed', (e) => { ids.delete(e.detail.postId); queueMicrotask(drawEmpty); });

  const load = async (append = false) => {
    if (loading) return;
    loading = true;
    try {
      const page = await fetchPage(append ? before : null);
      if (!append) {
        list.replaceChildren();
        ids.clear();
        pending = [];
        drawFresh();
      }
      for (const post of page.posts) {
        if (ids.has(post.post_id)) continue;
        ids.add(post.post_id);
        list.append(itemFor(post));
      }
      before = page.before ?? null;
      more.hidden = before === null;
      error.show('');
      drawEmpty();
      return page;
    } catch (failure) {
      error.show(app.errorText(failure));
      throw failure;
    } finally {
      loading = false;
      list.setAttribute('aria-busy', 'false');
    }
  };
  more.addEventListener('click', () => busy(more, () => load(true), () => {}));
  const observer = new IntersectionObserver((entries) => {
    if (entries.some((e) => e.isIntersecting) && !more.hidden && !more.disabled) more.click();
  });
  observer.observe(more);

  const showPending = () => {
    const newest = pending.sort((a, b) => b.seq - a.seq);
    pending = [];
    list.prepend(...newest.map(itemFor));
    drawFresh();
    drawEmpty();
    list.querySelector('li.post a.name, li.post a')?.focus();
  };
  fresh.addEventListener('click', showPending);

  const add = (post) => {
    if (!accept(post) || ids.has(post.post_id)) return;
    ids.add(post.post_id);
    if (!holdNew || post.author?.user_id === app.me.userId) {
      // Newest first: before the first shown post older than it.
      const item = itemFor(post);
      const after = [...list.children].find((li) => Number(li.dataset.seq) < post.seq);
      list.insertBefore(item, after ?? null);
      drawEmpty();
      return;
    }
    pending.push(post);
    drawFresh();
    drawEmpty();
  };
  const remove = ({ post_id: id }) => {
    pending = pending.filter((p) => p.post_id !== id && p.repost_of?.post_id !== id);
    drawFresh();
    removePost(id);
  };

  const node = el('div', { class: 'feed' }, error, el('div', { class: 'actions' }, fresh), list, empty,
    el('div', { class: 'actions' }, more));
  return { node, load, add, remove, stop: () => observer.disconnect(), pendingCount: () => pending.length };
}

// MARK: notifications' words

// "Ann", "Ann and Bob", "Ann and 3 others".
export function actorsText(app, actors, count) {
  const { t } = app;
  const names = actors.map((a) => a.display_name);
  if (count <= 1 || names.length === 0) return names[0] ?? t('someone');
  if (count === 2 && names.length >= 2) return t('social.two_people', { first: names[0], second: names[1] });
  return t(count - 1 === 1 ? 'social.and_other' : 'social.and_others', { name: names[0], count: count - 1 });
}

export function notificationLine(app, kind, actors, count) {
  const { t } = app;
  const key = `social.kind.${kind}`;
  return t(key in app.strings ? key : 'social.kind.other', { who: actorsText(app, actors, count) });
}

// A post's client_id (crypto.getRandomValues works outside secure contexts, unlike randomUUID): a resend after a
// lost reply returns the post already made.
function newPostClientId() {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return 'web-' + [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
}
