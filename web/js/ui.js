// Small helpers the screens share: building elements, forms, plain-words errors, times.
import { strings, t } from './strings.js';

// el('button', {type: 'button', onclick: fn, class: 'primary'}, 'text', child, ...)
// Attributes starting with "on" become listeners; `dataset` is an object; false/null attributes are left out.
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === false || value === null || value === undefined) continue;
    if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
    else if (name === 'dataset') Object.assign(node.dataset, value);
    else if (name === 'class') node.className = value;
    else node.setAttribute(name, value === true ? '' : value);
  }
  node.append(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return node;
}

// The screen's heading, focused after navigation so screen readers announce the new screen.
export function heading(text) {
  return el('h1', { tabindex: '-1' }, text);
}

let fieldCount = 0;

// A labelled input (`as`: 'textarea' or 'select' for those): returns {row, input}. `hint` is read with the
// field (aria-describedby).
export function field(label, { as = 'input', ...attributes } = {}, hint = null) {
  const id = `field-${++fieldCount}`;
  const input = el(as, { id, ...attributes });
  const row = el('div', { class: 'field' }, el('label', { for: id }, label));
  if (hint) {
    const hintId = `${id}-hint`;
    input.setAttribute('aria-describedby', hintId);
    row.append(el('p', { class: 'hint', id: hintId }, hint));
  }
  row.append(input);
  return { row, input };
}

export function checkbox(label, attributes = {}) {
  const id = `field-${++fieldCount}`;
  const input = el('input', { type: 'checkbox', id, ...attributes });
  return { row: el('div', { class: 'check' }, input, el('label', { for: id }, label)), input };
}

// A place for a form's error, announced when it changes.
export function errorBox() {
  const box = el('p', { class: 'error', role: 'alert', hidden: true });
  box.show = (text) => {
    box.textContent = text;
    box.hidden = !text;
  };
  return box;
}

// Runs a form's action with its submit button disabled; shows the error in plain words.
export async function busy(button, action, onError) {
  button.disabled = true;
  try {
    return await action();
  } catch (error) {
    onError(errorText(error));
    return undefined;
  } finally {
    button.disabled = false;
  }
}

// A list shown in pages. `fetchPage(cursor)` asks for the page after `cursor` (null: the first) and answers
// `{ items: [element], next: cursor or null }`; `more` shows while there is a next page. A failure shows in
// `error` (an errorBox) when there is one, else in place of the list. Returns `load(append = false)`.
export function pagedList({ list, more, fetchPage, emptyText, error = null }) {
  let next = null;
  const load = async (append = false) => {
    try {
      const page = await fetchPage(append ? next : null);
      if (append) list.append(...page.items);
      else list.replaceChildren(...(page.items.length ? page.items : [el('li', { class: 'empty' }, emptyText)]));
      next = page.next ?? null;
      more.hidden = next === null;
      error?.show('');
    } catch (failure) {
      if (error) error.show(errorText(failure));
      else list.replaceChildren(el('li', { class: 'empty' }, errorText(failure)));
    }
    list.setAttribute('aria-busy', 'false');
  };
  more.addEventListener('click', () => busy(more, () => load(true), (text) => error?.show(text)));
  return load;
}

// What happened and what to do, in plain words, for any failed request.
export function errorText(error) {
  if (error?.userMessage) return error.userMessage; // already a sentence (a photo upload's error, photos.js)
  const code = error?.code;
  if (code === 'weak_password') {
    const reason = `error.weak_password.${error.reason}`;
    return t(reason in strings ? reason : 'error.weak_password');
  }
  if (code === 'rate_limited' && error.retryAfterMs) {
    return t('error.rate_limited_seconds', { seconds: Math.ceil(error.retryAfterMs / 1000) });
  }
  return t(`error.${code}` in strings ? `error.${code}` : 'error.unknown');
}

export function formatTime(iso) {
  const date = new Date(iso);
  const today = new Date();
  const sameDay = date.toDateString() === today.toDateString();
  return sameDay
    ? date.toLocaleTimeString(undefined, { hour: 'numeric', minute: '2-digit' })
    : date.toLocaleString(undefined, { day: 'numeric', month: 'short', hour: 'numeric', minute: '2-digit' });
}

export function formatDuration(ms) {
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

// "Online", "Away", "Last seen 10:42" or "Offline".
export function presenceText(presence) {
  if (!presence) return t('presence.offline');
  if (presence.status === 'online') return t('presence.online');
  if (presence.status === 'away') return t('presence.away');
  return presence.last_seen ? t('presence.last_seen', { time: formatTime(presence.last_seen) }) : t('presence.offline');
}
