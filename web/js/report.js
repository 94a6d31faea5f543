// The "Report" dialog (report.create, docs/moderation.md): a reason and optional words, for a message or a
// person. A modal <dialog>: the keyboard stays inside, Escape cancels, the focus goes back where it was.
import { el, field, errorBox, busy } from './ui.js';

export const REPORT_REASONS = ['spam', 'harassment', 'hate', 'violence', 'sexual', 'self_harm', 'illegal', 'impersonation', 'other'];

// `target`: {kind: 'message'|'user', id, title}.
export function openReport(app, target) {
  const { t, client } = app;
  const returnTo = document.activeElement;
  const reason = field(t('report.reason'), { as: 'select', required: true });
  reason.input.append(...REPORT_REASONS.map((r) => el('option', { value: r }, t(`report.reason.${r}`))));
  const text = field(t('report.text'), { as: 'textarea', maxlength: '1000', rows: '3' });
  const error = errorBox();
  const send = el('button', { type: 'submit' }, t('report.send'));
  const cancel = el('button', { type: 'button', class: 'quiet' }, t('report.cancel'));
  const titleId = `report-title-${Date.now()}`;
  const form = el('form', { method: 'dialog', novalidate: true },
    el('h2', { id: titleId }, target.title), reason.row, text.row, error, el('div', { class: 'actions' }, send, cancel));
  const dialog = el('dialog', { class: 'report', 'aria-labelledby': titleId }, form);
  const close = () => {
    dialog.close();
    dialog.remove();
    returnTo?.focus?.();
  };
  cancel.addEventListener('click', close);
  dialog.addEventListener('cancel', (event) => { event.preventDefault(); close(); });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    busy(send, async () => {
      const params = { target_kind: target.kind, target_id: target.id, reason: reason.input.value };
      if (text.input.value.trim()) params.text = text.input.value.trim();
      await client.request('report.create', params);
      close();
      app.toast(t('report.sent'));
    }, error.show);
  });
  document.body.append(dialog);
  dialog.showModal();
  reason.input.focus();
}
