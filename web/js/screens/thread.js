// A post's thread (#/post/ID): its ancestors (root first; deleted or hidden ones say so), the post, a reply
// form, and its direct replies oldest first ("Show more replies"). Live through `thread:<root>`: a new reply
// to this post joins the end of the list once every page is shown; deletions leave; counts change in place.
import { el, heading, errorBox, busy } from '../ui.js';
import { composeForm, postItem, inlineReply, removePost } from '../social.js';

const PAGE = 20;

let stop = [];

export function show(root, params, app) {
  const { t, client } = app;
  const id = Number(params.id);
  const title = heading(t('thread.loading'));
  const error = errorBox();
  const body = el('div');
  root.append(title, error, body);
  let after = null;
  let unwatch = null;
  const shown = new Set();

  const repliesList = el('ol', { class: 'list posts-feed replies', 'aria-labelledby': 'thread-replies' });
  const noReplies = el('p', { class: 'empty', hidden: true }, t('thread.no_replies'));
  const more = el('button', { type: 'button', class: 'quiet', hidden: true }, t('thread.more_replies'));
  const onReply = inlineReply(app);

  const addReply = (post) => {
    if (shown.has(post.post_id)) return;
    shown.add(post.post_id);
    repliesList.append(postItem(app, post, { onReply }));
    noReplies.hidden = true;
  };
  repliesList.addEventListener('post-removed', (e) => {
    shown.delete(e.detail.postId);
    queueMicrotask(() => { noReplies.hidden = repliesList.children.length > 0; });
  });

  const loadMore = async () => {
    const page = await client.request('timeline.thread', { post_id: id, after, limit: PAGE });
    for (const reply of page.replies) addReply(reply);
    after = page.after ?? null;
    more.hidden = after === null;
  };
  more.addEventListener('click', () => busy(more, loadMore, (text) => app.toast(text)));

  const load = async () => {
    unwatch?.();
    unwatch = null;
    let page;
    try {
      page = await client.request('timeline.thread', { post_id: id, limit: PAGE });
    } catch (failure) {
      title.textContent = t('thread.unavailable');
      error.show(app.errorText(failure));
      body.replaceChildren();
      return;
    }
    error.show('');
    const post = page.post;
    title.textContent = t('thread.title', { name: post.author?.display_name ?? t('someone') });
    document.title = t('app.document_title', { name: title.textContent });
    const ancestors = el('ol', { class: 'list posts-feed ancestors', 'aria-label': t('thread.ancestors') },
      page.ancestors.map((a) => (a.deleted ? el('li', { class: 'post', dataset: { post: a.post_id } }, el('p', { class: 'deleted' }, t('post.deleted')))
        : postItem(app, a, { onReply }))));
    const focused = el('ul', { class: 'list posts-feed focused', 'aria-label': t('thread.the_post') }, postItem(app, post, {
      onReply: () => form.focusText() }));
    const form = composeForm(app, { replyTo: post, id: 'thread-reply', onPosted: (reply) => { if (after === null) addReply(reply); } });
    repliesList.replaceChildren();
    shown.clear();
    for (const reply of page.replies) addReply(reply);
    after = page.after ?? null;
    more.hidden = after === null;
    noReplies.hidden = page.replies.length > 0;
    body.replaceChildren(
      page.ancestors.length ? el('section', { 'aria-label': t('thread.ancestors') }, ancestors) : '',
      focused,
      el('section', { 'aria-label': t('thread.reply_title') }, form),
      el('section', { 'aria-labelledby': 'thread-replies' }, el('h2', { id: 'thread-replies' }, t('thread.replies')),
        repliesList, noReplies, el('div', { class: 'actions' }, more)));

    const rootId = post.thread_root ?? post.post_id;
    const newest = Math.max(post.seq ?? 0, ...page.replies.map((r) => r.seq ?? 0));
    unwatch = app.social.watch([`thread:${rootId}`], after === null ? newest : null, {
      post: (p) => { if (p.reply_to === post.post_id && after === null) addReply(p); },
      deleted: (d) => {
        if (d.post_id === post.post_id) {
          title.textContent = t('thread.deleted');
          body.replaceChildren(el('p', { class: 'notice' }, t('post.deleted')));
          return;
        }
        removePost(d.post_id);
      },
      resync: () => load(),
    });
  };
  load();
  stop = [() => unwatch?.()];
}

export function hide() {
  for (const off of stop) off();
  stop = [];
}
