// Settings, "Your picture": the current avatar (or the initial), "Choose a picture" (uploaded to POST /photos,
// then `profile.avatar.set`) and "Remove picture" (`profile.avatar.remove`). Friends and followers see the
// change live (`profile.updated`).
import { el, errorBox } from '../ui.js';
import { avatar, uploadPhoto, UploadError } from '../photos.js';

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
  return el('section', { class: 'avatar-settings', 'aria-labelledby': 'avatar-title' },
    el('h2', { id: 'avatar-title' }, t('avatar.title')), shown,
    el('div', { class: 'field' }, el('label', { for: 'avatar-file' }, t('avatar.choose')), input), bar, status, error,
    el('div', { class: 'actions' }, remove));
}
