// The app: one HubClient, routing by location.hash, the session kept in the browser, the header, the offline
// banner and the toast. Each screen is a module in screens/ (see docs/web.md, "The app").
import { HubClient } from './client.js';
import { strings, t } from './strings.js';
import { el, errorText } from './ui.js';
import { installCalls } from './calls.js';
import { installUnread } from './unread.js';
import { installSocial } from './social.js';
import { followAvatars } from './photos.js';

const SESSION_KEY = 'switchboard.session';
const TOAST_MS = 6000;

// Screens by the first part of the hash (#/chat/12 -> chat with {id: '12'}); `public` ones need no session.
const SCREENS = {
  login: { public: true },
  register: { public: true },
  reset: { public: true },
  chats: {},
  chat: {},
  friends: {},
  'group-new': {},
  group: {},
  settings: {},
  admin: { admin: true },
  account: {},
  communities: {},
  community: {},
  event: {},
  calendar: {},
  course: {},
  // The social layer (`module`: the screen's file when it is not named like the hash)
  posts: { module: 'timeline' },
  u: { module: 'profile-social' },
  post: { module: 'thread' },
  notifications: { module: 'notifications-social' },
  tag: { module: 'timeline' },
  // Photos (issue 19)
  moments: {},
};
const HOME = '#/chats';
const LOGIN = '#/login';

const client = new HubClient({ device: t('app.device') });

export const app = {
  client,
  strings,
  t,
  me: { userId: null, displayName: '' },
  notice: '',          // why the user is on the login screen (shown there once)
  presence: new Map(), // user id -> {status, last_seen}
  names: new Map(),    // user id -> display name of everyone met (friends, members, former members)
  rememberNames,
  navigate,
  toast,
  errorText,
  logout,
  saveSession,
};

let currentScreen = null;
let routeCount = 0; // the latest navigation; an older one still loading its module gives way
let callsInstalled = false;

// System messages name people by id; someone who left a group is no longer among its members.
function rememberNames(users) {
  for (const user of users) app.names.set(user.user_id, user.display_name);
}

// MARK: session kept in the browser (the token, never the password)

// `remember`: localStorage (kept after the browser closes); otherwise sessionStorage (this tab only).
function saveSession({ token, userId, displayName }, remember) {
  forgetSession();
  (remember ? localStorage : sessionStorage).setItem(SESSION_KEY, JSON.stringify({ token, userId, displayName }));
  app.me = { userId, displayName };
  startSignedIn();
}

function storedSession() {
  const text = sessionStorage.getItem(SESSION_KEY) ?? localStorage.getItem(SESSION_KEY);
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

function updateStoredName(displayName) {
  for (const storage of [localStorage, sessionStorage]) {
    const text = storage.getItem(SESSION_KEY);
    if (text) storage.setItem(SESSION_KEY, JSON.stringify({ ...JSON.parse(text), displayName }));
  }
}

// Wipes everything this app keeps in the browser.
function forgetSession() {
  localStorage.clear();
  sessionStorage.clear();
  app.me = { userId: null, displayName: '' };
  app.presence.clear();
  app.names.clear();
}

async function logout() {
  try {
    await client.logout();
  } catch {
    // Offline or already ended: the local data goes anyway. A session still valid on the server can be
    // logged out from another device (Settings, "Where you are logged in").
  }
  forgetSession();
  header.hidden = true;
  navigate(LOGIN);
}

function startSignedIn() {
  header.hidden = false;
  learnRole();
  if (!callsInstalled) {
    callsInstalled = true;
    installCalls(app);
    installUnread(app);
    installSocial(app);
    followAvatars(app);
  }
  app.unread.refresh();
  app.social.refresh();
}

// MARK: routing

function navigate(hash) {
  if (location.hash === hash) route();
  else location.hash = hash;
}

function parseHash() {
  const [name, id] = location.hash.replace(/^#\/?/, '').split('/');
  return { name, params: id ? { id } : {} };
}

async function route() {
  const { name, params } = parseHash();
  const signedIn = app.me.userId !== null;
  if (!(name in SCREENS)) return navigate(signedIn ? HOME : LOGIN);
  if (!signedIn && !SCREENS[name].public) return navigate(LOGIN);
  if (signedIn && SCREENS[name].public) return navigate(HOME);
  if (SCREENS[name].admin && app.me.role !== 'admin') return navigate(HOME);

  const thisRoute = ++routeCount;
  toastBox.textContent = ''; // a toast belongs to the screen it was shown on
  currentScreen?.hide?.();
  currentScreen = null;
  const module = await import(`./screens/${SCREENS[name].module ?? name}.js`);
  if (thisRoute !== routeCount) return;
  const root = el('main', { id: 'main', dataset: { screen: name } });
  document.querySelector('main').replaceWith(root);
  currentScreen = module;
  markCurrentLink(name);
  module.show(root, params, app);
  const title = root.querySelector('h1');
  document.title = title ? t('app.document_title', { name: title.textContent }) : t('app.title');
  title?.focus();
}

// MARK: header, banner, toast

const header = document.getElementById('top');
const banner = document.getElementById('banner');
const toastBox = document.getElementById('toast');
let toastTimer = null;

function buildHeader() {
  const links = [
    ['chats', '#/chats', t('nav.chats')],
    ['friends', '#/friends', t('nav.friends')],
    ['group-new', '#/group-new', t('nav.new_group')],
    ['communities', '#/communities', t('nav.communities')],
    ['calendar', '#/calendar', t('nav.calendar')],
    ['posts', '#/posts', t('nav.posts')],
    ['moments', '#/moments', t('nav.moments')],
    ['notifications', '#/notifications', t('nav.notifications')],
    ['settings', '#/settings', t('nav.settings')],
    ['admin', '#/admin', t('nav.admin')],
  ];
  header.append(el('nav', { 'aria-label': t('nav.label') },
    el('ul', {}, links.map(([name, href, text]) => el('li', {}, el('a', { href, dataset: { screen: name } }, text)))),
    el('button', { type: 'button', class: 'quiet', onclick: logout }, t('nav.logout'))));
}

// The administration link shows only to administrators (the server tells the role in one's own profile).
function showRole(role) {
  app.me.role = role ?? 'user';
  const link = header.querySelector('a[data-screen="admin"]');
  if (link) link.parentElement.hidden = app.me.role !== 'admin';
}

function learnRole() {
  showRole(app.me.role);
  client.request('profile.get').then(({ profile }) => showRole(profile.role), () => {});
}

// A community, an event and a course belong to the Communities tab.
const TAB_OF = { community: 'communities', event: 'communities', course: 'communities', u: 'posts', post: 'posts', tag: 'posts' };

function markCurrentLink(name) {
  for (const link of header.querySelectorAll('a')) {
    if (link.dataset.screen === (TAB_OF[name] ?? name)) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
}

function toast(text) {
  // The live region stays in place and only its text changes, so screen readers announce each toast.
  toastBox.textContent = text;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { toastBox.textContent = ''; }, TOAST_MS);
}

let wasOnline = false;

function showConnection({ state }) {
  if (state === 'open') wasOnline = true;
  if (state === 'revoked') {
    banner.hidden = true;
    forgetSession();
    header.hidden = true;
    app.notice = client.suspended ? t('session.suspended') : client.accountDeleted ? t('account.deleted_notice') : t('session.revoked');
    client.accountDeleted = false;
    navigate(LOGIN);
    return;
  }
  const away = app.me.userId !== null && (state === 'offline' || (state === 'connecting' && wasOnline));
  banner.textContent = t('banner.offline');
  banner.hidden = !away;
}

// MARK: start

client.on('state', showConnection);
client.on('session', ({ profile }) => {
  showRole(profile.role);
  app.me.displayName = profile.display_name;
  updateStoredName(profile.display_name);
});
client.on('profile.updated', ({ profile }) => {
  rememberNames([profile]);
  if (profile.user_id !== app.me.userId) return;
  app.me.displayName = profile.display_name;
  updateStoredName(profile.display_name);
});
client.on('presence.snapshot', ({ presence }) => {
  for (const p of presence) app.presence.set(p.user_id, p);
});
client.on('presence', (p) => app.presence.set(p.user_id, p));

buildHeader();
const kept = storedSession();
if (kept) {
  app.me = { userId: kept.userId, displayName: kept.displayName };
  client.resumeSession(kept);
  startSignedIn();
}
addEventListener('hashchange', route);
route();
