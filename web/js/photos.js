// Photos in the web client (docs/web.md, "Photos and moments"): showing a photo (fetched with the session's
// bearer token into a blob URL, cached, its dominant colour as the placeholder while it loads), avatars, a grid
// of photos that opens the viewer, the viewer itself (a modal dialog: arrows, swipe, keyboard, Escape closes and
// the focus goes back), uploading (XHR to `POST /photos` with progress; files over 5 MB through tus `/uploads`
// in chunks, resuming after a failed chunk from the offset the server reports), and a picker that shows the
// chosen files with a progress bar each.
//
// Why blob URLs: `GET /photos/{id}` needs `Authorization: Bearer`, which an `<img src>` cannot send (the same
// reason as voice clips, see voice.js); renditions never change for an id, so a blob URL, once made, stays right.
import { el } from './ui.js';

const CACHE_LIMIT = 120;              // blob URLs kept (thumbnails are ~10-30 KB, display images ~100-300 KB)
export const TUS_THRESHOLD = 5 * 1024 * 1024;
const TUS_CHUNK = 2 * 1024 * 1024;
const TUS_RETRIES = 5;

const cache = new Map();              // `${token}/${id}/${size}` -> Promise<blob URL>, oldest first

export function photoURL(app, photoId, size = 'display') {
  const key = `${app.client.token}/${photoId}/${size}`;
  if (cache.has(key)) {
    const entry = cache.get(key);
    cache.delete(key);
    cache.set(key, entry);
    return entry;
  }
  const entry = fetch(`/photos/${encodeURIComponent(String(photoId))}?size=${size}`, {
    headers: { Authorization: `Bearer ${app.client.token}`, Accept: 'image/webp,image/jpeg' },
  }).then((response) => {
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    return response.blob();
  }).then((blob) => URL.createObjectURL(blob));
  entry.catch(() => cache.delete(key));
  cache.set(key, entry);
  while (cache.size > CACHE_LIMIT) {
    const [oldKey, oldEntry] = cache.entries().next().value;
    cache.delete(oldKey);
    // Images already drawn keep their decoded pixels; a later draw fetches again.
    oldEntry.then((url) => setTimeout(() => URL.revokeObjectURL(url), 10000), () => {});
  }
  return entry;
}

// A photo: a box in the photo's dominant colour and proportions, the image fading in once fetched.
// `alt` describes it ('' for a decorative one, e.g. an avatar next to the name).
export function photoImage(app, photo, { size = 'thumb', alt = '', className = 'photo' } = {}) {
  const box = el('span', { class: className, dataset: { photo: photo.photo_id, size } });
  if (photo.color) box.style.setProperty('--placeholder', photo.color);
  if (photo.width && photo.height) box.style.setProperty('--ratio', `${photo.width} / ${photo.height}`);
  const img = el('img', { alt, decoding: 'async', draggable: 'false' });
  img.hidden = true;
  box.append(img);
  photoURL(app, photo.photo_id, size).then((url) => {
    img.addEventListener('load', () => { img.hidden = false; box.dataset.loaded = 'true'; }, { once: true });
    img.src = url;
  }, () => { box.dataset.failed = 'true'; });
  return box;
}

// MARK: avatars

// A round picture next to a name: the user's avatar (`avatar_photo_id`, or `avatar` in a profile), else the
// initial on a coloured disc. Decorative (the name is beside it). Every avatar drawn says whose it is
// (`data-avatar-user`) and what it shows (`data-avatar-photo`, '' for the initial), so that `profile.updated`
// can redraw each one on screen (`followAvatars`); what that event said wins over the data the caller has
// (which may be older: a page read before the change).
export function avatar(app, user, { large = false } = {}) {
  const { photo, name } = avatarLook(user);
  const className = large ? 'avatar large' : 'avatar';
  let node;
  if (photo) {
    node = photoImage(app, photo, { size: 'thumb', alt: '', className });
    node.setAttribute('aria-hidden', 'true');
  } else {
    node = el('span', { class: `${className} initial`, 'aria-hidden': 'true' }, initialOf(name));
  }
  const userId = user?.user_id;
  if (userId !== null && userId !== undefined) node.dataset.avatarUser = String(userId);
  node.dataset.avatarPhoto = photo ? String(photo.photo_id) : '';
  return node;
}

// Per user id, the newest word of `profile.updated` on that user's picture (`photo`: a Photo, or null for none;
// absent when the event said nothing about it) and name. Kept for one session: after a reconnect (events in
// between are lost, and someone no longer a friend or followed sends none) the pages read afresh win again.
const latest = new Map();

function avatarLook(user) {
  const known = user?.user_id !== undefined && user?.user_id !== null ? latest.get(Number(user.user_id)) : undefined;
  const id = user?.avatar_photo_id ?? user?.avatar?.photo_id ?? null;
  let photo = id !== null && id !== undefined ? (user.avatar ?? { photo_id: id }) : null;
  if (known && 'photo' in known) photo = known.photo;
  return { photo, name: known?.name ?? user?.display_name ?? '?' };
}

const initialOf = (name) => Array.from(String(name).trim())[0]?.toUpperCase() ?? '?';

// Installs, once per page, what keeps every avatar on screen right: on `profile.updated` each element showing
// that user's avatar (friends list, posts, moments, likers, profile headers, follow lists, Settings) is
// replaced by one of the new picture (or the initial), and the old picture's blob URL is released once no
// element shows it any more.
export function followAvatars(app) {
  app.client.on('profile.updated', ({ profile }) => { if (profile) avatarChanged(app, profile); });
  app.client.on('session', () => latest.clear());
}

// A user's profile as `profile.updated` (or my own `profile.avatar.set`/`remove`) gives it: kept as the newest
// word, and every avatar of that user on screen redrawn.
export function avatarChanged(app, profile) {
  const userId = Number(profile.user_id);
  if (!Number.isFinite(userId)) return;
  const entry = { ...(latest.get(userId) ?? {}) };
  if (profile.display_name) entry.name = profile.display_name;
  // An avatar change sends the public profile (`bio`, `stats`, `avatar` when there is one); a new name or
  // handle sends only `user_id`, `display_name` and `handle`, which says nothing about the picture.
  if ('avatar' in profile || 'bio' in profile || 'stats' in profile) entry.photo = profile.avatar ?? null;
  latest.set(userId, entry);
  const dropped = new Set();
  for (const node of document.querySelectorAll(`[data-avatar-user="${userId}"]`)) {
    const current = node.dataset.avatarPhoto ?? '';
    // Without word on the picture (a new name), each avatar keeps the picture it shows.
    const photo = 'photo' in entry ? entry.photo : current ? { photo_id: Number(current) } : null;
    const name = entry.name ?? node.textContent ?? '?';
    if (String(photo?.photo_id ?? '') === current && (photo || node.textContent === initialOf(name))) continue;
    if (current) dropped.add(current);
    node.replaceWith(avatar(app, { user_id: userId, display_name: name, ...(photo ? { avatar: photo } : {}) },
      { large: node.classList.contains('large') }));
  }
  // Later, so that a page being drawn right now (its boxes waiting for their URL) is in the document first.
  if (dropped.size) setTimeout(() => { for (const id of dropped) releasePhoto(app, id, 'thumb'); }, 1000);
}

// Revokes the cached blob URL of a rendition that nothing in the document shows (a later draw fetches again).
export function releasePhoto(app, photoId, size) {
  const key = `${app.client.token}/${photoId}/${size}`;
  const entry = cache.get(key);
  if (!entry) return;
  if (document.querySelector(`[data-photo="${CSS.escape(String(photoId))}"][data-size="${size}"]`)) return;
  entry.then((url) => {
    if ([...document.images].some((img) => img.src === url)) return;
    if (cache.get(key) === entry) cache.delete(key);
    URL.revokeObjectURL(url);
  }, () => {});
}

// MARK: the viewer

// Opens `photos` at `index` in a modal dialog: Previous/Next buttons, Left/Right arrow keys, Home/End, a swipe
// (a horizontal drag of 40 px or more), "Photo 2 of 5"; Escape or Close closes it and the focus goes back to
// `opener`.
export function openViewer(app, photos, index, opener = document.activeElement, { label = '' } = {}) {
  const { t } = app;
  let at = Math.max(0, Math.min(index, photos.length - 1));
  const counter = el('p', { class: 'viewer-count', 'aria-live': 'polite' });
  const frame = el('div', { class: 'viewer-frame' });
  const previous = el('button', { type: 'button', class: 'viewer-previous', 'aria-label': t('photos.previous') }, '‹');
  const next = el('button', { type: 'button', class: 'viewer-next', 'aria-label': t('photos.next') }, '›');
  const close = el('button', { type: 'button', class: 'quiet viewer-close' }, t('photos.close'));
  const title = el('h2', { id: 'viewer-title', class: 'visually-hidden' }, label || t('photos.viewer'));
  const dialog = el('dialog', { class: 'viewer', 'aria-labelledby': 'viewer-title', dataset: { screen: 'viewer' } },
    title, el('div', { class: 'viewer-top' }, counter, close), el('div', { class: 'viewer-body' }, previous, frame, next));
  const draw = () => {
    const photo = photos[at];
    counter.textContent = t('photos.position', { index: at + 1, count: photos.length });
    dialog.dataset.index = String(at);
    frame.replaceChildren(photoImage(app, photo, { size: 'display', alt: t('photos.alt', { index: at + 1, count: photos.length }), className: 'photo viewer-photo' }));
    previous.disabled = at === 0;
    next.disabled = at === photos.length - 1;
    // The thumbnails next door start loading, so moving on is quick.
    for (const n of [at - 1, at + 1]) if (photos[n]) photoURL(app, photos[n].photo_id, 'display').catch(() => {});
  };
  const go = (to) => {
    const target = Math.max(0, Math.min(to, photos.length - 1));
    if (target === at) return;
    const focusWasOnDisabled = (document.activeElement === previous && target === 0) || (document.activeElement === next && target === photos.length - 1);
    at = target;
    draw();
    if (focusWasOnDisabled) close.focus();
  };
  previous.addEventListener('click', () => go(at - 1));
  next.addEventListener('click', () => go(at + 1));
  close.addEventListener('click', () => dialog.close());
  dialog.addEventListener('keydown', (event) => {
    if (event.key === 'ArrowLeft') { event.preventDefault(); go(at - 1); }
    else if (event.key === 'ArrowRight') { event.preventDefault(); go(at + 1); }
    else if (event.key === 'Home') { event.preventDefault(); go(0); }
    else if (event.key === 'End') { event.preventDefault(); go(photos.length - 1); }
  });
  let startX = null;
  // A drag of the image would start the browser's drag and drop (and cancel the pointer): not here.
  frame.addEventListener('dragstart', (event) => event.preventDefault());
  frame.addEventListener('pointerdown', (event) => {
    startX = event.clientX;
    frame.setPointerCapture?.(event.pointerId);
  });
  frame.addEventListener('pointerup', (event) => {
    if (startX === null) return;
    const dx = event.clientX - startX;
    startX = null;
    if (Math.abs(dx) >= 40) go(dx < 0 ? at + 1 : at - 1);
  });
  frame.addEventListener('pointercancel', () => { startX = null; });
  dialog.addEventListener('close', () => {
    dialog.remove();
    if (opener && opener.isConnected) opener.focus();
  });
  document.body.append(dialog);
  draw();
  dialog.showModal();
  close.focus();
  return dialog;
}

// A grid of thumbnails (1 to 9), each a button that opens the viewer there.
export function photoGrid(app, photos, { label = '' } = {}) {
  const { t } = app;
  const grid = el('ul', { class: `photo-grid count-${Math.min(photos.length, 9)}`, 'aria-label': label || t('photos.grid', { count: photos.length }) });
  photos.forEach((photo, index) => {
    const button = el('button', { type: 'button', class: 'photo-button', 'aria-label': t('photos.open', { index: index + 1, count: photos.length }) },
      photoImage(app, photo, { size: 'thumb' }));
    button.addEventListener('click', () => openViewer(app, photos, index, button, { label }));
    grid.append(el('li', {}, button));
  });
  return grid;
}

// MARK: uploading

export class UploadError extends Error {
  constructor(message, status = 0, code = null) {
    super(message);
    this.userMessage = message;
    this.status = status;
    this.code = code;
  }
}

function uploadErrorText(app, status, code) {
  const { t } = app;
  const key = code ? `photos.error.${code}` : null;
  if (key && key in app.strings) return t(key);
  if (status === 401) return t('photos.error.session');
  if (status === 413) return t('photos.error.image_too_large');
  if (status === 415) return t('photos.error.unsupported_media_type');
  if (status === 422) return t('photos.error.image_corrupt');
  if (status === 503) return t('photos.error.busy');
  return t('photos.error.upload');
}

// One XHR (fetch has no upload progress). Resolves with {status, body (parsed JSON or null), xhr}.
function send(method, url, { headers = {}, body = null, onProgress = null } = {}) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(method, url);
    for (const [name, value] of Object.entries(headers)) xhr.setRequestHeader(name, value);
    if (onProgress) xhr.upload.addEventListener('progress', (e) => { if (e.lengthComputable) onProgress(e.loaded); });
    xhr.addEventListener('load', () => {
      let parsed = null;
      try { parsed = xhr.responseText ? JSON.parse(xhr.responseText) : null; } catch { parsed = null; }
      resolve({ status: xhr.status, body: parsed, xhr });
    });
    xhr.addEventListener('error', () => reject(new UploadError('network', 0)));
    xhr.addEventListener('abort', () => reject(new UploadError('aborted', 0)));
    xhr.send(body);
  });
}

const base64 = (text) => btoa(String.fromCharCode(...new TextEncoder().encode(text)));

// Uploads one file; `onProgress(fraction)` as bytes go out. Resolves with the server's Photo (and `duplicate`);
// rejects with an UploadError whose message is a sentence for the user.
export async function uploadPhoto(app, file, onProgress = () => {}) {
  const auth = { Authorization: `Bearer ${app.client.token}` };
  const fail = (status, body) => new UploadError(uploadErrorText(app, status, body?.error?.code), status, body?.error?.code);
  try {
    if (file.size <= TUS_THRESHOLD) {
      const { status, body } = await send('POST', '/photos', { headers: auth, body: file, onProgress: (n) => onProgress(n / Math.max(1, file.size)) });
      if (status !== 201 && status !== 200) throw fail(status, body);
      onProgress(1);
      return body;
    }
    return await uploadResumable(app, file, auth, onProgress, fail);
  } catch (error) {
    if (error instanceof UploadError && error.status) throw error;
    if (error instanceof UploadError && error.message !== 'network' && error.message !== 'aborted') throw error;
    throw new UploadError(app.t('photos.error.upload'), 0);
  }
}

// tus 1.0.0 (creation): POST /uploads, then PATCH chunks; a chunk that fails (the connection dropped, a 5xx, or
// 409 for an offset the server did not expect) is followed by HEAD, which says how many bytes the server kept,
// and the upload goes on from there. Then POST /photos?upload=ID processes it.
async function uploadResumable(app, file, auth, onProgress, fail) {
  const tus = { ...auth, 'Tus-Resumable': '1.0.0' };
  const created = await send('POST', '/uploads', { headers: { ...tus, 'Upload-Length': String(file.size),
    'Upload-Metadata': `kind ${base64('photo')},filename ${base64(file.name || 'photo')}` } });
  if (created.status !== 201) throw fail(created.status, created.body);
  const location = created.xhr.getResponseHeader('Location');
  const id = location.split('/').pop();
  const path = `/uploads/${id}`;
  let offset = 0;
  let failures = 0;
  while (offset < file.size) {
    const end = Math.min(file.size, offset + TUS_CHUNK);
    let ok = false;
    try {
      const start = offset;
      const result = await send('PATCH', path, { headers: { ...tus, 'Content-Type': 'application/offset+octet-stream', 'Upload-Offset': String(offset) },
        body: file.slice(offset, end), onProgress: (n) => onProgress((start + n) / file.size) });
      if (result.status === 204) {
        offset = Number(result.xhr.getResponseHeader('Upload-Offset') ?? end);
        ok = true;
      } else if (result.status < 500 && result.status !== 409) {
        throw fail(result.status, result.body);
      }
    } catch (error) {
      if (error instanceof UploadError && error.status) throw error;
    }
    if (ok) {
      failures = 0;
      onProgress(offset / file.size);
      continue;
    }
    failures += 1;
    if (failures > TUS_RETRIES) throw new UploadError(app.t('photos.error.upload'), 0);
    await new Promise((resolve) => setTimeout(resolve, 250 * 2 ** (failures - 1)));
    const head = await send('HEAD', path, { headers: tus }).catch(() => null);
    if (head?.status === 200) offset = Number(head.xhr.getResponseHeader('Upload-Offset') ?? offset);
    else if (head && head.status !== 0 && head.status < 500) throw fail(head.status, head.body);
    app.uploadResumes = (app.uploadResumes ?? 0) + 1;
  }
  const done = await send('POST', `/photos?upload=${encodeURIComponent(id)}`, { headers: auth });
  if (done.status !== 201 && done.status !== 200) throw fail(done.status, done.body);
  onProgress(1);
  return done.body;
}

// MARK: the picker

let pickers = 0;

// "Add photos": a file input (images, several) and the chosen files, each with a preview, a progress bar while
// uploading and a Remove button. `max` files at most (more are refused in words). `picker.upload()` uploads
// every file not yet uploaded, one at a time, and resolves with their photo ids in order; a failed file keeps
// its error and the rest stays (pressing the form's button again retries only what failed).
export function photoPicker(app, { max, label }) {
  const { t } = app;
  const id = `photos-${++pickers}`;
  const input = el('input', { type: 'file', id, accept: 'image/jpeg,image/png,image/webp,image/heic,image/heif', multiple: max > 1 });
  const hintId = `${id}-hint`;
  input.setAttribute('aria-describedby', hintId);
  const list = el('ul', { class: 'picked', 'aria-label': t('photos.chosen') });
  const note = el('p', { class: 'hint', id: hintId }, t('photos.limit', { count: max }));
  const problem = el('p', { class: 'error', role: 'alert', hidden: true });
  let items = []; // {file, photo, node, bar, status, preview}
  const root = el('div', { class: 'photo-picker' }, el('label', { for: id }, label), input, note, problem, list);

  const say = (text) => { problem.textContent = text; problem.hidden = !text; };
  const remove = (item) => {
    URL.revokeObjectURL(item.preview);
    items = items.filter((i) => i !== item);
    item.node.remove();
    say('');
    input.focus();
    root.dispatchEvent(new Event('change'));
  };
  input.addEventListener('change', () => {
    const files = [...input.files];
    input.value = '';
    const room = max - items.length;
    if (files.length > room) say(t('photos.too_many', { count: max }));
    else say('');
    for (const file of files.slice(0, Math.max(0, room))) {
      const preview = URL.createObjectURL(file);
      const bar = el('progress', { max: '100', value: '0', 'aria-label': t('photos.progress', { name: file.name }) });
      const status = el('span', { class: 'detail' });
      const item = { file, photo: null, bar, status, preview };
      const removeButton = el('button', { type: 'button', class: 'quiet small', 'aria-label': t('photos.remove_label', { name: file.name }) }, t('photos.remove'));
      removeButton.addEventListener('click', () => remove(item));
      item.removeButton = removeButton;
      item.node = el('li', { dataset: { name: file.name } }, el('img', { src: preview, alt: '', class: 'picked-preview' }),
        el('span', { class: 'picked-name' }, file.name), bar, status, removeButton);
      items.push(item);
      list.append(item.node);
    }
    root.dispatchEvent(new Event('change'));
  });

  root.count = () => items.length;
  root.clear = () => {
    for (const item of items) URL.revokeObjectURL(item.preview);
    items = [];
    list.replaceChildren();
    say('');
  };
  root.upload = async () => {
    for (const item of items) {
      if (item.photo) continue;
      item.status.textContent = t('photos.uploading');
      item.removeButton.disabled = true;
      try {
        item.photo = await uploadPhoto(app, item.file, (fraction) => { item.bar.value = String(Math.round(fraction * 100)); });
        item.bar.value = '100';
        item.status.textContent = t('photos.uploaded');
        item.node.dataset.photo = String(item.photo.photo_id);
      } catch (error) {
        item.status.textContent = error.message;
        item.node.dataset.failed = 'true';
        throw error;
      } finally {
        item.removeButton.disabled = false;
      }
    }
    return items.map((i) => i.photo.photo_id);
  };
  return root;
}
