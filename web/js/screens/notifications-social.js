// The social notifications (#/notifications): grouped by the server ("Ann and 3 others liked your post"),
// newest first, in pages; the unread ones marked "New"; "Mark all as read" (`notifications.read`, which clears
// the badge on every device). A notification arriving while the screen is open reloads the first page.
import { el, heading, errorBox, busy, formatTime, pagedList } from '../ui.js';
import { notificationLine } from '../social.js';

let stop = [];

export function show(root, params, app) {
  const { t, client } = app;
  const error = errorBox();
  const list = el('ul', { class: 'list social-notifications', 'aria-label': t('social.list_label'), 'aria-busy': 'true' });
  const more = el('button', { type: 'button', class: 'quiet', hidden: true }, t('social.older'));
  const markRead = el('button', { type: 'button', class: 'quiet' }, t('social.mark_read'));
  const summary = el('p', { class: 'detail', role: 'status' });

  const drawSummary = (unread) => {
    summary.textContent = unread > 0 ? t('social.unread_count', { count: unread }) : t('social.all_read');
    markRead.hidden = unread <= 0;
  };

  const item = (g) => {
    const line = notificationLine(app, g.kind, g.actors ?? [], g.actor_count ?? (g.actors ?? []).length);
    const post = g.post;
    let target = null;
    if (g.kind === 'follow_request') target = '#/settings';
    else if (post) target = `#/post/${(post.repost_of ?? post).post_id}`;
    else if (g.kind === 'follow' && g.actors?.[0]?.handle) target = `#/u/${encodeURIComponent(g.actors[0].handle)}`;
    return el('li', { class: g.unread ? 'is-new' : null, dataset: { kind: g.kind, newest: g.newest_id, count: g.actor_count } },
      el('div', { class: 'who' },
        el('div', { class: 'name' }, g.unread ? el('span', { class: 'mark new' }, t('social.new')) : null, g.unread ? ' ' : null,
          target ? el('a', { href: target }, line) : line),
        post?.text ? el('div', { class: 'detail quote' }, post.text) : null,
        el('div', { class: 'detail' }, formatTime(g.latest_at))));
  };

  const load = pagedList({ list, more, error, emptyText: t('social.none'), fetchPage: async (before) => {
    const page = await client.request('notifications.list', { limit: 20, ...(before ? { before } : {}) });
    app.social.setUnread(page.unread);
    drawSummary(page.unread);
    return { items: page.groups.map(item), next: page.next_before ?? null };
  } });

  markRead.addEventListener('click', () => busy(markRead, async () => {
    const { unread } = await client.request('notifications.read', {});
    app.social.setUnread(unread);
    drawSummary(unread);
    await load();
    app.toast(t('social.marked_read'));
  }, (text) => app.toast(text)));

  root.append(heading(t('social.title')), error, summary, el('div', { class: 'actions' }, markRead),
    list, el('div', { class: 'actions' }, more));

  let timer = null;
  const reloadSoon = () => {
    clearTimeout(timer);
    timer = setTimeout(() => load(), 200);
  };
  stop = [app.social.watch([], null, { notification: reloadSoon }), () => clearTimeout(timer),
    client.on('notifications.read', ({ unread }) => { drawSummary(unread); reloadSoon(); })];
  load();
}

export function hide() {
  for (const off of stop) off();
  stop = [];
}
