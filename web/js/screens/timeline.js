// The Posts tab (#/posts, #/posts/mentions, #/posts/likes): compose, then the home timeline, live (`home`):
// others' new posts wait behind "N new posts" instead of moving the page, mine show at once; older posts in
// pages as you scroll. Mentions and likes are tabs of their own. Without a handle, a pointer to Settings.
import { el, heading } from '../ui.js';
import { composeForm, feed, inlineReply } from '../social.js';

const PAGE = 20;
const TABS = ['home', 'mentions', 'likes'];

let stop = [];

export function show(root, params, app) {
  const { t, client } = app;
  // #/tag/NAME: the posts with a hashtag (the same screen, no tab chosen).
  if (location.hash.startsWith('#/tag/')) return showTag(root, decodeURIComponent(params.id ?? ''), app);
  const tab = TABS.includes(params.id) ? params.id : 'home';
  const tabs = el('nav', { class: 'tabs', 'aria-label': t('posts.tabs') }, el('ul', {}, TABS.map((name) =>
    el('li', {}, el('a', { href: name === 'home' ? '#/posts' : `#/posts/${name}`, 'aria-current': name === tab ? 'page' : null },
      t(`posts.tab.${name}`))))));
  const noHandle = el('p', { class: 'notice', hidden: true }, t('posts.no_handle'), ' ',
    el('a', { href: '#/settings' }, t('posts.choose_handle')));
  root.append(heading(t(`posts.title.${tab}`)), tabs, noHandle);

  client.request('profile.get').then(({ profile }) => { noHandle.hidden = Boolean(profile.handle); }, () => {});

  const onReply = inlineReply(app);

  if (tab === 'home') {
    const home = feed(app, { label: t('posts.home_label'), emptyText: t('posts.home_empty'), onReply,
      fetchPage: (before) => client.request('timeline.home', { limit: PAGE, ...(before !== null ? { before } : {}) }) });
    const composer = el('section', { 'aria-labelledby': 'compose-title' }, el('h2', { id: 'compose-title', class: 'visually-hidden' }, t('compose.title')),
      composeForm(app, { onPosted: (post) => home.add(post) }));
    root.append(composer, el('section', { 'aria-label': t('posts.home_label') }, home.node));
    const start = async () => {
      let page;
      try {
        page = await home.load();
      } catch {
        return;
      }
      stop.push(app.social.watch(['home'], page.after, {
        post: (post) => home.add(post),
        deleted: (d) => home.remove(d),
        resync: () => home.load().catch(() => {}),
      }));
    };
    stop.push(home.stop);
    start();
  } else if (tab === 'mentions') {
    const mentions = feed(app, { label: t('posts.mentions_label'), emptyText: t('posts.mentions_empty'), onReply,
      fetchPage: (before) => client.request('timeline.mentions', { limit: PAGE, ...(before !== null ? { before } : {}) }) });
    root.append(mentions.node);
    stop.push(mentions.stop);
    let reloadTimer = null;
    mentions.load().catch(() => {});
    // A new mention arrives as a notification: the tab shows it after a fresh first page.
    stop.push(app.social.watch([], null, {
      notification: (n) => {
        if (n?.kind !== 'mention') return;
        clearTimeout(reloadTimer);
        reloadTimer = setTimeout(() => mentions.load().catch(() => {}), 200);
      },
      deleted: (d) => mentions.remove(d),
    }));
    stop.push(() => clearTimeout(reloadTimer));
  } else {
    const likes = feed(app, { label: t('posts.likes_label'), emptyText: t('posts.likes_empty'), onReply,
      fetchPage: async (before) => {
        const page = await client.request('timeline.likes', { limit: PAGE, ...(before !== null ? { before } : {}) });
        return { posts: page.posts, before: page.next_before ?? null };
      } });
    root.append(likes.node);
    stop.push(likes.stop);
    likes.load().catch(() => {});
  }
}

function showTag(root, tag, app) {
  const { t, client } = app;
  const posts = feed(app, { label: t('posts.tag_label', { tag }), emptyText: t('posts.tag_empty', { tag }), onReply: inlineReply(app),
    fetchPage: (before) => client.request('timeline.hashtag', { tag, limit: PAGE, ...(before !== null ? { before } : {}) }) });
  root.append(heading(t('posts.tag_title', { tag })), el('p', {}, el('a', { href: '#/posts' }, t('posts.back_home'))), posts.node);
  stop.push(posts.stop);
  posts.load().catch(() => {});
}

export function hide() {
  for (const off of stop) off();
  stop = [];
}
