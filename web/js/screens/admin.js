// Administration (administrators only; docs/moderation.md): the reports (open or closed, newest first) with
// their content and actions (remove the message, suspend or reinstate the person, resolve, dismiss), a form to
// suspend or reinstate an account by number, and the audit log. The server refuses every admin op to anyone
// else (`forbidden`); the link and this screen show only when the own profile's role is `admin`.
import { el, heading, field, errorBox, busy, formatTime } from '../ui.js';

const PAGE = 20;

export function show(root, params, app) {
  const { t, client } = app;
  const error = errorBox();
  let status = 'open';
  const reports = el('ul', { class: 'list reports', 'aria-label': t('admin.reports'), 'aria-busy': 'true' });
  const more = el('button', { type: 'button', class: 'quiet', hidden: true }, t('admin.more'));
  const openTab = el('button', { type: 'button', 'aria-pressed': 'true' }, t('admin.show_open'));
  const closedTab = el('button', { type: 'button', class: 'quiet', 'aria-pressed': 'false' }, t('admin.show_closed'));
  const audit = el('ul', { class: 'list audit', 'aria-label': t('admin.audit') });
  let nextBefore = null;

  const act = (button, op, p) => busy(button, async () => {
    await client.request(op, p);
    app.toast(t('admin.done'));
    await Promise.all([loadReports(), loadAudit()]);
  }, (text) => app.toast(text));

  const reportItem = (r) => {
    const user = r.target_user;
    const name = user?.display_name ?? t('someone');
    const state = r.message_state ? t(`admin.state.${r.message_state}`) : '';
    const what = r.target_kind === 'message'
      ? t('admin.report_message', { id: r.target_id, name, state, content: r.content ?? '' })
      : t('admin.report_user', { name, id: r.target_id });
    const head = t('admin.report_head', { id: r.report_id, reason: t(`report.reason.${r.reason}`),
      reporter: r.reporter?.display_name ?? t('someone'), time: formatTime(r.created_at) });
    const actions = [];
    if (r.target_kind === 'message' && r.message_state === 'visible') {
      actions.push(el('button', { type: 'button', class: 'danger', onclick: (e) => {
        if (confirm(t('admin.confirm_remove'))) act(e.currentTarget, 'admin.remove', { message_id: r.target_id, report_id: r.status === 'open' ? r.report_id : undefined });
      } }, t('admin.remove')));
    }
    if (user) {
      actions.push(user.suspended
        ? el('button', { type: 'button', class: 'quiet', onclick: (e) => act(e.currentTarget, 'admin.reinstate', { user_id: user.user_id }) },
          t('admin.reinstate', { name }))
        : el('button', { type: 'button', class: 'danger', onclick: (e) => {
          if (confirm(t('admin.confirm_suspend', { name }))) {
            act(e.currentTarget, 'admin.suspend', { user_id: user.user_id, report_id: r.status === 'open' ? r.report_id : undefined });
          }
        } }, t('admin.suspend', { name })));
    }
    if (r.status === 'open') {
      actions.push(el('button', { type: 'button', onclick: (e) => act(e.currentTarget, 'admin.resolve', { report_id: r.report_id, status: 'resolved' }) },
        t('admin.resolve')));
      actions.push(el('button', { type: 'button', class: 'quiet', onclick: (e) => act(e.currentTarget, 'admin.resolve', { report_id: r.report_id, status: 'dismissed' }) },
        t('admin.dismiss')));
    }
    return el('li', { dataset: { report: r.report_id } },
      el('div', { class: 'who' },
        el('div', { class: 'name' }, head, r.status === 'open' ? '' : ` · ${t(`admin.status.${r.status}`)}`),
        el('div', { class: 'detail' }, what, user?.suspended ? ` ${t('admin.suspended')}` : ''),
        r.text ? el('div', { class: 'detail' }, t('admin.report_text', { text: r.text })) : null),
      el('div', { class: 'actions tight' }, actions));
  };

  const loadReports = async (append = false) => {
    try {
      const page = await client.request('admin.reports', { status, limit: PAGE, ...(append && nextBefore ? { before: nextBefore } : {}) });
      const items = page.reports.map(reportItem);
      if (append) reports.append(...items);
      else reports.replaceChildren(...(items.length ? items : [el('li', { class: 'empty' }, t('admin.no_reports'))]));
      nextBefore = page.next_before ?? null;
      more.hidden = nextBefore === null;
      error.show('');
    } catch (failure) {
      error.show(app.errorText(failure));
    }
    reports.setAttribute('aria-busy', 'false');
  };

  const loadAudit = async () => {
    try {
      const { entries } = await client.request('admin.audit', { limit: 50 });
      audit.replaceChildren(...(entries.length ? entries.map((e) => el('li', {},
        t('admin.audit_line', { time: formatTime(e.created_at), actor: e.actor, action: e.action, kind: e.target_kind, target: e.target_id ?? '-' })
        + (e.reason ? t('admin.audit_reason', { reason: e.reason }) : ''))) : [el('li', { class: 'empty' }, t('admin.no_audit'))]));
    } catch (failure) {
      error.show(app.errorText(failure));
    }
  };

  const setStatus = (next) => {
    status = next;
    openTab.setAttribute('aria-pressed', String(next === 'open'));
    closedTab.setAttribute('aria-pressed', String(next === 'closed'));
    openTab.className = next === 'open' ? '' : 'quiet';
    closedTab.className = next === 'closed' ? '' : 'quiet';
    loadReports();
  };
  openTab.addEventListener('click', () => setStatus('open'));
  closedTab.addEventListener('click', () => setStatus('closed'));
  more.addEventListener('click', () => loadReports(true));

  const userId = field(t('admin.user_id'), { type: 'number', min: '1', inputmode: 'numeric' });
  const userError = errorBox();
  const userAction = (op) => (e) => {
    const id = Number(userId.input.value);
    if (!Number.isInteger(id) || id < 1) return userError.show(t('error.bad_request'));
    userError.show('');
    act(e.currentTarget, op, { user_id: id });
  };
  const userForm = el('div', {}, userId.row, userError, el('div', { class: 'actions' },
    el('button', { type: 'button', class: 'danger', onclick: userAction('admin.suspend') }, t('admin.suspend', { name: '' }).trim()),
    el('button', { type: 'button', class: 'quiet', onclick: userAction('admin.reinstate') }, t('admin.reinstate', { name: '' }).trim())));

  root.append(heading(t('admin.title')), error,
    el('h2', {}, t('admin.reports')), el('div', { class: 'actions', role: 'group', 'aria-label': t('admin.reports') }, openTab, closedTab),
    reports, el('div', { class: 'actions' }, more),
    el('h2', {}, t('admin.user_section')), userForm,
    el('h2', {}, t('admin.audit')), audit);
  loadReports();
  loadAudit();
}
