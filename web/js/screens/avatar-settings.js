// Settings, "Your picture": the current avatar (or the initial), "Choose a picture" (uploaded to POST /photos,
// then `profile.avatar.set`) and "Remove picture" (`profile.avatar.remove`). Friends and followers see the
// change live (`profile.updated`).
import { el, errorBox } from '../ui.js';
import { avatar, avatarChanged, uploadPhoto, UploadError } from '../photos.js';

export function avatarSection(app) {
  const { t, client } = app;
  const shown = el('div', { class: 'avatar-current' });
  const status = el('p', { class: 'detail', role: 'status' });
  const error = errorBox();
  const input = el('input', { type: 'file', id: 'avatar-file', accept: 'image/jpeg,image/png,image/webp,image/heic,image/heif' });
  const bar = el('progress', { max: '100', value: '0', hidden: true, 'aria-label': t('avatar.progress') });
  const remove = el('button', { type: 'button', class: 'quiet', hidden: true }, t('avatar.remove'));
  let profile = null;

  const draw = () => {
    shown.replaceChildren(avatar(app, profile, { large: true }),
      el('span', { class: 'detail' }, profile?.avatar ? t('avatar.has') : t('avatar.none')));
    shown.dataset.avatar = profile?.avatar ? String(profile.avatar.photo_id) : '';
    remove.hidden = !profile?.avatar;
  };

  input.addEventListener('change', async () => {
    const file = input.files[0];
    if (!file) return;
    error.show('');
    input.disabled = true;
    bar.hidden = false;
    bar.value = '0';
    status.textContent = t('photos.uploading');
    try {
      const photo = await uploadPhoto(app, file, (f) => { bar.value = String(Math.round(f * 100)); });
      ({ profile } = await client.request('profile.avatar.set', { photo_id: photo.photo_id }));
      avatarChanged(app, { ...profile, avatar: profile.avatar ?? null });
      draw();
      status.textContent = t('avatar.saved');
    } catch (failure) {
      status.textContent = '';
      error.show(failure instanceof UploadError ? failure.message : app.errorText(failure));
    } finally {
      input.value = '';
      input.disabled = false;
      bar.hidden = true;
    }
  });
  remove.addEventListener('click', async () => {
    remove.disabled = true;
    error.show('');
    try {
      ({ profile } = await client.request('profile.avatar.remove'));
      avatarChanged(app, { ...profile, avatar: null });
      draw();
      status.textContent = t('avatar.removed');
      input.focus();
    } catch (failure) {
      error.show(app.errorText(failure));
    } finally {
      remove.disabled = false;
    }
  });

  client.request('profile.get').then((result) => { profile = result.profile; draw(); }, (failure) => error.show(app.errorText(failure)));
  // A picture set or removed on another of my devices (the public profile, with `bio`; a new name alone says
  // nothing about the picture). The picture itself is redrawn by photos.js; the words and Remove follow here.
  const unfollow = client.on('profile.updated', ({ profile: changed }) => {
    if (!profile || changed?.user_id !== profile.user_id || !('avatar' in changed || 'bio' in changed || 'stats' in changed)) return;
    const before = profile.avatar?.photo_id ?? null;
    if ((changed.avatar?.photo_id ?? null) === before) return;
    profile = { ...profile, avatar: changed.avatar };
    if (!changed.avatar) delete profile.avatar;
    const focused = remove === document.activeElement;
    draw();
    if (focused && remove.hidden) input.focus();
  });
  const section = el('section', { class: 'avatar-settings', 'aria-labelledby': 'avatar-title' },
    el('h2', { id: 'avatar-title' }, t('avatar.title')), shown,
    el('div', { class: 'field' }, el('label', { for: 'avatar-file' }, t('avatar.choose')), input), bar, status, error,
    el('div', { class: 'actions' }, remove));
  section.stop = unfollow;
  return section;
}
