// A community's page (#/community/ID): its name, picture, description and member count; join or quit. For
// members: upcoming events (chronological, "Show more"), past ones (newest first, "Show earlier events"),
// announcements, the course with my progress, the members (core first). Viewing it as a member marks its
// notifications read (`communities.read`), again when one arrives while it is open. Administrators edit and
// archive it, publish events and appoint core members; core members (and administrators) post announcements.
import { el, heading, field, errorBox, busy, formatTime, pagedList } from '../ui.js';
import { communityForm } from './communities.js';
import { eventForm, eventItem } from './event.js';

const PAGE = 20;

let stop = [];
let readTimer = null;

export function show(root, params, app) {
  const { t, client } = app;
  const id = Number(params.id);
  const title = heading(t('community.loading'));
  const error = errorBox();
  const body = el('div');
  root.append(title, error, body);
  let community = null;
  let readInFlight = false;

  const isAdmin = () => app.me.role === 'admin';
  const isCore = () => community?.role === 'core' || isAdmin();
  const canSeeContent = () => community && (community.joined || isAdmin());

  // Viewing the community marks everything in it read; the reply and the `community.read` event clear the dots.
  const markRead = async () => {
    if (!community?.joined || readInFlight || document.hidden) return;
    readInFlight = true;
    try {
      const result = await client.request('communities.read', { community_id: id });
      app.unread.apply(id, result.unread, result.unread_total);
    } catch {
      // The dot stays; the next visit tries again.
    } finally {
      readInFlight = false;
    }
  };

  const sections = {};

  const load = async () => {
    try {
      ({ community } = await client.request('communities.get', { community_id: id }));
    } catch (failure) {
      title.textContent = t('community.unavailable');
      error.show(app.errorText(failure));
      return;
    }
    error.show('');
    app.unread.rememberCommunities([community]);
    title.textContent = community.name;
    document.title = t('app.document_title', { name: community.name });
    const parts = [el('p', {}, el('a', { href: '#/communities' }, t('community.back'))), about(app, community)];
    parts.push(membership(app, community, load));
    let newsReady = Promise.resolve();
    if (canSeeContent()) {
      sections.news = newsSection(app, id);
      newsReady = sections.news.ready;
      sections.upcoming = eventsSection(app, id, 'upcoming');
      sections.past = eventsSection(app, id, 'past');
      sections.announcements = postsSection(app, id, isCore());
      sections.course = courseSummary(app, id);
      sections.members = membersSection(app, id, isAdmin());
      parts.push(sections.news.node, sections.upcoming.node, sections.past.node, sections.announcements.node, sections.course.node,
        sections.members.node);
    } else {
      parts.push(el('p', { class: 'hint' }, t('community.join_to_see')));
    }
    if (isAdmin()) parts.push(adminSection(app, community, load, () => sections.upcoming?.reload()));
    body.replaceChildren(...parts);
    // A button that was pressed (join, quit, archive) is gone with the old page: the focus goes to the heading.
    if (document.activeElement === document.body) title.focus();
    // The news first (what is new since my last visit is marked), then everything is read.
    await newsReady;
    markRead();
  };

  const reloadSoon = (what) => {
    clearTimeout(readTimer);
    readTimer = setTimeout(async () => {
      for (const name of what) sections[name]?.reload();
      await sections.news?.reload();
      markRead();
    }, 150);
  };

  stop = [
    client.on('community.notification', ({ notification: n }) => {
      if (n?.community_id !== id) return;
      reloadSoon(n.kind === 'announcement' ? ['announcements'] : n.kind === 'lesson' ? ['course'] : ['upcoming', 'past']);
    }),
    client.on('community.updated', ({ community: c }) => { if (c?.community_id === id) load(); }),
    client.on('community.archived', ({ community_id: c }) => { if (c === id) load(); }),
    client.on('community.role', ({ community_id: c }) => { if (c === id) load(); }),
    client.on('community.joined', ({ community: c }) => { if (c?.community_id === id) load(); }),
    client.on('community.left', ({ community_id: c }) => { if (c === id) load(); }),
    client.on('community.post.updated', ({ post }) => { if (post?.community_id === id) reloadSoon(['announcements', 'course']); }),
    client.on('community.post.deleted', ({ community_id: c }) => { if (c === id) reloadSoon(['announcements', 'course']); }),
    client.on('event.joined', ({ event }) => { if (event?.community_id === id) reloadSoon(['upcoming']); }),
    client.on('event.dropped', () => reloadSoon(['upcoming'])),
    client.on('course.progress', ({ community_id: c }) => { if (c === id) sections.course?.reload(); }),
    client.on('session', () => reloadSoon([])),
  ];
  const visible = () => { if (!document.hidden) markRead(); };
  document.addEventListener('visibilitychange', visible);
  stop.push(() => document.removeEventListener('visibilitychange', visible));
  load();
}

export function hide() {
  clearTimeout(readTimer);
  for (const off of stop) off();
  stop = [];
}

// The community's notifications, newest first; those after my read marker (as it was when the page opened)
// are marked "New". Each leads to its event, or to the announcements or the course.
function newsSection(app, id) {
  const { t, client } = app;
  const list = el('ul', { class: 'list news', 'aria-labelledby': 'community-news-title', 'aria-busy': 'true' });
  const more = el('button', { type: 'button', class: 'quiet', hidden: true }, t('community.news_older'));
  let readSeq = null; // the marker when the page opened: news after it stays "New" while the page is open
  const item = (n) => {
    const isNew = readSeq !== null && n.seq > readSeq;
    const kind = t(`notification.kind.${n.kind}`);
    const text = t('community.news_line', { kind: kind.charAt(0).toUpperCase() + kind.slice(1), title: n.title });
    const href = n.event_id ? `#/event/${n.event_id}` : n.kind === 'lesson' ? `#/course/${id}` : null;
    return el('li', { dataset: { seq: n.seq }, class: isNew ? 'is-new' : null },
      el('div', { class: 'who' },
        el('div', { class: 'name' }, isNew ? el('span', { class: 'mark new' }, t('community.news_new')) : null, isNew ? ' ' : null,
          href ? el('a', { href }, text) : text),
        el('div', { class: 'detail' }, t('community.post_by', { name: n.actor?.display_name ?? t('someone'), time: formatTime(n.created_at) }))));
  };
  const load = pagedList({ list, more, emptyText: t('community.no_news'), fetchPage: async (before) => {
    const page = await client.request('communities.notifications', { community_id: id, limit: 10, ...(before ? { before_seq: before } : {}) });
    if (readSeq === null) readSeq = page.read_seq;
    return { items: page.notifications.map(item), next: page.next_before_seq };
  } });
  return {
    node: el('section', { 'aria-labelledby': 'community-news-title' },
      el('h2', { id: 'community-news-title' }, t('community.news')), list, el('div', { class: 'actions' }, more)),
    reload: () => load(),
    ready: load(),
  };
}

function about(app, c) {
  const { t } = app;
  const node = el('section', { class: 'about', 'aria-label': t('community.about') });
  if (c.picture) {
    let sameOrigin = false;
    try {
      sameOrigin = new URL(c.picture, location.href).origin === location.origin;
    } catch {
      sameOrigin = false;
    }
    // The page's policy loads pictures from this server only; another one's is a link.
    node.append(sameOrigin
      ? el('img', { class: 'picture', src: c.picture, alt: t('community.picture_alt', { name: c.name }) })
      : el('p', {}, el('a', { href: c.picture, target: '_blank', rel: 'noopener noreferrer' }, t('community.picture_link'))));
  }
  if (c.description) node.append(el('p', { class: 'description' }, c.description));
  const facts = [c.category, t('communities.members_count', { count: c.member_count })];
  if (c.role === 'core') facts.push(t('communities.role_core'));
  else if (c.joined) facts.push(t('community.you_are_member'));
  if (c.archived) facts.push(t('communities.archived'));
  node.append(el('p', { class: 'detail' }, facts.filter(Boolean).join(' · ')));
  return node;
}

function membership(app, c, reload) {
  const { t, client } = app;
  if (c.archived) return el('p', { class: 'notice' }, t('community.archived_notice'));
  if (!c.joined) {
    return el('div', { class: 'actions' }, el('button', { type: 'button', class: 'primary', onclick: (e) => busy(e.currentTarget, async () => {
      await client.request('communities.join', { community_id: c.community_id });
      app.toast(t('community.joined', { name: c.name }));
      await reload();
    }, (text) => app.toast(text)) }, t('community.join')));
  }
  return el('div', { class: 'actions' }, el('button', { type: 'button', class: 'danger', onclick: (e) => {
    if (!confirm(t('community.quit_confirm', { name: c.name }))) return;
    busy(e.currentTarget, async () => {
      const { dropped_event_ids: dropped } = await client.request('communities.quit', { community_id: c.community_id });
      app.toast(dropped.length ? t('community.quit_dropped', { name: c.name, count: dropped.length }) : t('community.quit_done', { name: c.name }));
      await reload();
    }, (text) => app.toast(text));
  } }, t('community.quit')));
}

// Upcoming (`direction` "upcoming") or past events, in pages.
function eventsSection(app, id, direction) {
  const { t, client } = app;
  const headingId = `events-${direction}`;
  const list = el('ul', { class: 'list events', 'aria-labelledby': headingId, 'aria-busy': 'true' });
  const error = errorBox();
  const more = el('button', { type: 'button', class: 'quiet', hidden: true },
    direction === 'upcoming' ? t('community.events_more') : t('community.events_earlier'));
  const load = pagedList({ list, more, error,
    emptyText: direction === 'upcoming' ? t('community.no_upcoming') : t('community.no_past'),
    fetchPage: async (cursor) => {
      const page = await client.request('events.list', { community_id: id, direction, limit: PAGE, ...(cursor ? { cursor } : {}) });
      return { items: page.events.map((e) => eventItem(app, e)), next: page.next_cursor };
    } });
  load();
  return {
    node: el('section', { 'aria-labelledby': headingId },
      el('h2', { id: headingId }, direction === 'upcoming' ? t('community.upcoming') : t('community.past')),
      error, list, el('div', { class: 'actions' }, more)),
    reload: () => load(),
  };
}

function postsSection(app, id, canPost) {
  const { t, client } = app;
  const list = el('ul', { class: 'list posts', 'aria-labelledby': 'announcements', 'aria-busy': 'true' });
  const error = errorBox();
  const more = el('button', { type: 'button', class: 'quiet', hidden: true }, t('community.posts_older'));
  const item = (p) => el('li', { dataset: { post: p.post_id } },
    el('article', { class: 'who', 'aria-label': p.title },
      el('h3', { class: 'name' }, p.title),
      el('p', { class: 'detail' }, t('community.post_by', { name: p.author?.display_name ?? t('someone'), time: formatTime(p.created_at) })),
      p.body ? el('p', { class: 'post-body' }, p.body) : null,
      p.video_url ? el('p', {}, el('a', { href: p.video_url, target: '_blank', rel: 'noopener noreferrer' }, t('course.video'))) : null),
    canDelete(app, p) ? el('button', { type: 'button', class: 'danger small', 'aria-label': t('community.post_delete_label', { title: p.title }),
      onclick: (e) => {
        if (!confirm(t('community.post_delete_confirm'))) return;
        busy(e.currentTarget, async () => {
          await client.request('community.posts.delete', { post_id: p.post_id });
          await load();
        }, (text) => app.toast(text));
      } }, t('community.post_delete')) : null);
  const load = pagedList({ list, more, error, emptyText: t('community.no_announcements'), fetchPage: async (before) => {
    const page = await client.request('community.posts.list', { community_id: id, kind: 'announcement', limit: PAGE,
      ...(before ? { before } : {}) });
    return { items: page.posts.map(item), next: page.next_before };
  } });
  load();
  const node = el('section', { 'aria-labelledby': 'announcements' },
    el('h2', { id: 'announcements' }, t('community.announcements')), error, list, el('div', { class: 'actions' }, more));
  if (canPost) node.append(postForm(app, id, 'announcement', () => load()));
  return { node, reload: () => load() };
}

function canDelete(app, post) {
  return app.me.role === 'admin' || post.author?.user_id === app.me.userId;
}

// A form posting an announcement or a lesson (core members and administrators).
export function postForm(app, communityId, kind, onDone) {
  const { t, client } = app;
  const prefix = kind === 'lesson' ? 'course.form' : 'community.post_form';
  const title = field(t(`${prefix}.title`), { type: 'text', maxlength: '120', required: true });
  const body = field(t(`${prefix}.body`), { as: 'textarea', maxlength: '10000' });
  const video = field(t('course.form.video'), { type: 'url', maxlength: '512' }, t('course.form.video_hint'));
  const error = errorBox();
  const submit = el('button', { type: 'submit' }, t(`${prefix}.submit`));
  const form = el('form', { novalidate: true }, title.row, body.row, kind === 'lesson' ? video.row : null, error,
    el('div', { class: 'actions' }, submit));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const params = { community_id: communityId, kind, title: title.input.value.trim() };
    if (!params.title) return error.show(t('community.post_form.title_missing'));
    if (body.input.value.trim()) params.body = body.input.value.trim();
    if (kind === 'lesson' && video.input.value.trim()) {
      if (!/^https?:\/\//i.test(video.input.value.trim())) return error.show(t('course.form.video_bad'));
      params.video_url = video.input.value.trim();
    }
    error.show('');
    busy(submit, async () => {
      await client.request('community.posts.create', params);
      title.input.value = '';
      body.input.value = '';
      video.input.value = '';
      app.toast(t(`${prefix}.posted`));
      await onDone();
    }, error.show);
  });
  const headingId = `post-form-${kind}`;
  return el('section', { 'aria-labelledby': headingId }, el('h3', { id: headingId }, t(`${prefix}.heading`)), form);
}

function courseSummary(app, id) {
  const { t, client } = app;
  const summary = el('p', { role: 'status' });
  const load = async () => {
    try {
      const { completed, total } = await client.request('courses.get', { community_id: id });
      summary.textContent = total ? t('course.progress', { completed, total }) : t('course.no_lessons');
    } catch (failure) {
      summary.textContent = app.errorText(failure);
    }
  };
  load();
  return {
    node: el('section', { 'aria-labelledby': 'course-summary' }, el('h2', { id: 'course-summary' }, t('course.title')),
      summary, el('p', {}, el('a', { href: `#/course/${id}` }, t('community.course_link')))),
    reload: load,
  };
}

function membersSection(app, id, isAdmin) {
  const { t, client } = app;
  const list = el('ul', { class: 'list members', 'aria-labelledby': 'community-members', 'aria-busy': 'true' });
  const error = errorBox();
  const more = el('button', { type: 'button', class: 'quiet', hidden: true }, t('community.members_more'));
  const item = (m) => {
    const name = m.user.user_id === app.me.userId ? t('group.you', { name: m.user.display_name }) : m.user.display_name;
    const core = m.role === 'core';
    return el('li', { dataset: { member: m.user.user_id } },
      el('div', { class: 'who' }, el('div', { class: 'name' }, name),
        el('div', { class: 'detail' }, core ? t('communities.role_core') : t('community.role_member'))),
      isAdmin ? el('button', { type: 'button', class: 'quiet small',
        'aria-label': core ? t('community.core_remove_label', { name: m.user.display_name }) : t('community.core_add_label', { name: m.user.display_name }),
        onclick: (e) => busy(e.currentTarget, async () => {
          await client.request('communities.core', { community_id: id, user_id: m.user.user_id, core: !core });
          app.toast(core ? t('community.core_removed', { name: m.user.display_name }) : t('community.core_added', { name: m.user.display_name }));
          await load();
        }, (text) => app.toast(text)) }, core ? t('community.core_remove') : t('community.core_add')) : null);
  };
  const load = pagedList({ list, more, error, emptyText: t('community.no_members'), fetchPage: async (cursor) => {
    const page = await client.request('communities.members', { community_id: id, limit: 50, ...(cursor ? { cursor } : {}) });
    app.rememberNames(page.members.map((m) => m.user));
    return { items: page.members.map(item), next: page.next_cursor };
  } });
  load();
  return {
    node: el('section', { 'aria-labelledby': 'community-members' },
      el('h2', { id: 'community-members' }, t('community.members')), error, list, el('div', { class: 'actions' }, more)),
    reload: () => load(),
  };
}

function adminSection(app, c, reload, reloadEvents) {
  const { t, client } = app;
  const node = el('section', { 'aria-labelledby': 'community-admin', class: 'admin-tools' },
    el('h2', { id: 'community-admin' }, t('community.admin')));
  if (!c.archived) {
    node.append(el('h3', {}, t('community.publish_event')), eventForm(app, { communityId: c.community_id }, (event) => {
      app.toast(t('event.published', { title: event.title }));
      reloadEvents();
    }));
  }
  node.append(el('h3', {}, t('community.edit')), communityForm(app, c, () => reload()));
  if (!c.archived) {
    node.append(el('h3', {}, t('community.archive_title')), el('p', { class: 'hint' }, t('community.archive_hint')),
      el('div', { class: 'actions' }, el('button', { type: 'button', class: 'danger', onclick: (e) => {
        if (!confirm(t('community.archive_confirm', { name: c.name }))) return;
        busy(e.currentTarget, async () => {
          await client.request('communities.archive', { community_id: c.community_id });
          app.toast(t('community.archived_done', { name: c.name }));
          await reload();
        }, (text) => app.toast(text));
      } }, t('community.archive'))));
  }
  return node;
}
