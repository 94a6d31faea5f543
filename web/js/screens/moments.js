// The Moments tab (#/moments; docs/web.md, "Photos and moments"): a composer (up to 9 photos, each with its
// upload progress, and a caption), then the feed of my own and my friends' moments, newest first, 10 a page
// ("Show older moments"), "No moments yet" when there are none. A moment shows its owner, time, caption, a grid of
// photos opening the viewer (arrows, swipe, keyboard), Like (n) as a toggle, the likers' names ("Liked by Ann and
// Bob"; "Who liked this" lists them all), and Delete on my own. Live: `moment.created`, `moment.deleted` and
// `moment.liked` (from friends and from my other devices) change the feed in place.
import { el, heading, field, errorBox, busy, formatTime } from '../ui.js';
import { avatar, openViewer, photoGrid, photoImage, photoPicker } from '../photos.js';

const PAGE = 10;
const MAX_PHOTOS = 9;
const MAX_CAPTION = 500;

let stop = [];

export function show(root, params, app) {
  const { t, client } = app;
  const list = el('ul', { class: 'list moments-feed', 'aria-label': t('moments.feed_label'), 'aria-busy': 'true' });
  const empty = el('p', { class: 'empty', hidden: true }, t('moments.empty'));
  const more = el('button', { type: 'button', class: 'quiet', hidden: true }, t('moments.older'));
  const feedError = errorBox();
  const items = new Map(); // moment id -> li
  let before = null;

  let failed = false;
  const drawEmpty = () => { empty.hidden = items.size > 0 || failed; };

  // MARK: composer
  const picker = photoPicker(app, { max: MAX_PHOTOS, label: t('moments.add_photos') });
  const caption = field(t('moments.caption'), { as: 'textarea', rows: '2', maxlength: String(MAX_CAPTION) }, t('moments.caption_hint', { count: MAX_CAPTION }));
  const share = el('button', { type: 'submit', disabled: true }, t('moments.share'));
  const composeError = errorBox();
  const form = el('form', { class: 'moment-compose', novalidate: true, 'aria-labelledby': 'moment-compose-title' },
    el('h2', { id: 'moment-compose-title' }, t('moments.new')), picker, caption.row, composeError, el('div', { class: 'actions' }, share));
  picker.addEventListener('change', () => { share.disabled = picker.count() === 0; });
  let clientId = null;
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (picker.count() === 0) return;
    composeError.show('');
    clientId ??= newClientId();
    busy(share, async () => {
      const photoIds = await picker.upload();
      const params = { photo_ids: photoIds, client_id: clientId };
      const text = caption.input.value.trim();
      if (text) params.caption = text;
      const { moment } = await client.request('moments.create', params);
      clientId = null;
      picker.clear();
      caption.input.value = '';
      add(moment, true);
      app.toast(t('moments.shared'));
    }, (text) => composeError.show(text)).then(() => { share.disabled = picker.count() === 0; });
  });

  // MARK: one moment
  const likersLine = (moment) => {
    const names = (moment.recent_likers ?? []).map((u) => u.display_name);
    const count = moment.like_count ?? 0;
    if (count === 0) return '';
    if (names.length === 0) return t(count === 1 ? 'moments.liked_by_count_one' : 'moments.liked_by_count', { count });
    const rest = count - names.length;
    const listed = names.length === 1 ? names[0] : names.length === 2 ? t('moments.two', { first: names[0], second: names[1] })
      : t('moments.three', { first: names[0], second: names[1], third: names[2] });
    if (rest <= 0) return t('moments.liked_by', { names: listed });
    return t(rest === 1 ? 'moments.liked_by_more_one' : 'moments.liked_by_more', { names: listed, count: rest });
  };

  const momentItem = (moment) => {
    const owner = moment.owner ?? {};
    const name = owner.display_name ?? t('someone');
    const mine = owner.user_id === app.me.userId;
    const item = el('li', { class: 'moment', dataset: { moment: moment.moment_id } });
    const like = el('button', { type: 'button', class: 'quiet small like' });
    const likers = el('p', { class: 'detail likers' });
    const whoButton = el('button', { type: 'button', class: 'quiet small', 'aria-expanded': 'false' }, t('moments.who_liked'));
    const who = el('div', { class: 'who-liked', hidden: true });
    const state = moment;
    const draw = () => {
      like.textContent = t(state.liked ? 'moments.liked' : 'moments.like', { count: state.like_count ?? 0 });
      like.setAttribute('aria-pressed', String(Boolean(state.liked)));
      const key = state.liked ? 'moments.liked_label' : 'moments.like_label';
      like.setAttribute('aria-label', t(state.like_count === 1 ? `${key}_one` : key, { name, count: state.like_count ?? 0 }));
      likers.textContent = likersLine(state);
      whoButton.hidden = (state.like_count ?? 0) === 0;
      item.dataset.likes = String(state.like_count ?? 0);
    };
    item.momentUpdate = (change) => {
      if (typeof change.like_count === 'number') state.like_count = change.like_count;
      if (typeof change.liked === 'boolean') state.liked = change.liked;
      if (change.user) {
        // `userLiked`: whether that user likes it now (their like or unlike).
        const others = (state.recent_likers ?? []).filter((u) => u.user_id !== change.user.user_id);
        state.recent_likers = change.userLiked ? [change.user, ...others].slice(0, 3) : others;
      }
      draw();
      if (!who.hidden) loadLikers();
    };
    like.addEventListener('click', () => busy(like, async () => {
      const result = await client.request(state.liked ? 'moments.unlike' : 'moments.like', { moment_id: moment.moment_id });
      item.momentUpdate({ like_count: result.like_count, liked: result.liked, userLiked: result.liked,
        user: { user_id: app.me.userId, display_name: app.me.displayName } });
    }, (text) => app.toast(text)));
    const loadLikers = async () => {
      try {
        const page = await client.request('moments.likers', { moment_id: moment.moment_id, limit: 100 });
        who.replaceChildren(el('ul', { class: 'likers-list', 'aria-label': t('moments.likers_label', { name }) },
          page.likers.map((u) => el('li', {}, avatar(app, u), ' ', u.display_name))));
      } catch (failure) {
        who.replaceChildren(el('p', { class: 'error' }, app.errorText(failure)));
      }
    };
    whoButton.addEventListener('click', () => {
      const open = who.hidden;
      who.hidden = !open;
      whoButton.setAttribute('aria-expanded', String(open));
      if (open) loadLikers();
    });
    const buttons = [like, whoButton];
    if (mine) {
      buttons.push(el('button', { type: 'button', class: 'danger small', 'aria-label': t('moments.delete_label', { time: formatTime(moment.created_at) }),
        onclick: (e) => {
          if (!confirm(t('moments.delete_confirm'))) return;
          busy(e.currentTarget, async () => {
            await client.request('moments.delete', { moment_id: moment.moment_id });
            removeMoment(moment.moment_id);
            app.toast(t('moments.deleted'));
          }, (text) => app.toast(text));
        } }, t('moments.delete')));
    }
    const label = t('moments.label', { name, time: formatTime(moment.created_at) });
    item.append(el('article', { 'aria-label': label },
      el('p', { class: 'post-head' }, avatar(app, owner), ' ', el('span', { class: 'name' }, name), ' ',
        el('span', { class: 'when' }, formatTime(moment.created_at))),
      moment.caption ? el('p', { class: 'caption' }, moment.caption) : null,
      photoGrid(app, moment.photos ?? [], { label: t('moments.photos_label', { name, count: (moment.photos ?? []).length }) }),
      likers, el('div', { class: 'actions tight' }, ...buttons), who));
    draw();
    return item;
  };

  // Newest first: a moment goes before the first shown one with a smaller id.
  const add = (moment, fresh = false) => {
    if (items.has(moment.moment_id)) return;
    const item = momentItem(moment);
    items.set(moment.moment_id, item);
    if (fresh) {
      const after = [...list.children].find((li) => Number(li.dataset.moment) < moment.moment_id);
      list.insertBefore(item, after ?? null);
    } else {
      list.append(item);
    }
    drawEmpty();
  };
  const removeMoment = (id) => {
    const item = items.get(id);
    if (!item) return;
    const focusInside = item.contains(document.activeElement);
    items.delete(id);
    item.remove();
    drawEmpty();
    if (focusInside) root.querySelector('h1')?.focus();
  };

  const load = async (append = false) => {
    try {
      const page = await client.request('moments.feed', { limit: PAGE, ...(append && before !== null ? { before } : {}) });
      if (!append) {
        list.replaceChildren();
        items.clear();
      }
      for (const moment of page.moments) add(moment);
      before = page.next_before ?? null;
      more.hidden = before === null;
      failed = false;
      feedError.show('');
    } catch (failure) {
      failed = items.size === 0;
      feedError.show(app.errorText(failure));
    }
    list.setAttribute('aria-busy', 'false');
    drawEmpty();
  };
  more.addEventListener('click', () => busy(more, () => load(true), () => {}));

  root.append(heading(t('moments.title')), form,
    el('section', { 'aria-labelledby': 'moments-feed-title' }, el('h2', { id: 'moments-feed-title' }, t('moments.feed_title')),
      feedError, list, empty, el('div', { class: 'actions' }, more)),
    myPhotosSection(app));

  stop.push(client.on('moment.created', ({ moment }) => { if (moment) add(moment, true); }));
  stop.push(client.on('moment.deleted', ({ moment_id: id }) => removeMoment(id)));
  stop.push(client.on('moment.liked', (event) => {
    const item = items.get(event.moment_id);
    if (!item) return;
    // `liked` in the event is the liker's: it is mine too only when the liker is me (another of my devices).
    const mineToo = event.user?.user_id === app.me.userId;
    item.momentUpdate({ like_count: event.like_count, user: event.user, userLiked: event.liked,
      ...(mineToo ? { liked: event.liked } : {}) });
  }));
  // After a reconnect the feed is read again (events while away are not replayed).
  stop.push(client.on('session', () => load()));
  load();
}

// "Your photos": my photos newest first (`photos.mine`, 30 a page), shown when asked for; each opens the viewer
// and can be deleted for good (`photos.delete`: it leaves every moment and post, a moment left empty goes too).
function myPhotosSection(app) {
  const { t, client } = app;
  const list = el('ul', { class: 'list my-photos', 'aria-label': t('photos.mine_label') });
  const more = el('button', { type: 'button', class: 'quiet', hidden: true }, t('photos.mine_more'));
  const toggle = el('button', { type: 'button', class: 'quiet', 'aria-expanded': 'false' }, t('photos.mine_show'));
  const error = errorBox();
  const body = el('div', { hidden: true }, error, list, el('div', { class: 'actions' }, more));
  let photos = [];
  let before = null;
  const item = (photo) => {
    const when = formatTime(photo.created_at);
    const open = el('button', { type: 'button', class: 'photo-button', 'aria-label': t('photos.mine_open', { time: when }) },
      photoImage(app, photo, { size: 'thumb' }));
    open.addEventListener('click', () => openViewer(app, photos, photos.findIndex((p) => p.photo_id === photo.photo_id), open));
    const remove = el('button', { type: 'button', class: 'danger small', 'aria-label': t('photos.mine_delete_label', { time: when }) }, t('photos.mine_delete'));
    const node = el('li', { dataset: { photo: photo.photo_id } }, el('div', { class: 'my-photo' }, open), el('span', { class: 'detail' }, when), remove);
    remove.addEventListener('click', () => {
      if (!confirm(t('photos.mine_delete_confirm'))) return;
      busy(remove, async () => {
        await client.request('photos.delete', { photo_id: photo.photo_id });
        photos = photos.filter((p) => p.photo_id !== photo.photo_id);
        node.remove();
        if (!photos.length) list.replaceChildren(el('li', { class: 'empty' }, t('photos.mine_none')));
        toggle.focus();
        app.toast(t('photos.mine_deleted'));
      }, (text) => app.toast(text));
    });
    return node;
  };
  const load = async (append) => {
    const page = await client.request('photos.mine', { limit: 30, ...(append && before !== null ? { before } : {}) });
    if (!append) { photos = []; list.replaceChildren(); }
    photos.push(...page.photos);
    list.append(...page.photos.map(item));
    if (!photos.length) list.replaceChildren(el('li', { class: 'empty' }, t('photos.mine_none')));
    before = page.next_before ?? null;
    more.hidden = before === null;
    error.show('');
  };
  toggle.addEventListener('click', () => {
    const opening = body.hidden;
    body.hidden = !opening;
    toggle.setAttribute('aria-expanded', String(opening));
    toggle.textContent = t(opening ? 'photos.mine_hide' : 'photos.mine_show');
    if (opening) load(false).catch((failure) => error.show(app.errorText(failure)));
  });
  more.addEventListener('click', () => busy(more, () => load(true), error.show));
  return el('section', { 'aria-labelledby': 'my-photos-title' }, el('h2', { id: 'my-photos-title' }, t('photos.mine_title')),
    el('div', { class: 'actions' }, toggle), body);
}

function newClientId() {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return 'web-' + [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
}

export function hide() {
  for (const off of stop) off();
  stop = [];
}
