// Your data and your account: "Download my data" (account.export, then GET /export/{id} with the session's
// token, saved as a file) and "Delete my account" (account.delete with the password typed again; the server then
// closes every connection with 4005 and the app goes back to the login screen). docs/web.md, "Your data and account".
import { el, heading, field, errorBox, busy, formatTime } from '../ui.js';

const POLL_MS = 2000;

export function show(root, params, app) {
  const { t, client } = app;
  const status = el('p', { role: 'status', class: 'hint' });
  const exportError = errorBox();
  const download = el('button', { type: 'button' }, t('account.export_start'));
  const save = el('div', { class: 'actions' });
  let timer = null;
  let stopped = false;

  const showExport = (exp) => {
    save.replaceChildren();
    if (!exp) { status.textContent = ''; return; }
    if (exp.state === 'building') {
      status.textContent = t('account.export_building');
      clearTimeout(timer);
      timer = setTimeout(refresh, POLL_MS);
    } else if (exp.state === 'ready') {
      status.textContent = t('account.export_ready', { size: Math.max(1, Math.round(exp.size / 1024)), time: formatTime(exp.expires_at) });
      save.append(el('button', { type: 'button', class: 'primary', onclick: (e) => busy(e.currentTarget, () => saveFile(exp), exportError.show) },
        t('account.export_save')));
    } else if (exp.state === 'failed') {
      status.textContent = exp.error === 'too_large' ? t('account.export_too_large') : t('account.export_failed');
    } else {
      status.textContent = '';
    }
  };

  const refresh = async () => {
    if (stopped) return;
    try {
      const { exports } = await client.request('account.exports');
      showExport(exports.find((e) => e.state !== 'expired') ?? null);
    } catch (failure) {
      exportError.show(app.errorText(failure));
    }
  };

  const saveFile = async (exp) => {
    const response = await fetch(`/export/${encodeURIComponent(String(exp.export_id))}`, {
      headers: { Authorization: `Bearer ${client.token}` },
    });
    if (!response.ok) throw new Error(t('account.export_gone'));
    const url = URL.createObjectURL(await response.blob());
    const link = el('a', { href: url, download: `switchboard-export-${exp.export_id}.tar.gz`, hidden: true });
    root.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60000);
  };

  download.addEventListener('click', () => busy(download, async () => {
    exportError.show('');
    const { export: exp } = await client.request('account.export');
    showExport(exp);
  }, exportError.show));

  const unsubscribe = client.on('account.export_ready', ({ export: exp }) => showExport(exp));

  // Deletion: a clear warning, the password again, one button.
  const password = field(t('account.delete_password'), { type: 'password', autocomplete: 'current-password', required: true });
  const deleteError = errorBox();
  const remove = el('button', { type: 'submit', class: 'danger' }, t('account.delete_button'));
  const form = el('form', { novalidate: true, 'aria-describedby': 'account-delete-warning' },
    el('p', { id: 'account-delete-warning', class: 'warning' }, t('account.delete_warning')),
    password.row, deleteError, el('div', { class: 'actions' }, remove));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (!password.input.value) return deleteError.show(t('account.delete_password_missing'));
    deleteError.show('');
    busy(remove, async () => {
      await client.request('account.delete', { password: password.input.value });
      password.input.value = '';
      status.textContent = t('account.deleted_notice');
      // The server now closes the connection (4005): the app forgets the session and shows the login screen.
    }, deleteError.show);
  });

  root.append(heading(t('account.title')),
    el('h2', {}, t('account.export_title')), el('p', {}, t('account.export_hint')),
    el('div', { class: 'actions' }, download), status, exportError, save,
    el('h2', {}, t('account.delete_title')), form);
  refresh();

  stopCurrent = () => {
    stopped = true;
    clearTimeout(timer);
    unsubscribe();
  };
}

let stopCurrent = null;

export function hide() {
  stopCurrent?.();
  stopCurrent = null;
}
