// The communities' unread markers: the red dot on the Communities tab (unread_total) and each joined
// community's count, kept live (docs/web.md, "Communities"):
// - `communities.unread` after each (re)authentication gives the truth;
// - `community.notification` adds 1 to its community unless I am its actor (the server already advanced my
//   marker), and is announced in a polite live region;
// - `community.read` (from any of my devices) sets the community's count and the total;
// - joining, quitting and archiving ask the server again.
// Screens read `app.unread.of(communityId)` and subscribe with `app.unread.onChange(fn)`.
import { el } from './ui.js';
import { t } from './strings.js';

export function installUnread(app) {
  const { client } = app;
  const counts = new Map(); // community id -> unread
  const listeners = new Set();
  let total = 0;
  let generation = 0; // a refresh older than a later change gives way
  const live = el('p', { class: 'visually-hidden', role: 'status', 'aria-live': 'polite', id: 'community-news' });
  document.body.append(live);

  const draw = () => {
    const link = document.querySelector('header a[data-screen="communities"]');
    if (link) {
      let dot = link.querySelector('.dot');
      if (!dot) {
        dot = el('span', { class: 'dot', 'aria-hidden': 'true', hidden: true });
        link.append(dot);
      }
      // The red dot is seen; the count is heard in the link's name ("Communities, 3 new").
      dot.hidden = total <= 0;
      dot.textContent = total > 0 ? String(total) : '';
      if (total > 0) link.setAttribute('aria-label', t('communities.unread_total', { name: t('nav.communities'), count: total }));
      else link.removeAttribute('aria-label');
      link.dataset.unread = String(Math.max(0, total));
    }
    for (const fn of listeners) fn();
  };

  const refresh = async () => {
    if (app.me.userId === null) return;
    const mine = ++generation;
    try {
      const result = await client.request('communities.unread');
      if (mine !== generation) return;
      counts.clear();
      for (const c of result.communities) counts.set(c.community_id, c.unread);
      total = result.unread_total;
      draw();
    } catch {
      // Offline or refused: the next authentication asks again.
    }
  };

  const kindText = (kind) => t(`notification.kind.${kind}`) === `notification.kind.${kind}` ? t('notification.kind.other') : t(`notification.kind.${kind}`);

  client.on('community.notification', ({ notification: n }) => {
    if (!n) return;
    generation += 1;
    if (n.actor?.user_id !== app.me.userId) {
      counts.set(n.community_id, (counts.get(n.community_id) ?? 0) + 1);
      total += 1;
      const community = app.communityNames.get(n.community_id);
      live.textContent = community
        ? t('notification.announce_in', { kind: kindText(n.kind), title: n.title, community })
        : t('notification.announce', { kind: kindText(n.kind), title: n.title });
    }
    draw();
  });
  client.on('community.read', ({ community_id: id, unread, unread_total: all }) => {
    generation += 1;
    if (unread > 0) counts.set(id, unread);
    else counts.delete(id);
    total = all;
    draw();
  });
  for (const name of ['community.joined', 'community.left', 'community.archived', 'resumed']) client.on(name, refresh);
  client.on('session', refresh);

  app.communityNames = new Map(); // community id -> name of every community seen
  app.unread = {
    of: (id) => counts.get(id) ?? 0,
    total: () => total,
    refresh,
    // A screen that learned a community's count (communities.list, communities.get) without a change.
    onChange(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    // The reply of communities.read (the `community.read` event follows on every device).
    apply(id, unread, all) {
      generation += 1;
      if (unread > 0) counts.set(id, unread);
      else counts.delete(id);
      total = all;
      draw();
    },
    rememberCommunities(list) {
      for (const c of list) app.communityNames.set(c.community_id, c.name);
    },
    draw,
  };
  return app.unread;
}
