// HubClient: protocol v1 (docs/protocol.md) over one WebSocket, with reconnect and resume exactly as the
// Swift client library does it (docs/client.md, "Reconnect and resume").
//
// - request(op, params) resolves with the reply's `ok` object or rejects with a HubError.
// - Every server event is dispatched as a CustomEvent named after it (`message`, `typing`, ...), plus the
//   client's own `state` ({state: 'connecting'|'open'|'offline'|'revoked'}), `session` (the result of each
//   re-authentication with the kept token) and `resumed` (a sync reply after a reconnect).
// - After a drop it reconnects with backoff and jitter, sends `authenticate {token, resume: true}` and
//   `sync {since}` back to back, drops messages it has given before, and resends what is safe to resend:
//   the ops the schema marks idempotent (contract.js), and `messages.send` and `post.create` with a
//   `client_id` (so a message typed offline goes out once when back).
import { RESENDABLE_OPS, SESSION_OPS } from './contract.js';
import { ResumeTracker } from './resume.js';

const REQUEST_TIMEOUT_MS = 15000;
const SYNC_TIMEOUT_MS = 60000; // a catch-up after a long absence is many messages before its reply
const PING_AFTER_SILENCE_MS = 25000;
const PING_TIMEOUT_MS = 10000;
const LIVENESS_CHECK_MS = 5000;
const BACKOFF = { initialMs: 250, multiplier: 2, maximumMs: 30000, jitter: 0.5 };
const CLOSE_SESSION_REVOKED = 4001;
const CLOSE_ACCOUNT_SUSPENDED = 4004; // after `account.suspended` (docs/moderation.md)
const CLOSE_ACCOUNT_DELETED = 4005;

// RESENDABLE_OPS (a resend after a lost reply is safe) and SESSION_OPS (the ops that authenticate) come from
// the op contract generated from the schema (contract.js).

export class HubError extends Error {
  constructor(code, message, extra = {}) {
    super(message);
    this.name = 'HubError';
    this.code = code;
    this.retryAfterMs = extra.retry_after_ms ?? null;
    this.reason = extra.reason ?? null;
  }
}

export function defaultHubUrl() {
  return (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/ws';
}

export class HubClient extends EventTarget {
  constructor({ url = defaultHubUrl(), device }) {
    super();
    this.url = url;
    this.device = device;
    this.state = 'offline';
    this.userId = null;
    this.sessionId = null;
    this.token = null;
    this.socket = null;
    this.ready = false;        // the socket is open and, with a session, authenticated
    this.streaming = false;    // message events flow for this session: later connections resume
    this.revokedHere = false;  // `session.revoked` for our session arrived; its close follows
    this.nextId = 1;
    this.inFlight = new Map(); // request id -> pending request on the wire
    this.waiting = [];         // pending requests waiting for a usable connection, in order
    this.tracker = new ResumeTracker();
    this.gapSyncWanted = false; // a message arrived over a gap while a sync ran: check again when it ends
    this.attempt = 0;
    this.reconnectTimer = null;
    this.lastHeardAt = 0;
    this.pingPending = false;
    setInterval(() => this.checkLiveness(), LIVENESS_CHECK_MS);
    addEventListener('online', () => this.reconnectNow());
    addEventListener('offline', () => this.drop());
  }

  // Subscribes to an event by name; returns the function that unsubscribes.
  on(name, fn) {
    const listener = (event) => fn(event.detail);
    this.addEventListener(name, listener);
    return () => this.removeEventListener(name, listener);
  }

  // Sends a request; `timeoutMs` counts from the call. A `messages.send` with a `client_id` waits for a
  // connection without a time limit (a message typed offline) and times out only once on the wire.
  request(op, params = {}, { timeoutMs = REQUEST_TIMEOUT_MS } = {}) {
    if (this.state === 'revoked' && !SESSION_OPS.has(op)) {
      return Promise.reject(new HubError('not_authenticated', 'the session has ended'));
    }
    return new Promise((resolve, reject) => {
      const pending = {
        id: this.nextId++, op, params, resolve, reject, timeoutMs, timer: null,
        sendClientId: op === 'messages.send' ? params.client_id ?? null : null,
      };
      if (!pending.sendClientId) this.startTimer(pending);
      if (this.ready || (SESSION_OPS.has(op) && this.socket?.readyState === WebSocket.OPEN && !this.token)) {
        this.write(pending);
      } else {
        this.waiting.push(pending);
        if (!this.reconnectTimer) this.connect(); // otherwise the next attempt, after its backoff, takes it
      }
    });
  }

  async register({ phone, password, displayName, handle = null, code = null }) {
    return this.startSession('register', { phone, password, display_name: displayName, device: this.device,
      ...(handle ? { handle } : {}), ...(code ? { code } : {}) });
  }

  // Asks the server to send a one-time code to the phone by SMS, for `register` ('register') or `password.reset`
  // ('reset'). The answer is the same whether or not a code was sent (the server tells nobody who is registered).
  async startVerification(phone, purpose) {
    return this.request('verification.start', { phone, purpose });
  }

  // A forgotten password: a new one with the code sent for 'reset'; the account's other sessions end, and this
  // client starts a new one as after `login`.
  async resetPassword({ phone, code, password }) {
    return this.startSession('password.reset', { phone, code, password, device: this.device });
  }

  async login({ phone, password }) {
    return this.startSession('login', { phone, password, device: this.device });
  }

  // Continues a session kept from an earlier visit: connects and authenticates with the token. Each
  // authentication's result ({user_id, session_id, profile}) is dispatched as a `session` event; a token
  // the server no longer knows ends in state 'revoked'.
  resumeSession({ token, userId }) {
    this.token = token;
    this.userId = userId;
    this.streaming = false;
    this.revokedHere = false;
    this.connect();
  }

  // Ends the session on the server; the local state is cleared whatever the answer.
  async logout() {
    try {
      if (this.ready) await this.request('logout');
    } finally {
      this.endSession();
      this.setState('offline');
    }
  }

  // Forgets the session without telling the server (after a revocation).
  endSession() {
    this.token = null;
    this.userId = null;
    this.sessionId = null;
    this.streaming = false;
    this.tracker.reset();
    this.failAll(new HubError('not_authenticated', 'logged out'));
    this.closeSocket();
  }

  // MARK: connection

  connect() {
    if (this.socket || (this.state === 'revoked' && !this.waiting.some((p) => SESSION_OPS.has(p.op)))) return;
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    this.setState('connecting');
    const socket = new WebSocket(this.url, 'switchboard.v1');
    this.socket = socket;
    socket.onopen = () => this.opened();
    socket.onmessage = (event) => this.received(event.data);
    socket.onclose = (event) => this.closed(event.code);
  }

  reconnectNow() {
    if (!this.token || this.socket) return;
    this.attempt = 0;
    this.connect();
  }

  opened() {
    this.lastHeardAt = Date.now();
    if (!this.token) {
      this.ready = true;
      this.setState('open');
      this.flushWaiting();
      return;
    }
    const auth = this.internal('authenticate', { token: this.token, resume: this.streaming }, (result, error) => {
      if (error) {
        if (error.code === 'invalid_token') this.revoke();
        else if (error.code === 'account_suspended') this.revoke(true);
        else this.drop();
        return;
      }
      this.attempt = 0;
      this.ready = true;
      this.setState('open');
      this.flushWaiting();
      if (!this.streaming) this.sessionStarted(this.token, result.user_id, result.session_id);
      this.emit('session', result);
    });
    this.sendFrame(auth);
    if (this.streaming) {
      this.sendFrame(this.internal('sync', { since: this.tracker.resumePoints() }, (result, error) => {
        // The server holds live messages until a sync ends: start over rather than stall.
        if (error) return this.drop();
        for (const c of result.conversations) this.tracker.advance(c.conversation_id, c.last_seq);
        this.emit('resumed', result);
      }, SYNC_TIMEOUT_MS));
    }
  }

  closed(code) {
    this.socket = null;
    this.ready = false;
    if (code === CLOSE_ACCOUNT_DELETED) this.accountDeleted = true;
    if (code === CLOSE_SESSION_REVOKED || code === CLOSE_ACCOUNT_DELETED || this.revokedHere) {
      this.revoke();
      return;
    }
    if (code === CLOSE_ACCOUNT_SUSPENDED) {
      this.revoke(true);
      return;
    }
    this.requeueInFlight();
    this.setState('offline');
    if (this.token || this.waiting.length) this.scheduleReconnect();
  }

  // Cuts the connection now (the network went away, or the server stopped answering).
  drop() {
    const socket = this.socket;
    if (!socket) return;
    this.detach(socket);
    socket.close();
    this.closed(1006);
  }

  closeSocket() {
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    const socket = this.socket;
    if (socket) {
      this.detach(socket);
      socket.close(1000);
    }
    this.ready = false;
  }

  detach(socket) {
    socket.onopen = socket.onmessage = socket.onclose = null;
    this.socket = null;
  }

  scheduleReconnect() {
    if (this.reconnectTimer) return;
    this.attempt += 1;
    const full = Math.min(BACKOFF.initialMs * BACKOFF.multiplier ** (this.attempt - 1), BACKOFF.maximumMs);
    const delay = full * (1 - BACKOFF.jitter) + full * BACKOFF.jitter * Math.random();
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.connect();
    }, delay);
  }

  revoke(suspended = false) {
    this.endSession();
    this.revokedHere = false;
    this.suspended = suspended;
    this.setState('revoked');
  }

  checkLiveness() {
    if (!this.ready || this.pingPending || Date.now() - this.lastHeardAt < PING_AFTER_SILENCE_MS) return;
    this.pingPending = true;
    this.request('ping', {}, { timeoutMs: PING_TIMEOUT_MS })
      .catch((error) => { if (error.code === 'timeout') this.drop(); })
      .finally(() => { this.pingPending = false; });
  }

  setState(state) {
    if (state === this.state) return;
    this.state = state;
    this.emit('state', { state });
  }

  emit(name, detail) {
    this.dispatchEvent(new CustomEvent(name, { detail }));
  }

  // MARK: requests

  async startSession(op, params) {
    this.closeSocket();
    this.revokedHere = false;
    const result = await this.request(op, params);
    this.sessionStarted(result.session_token, result.user_id, result.session_id);
    return result;
  }

  // Live message events flow from here; conversations.list gives each conversation's starting point.
  sessionStarted(token, userId, sessionId) {
    this.token = token;
    this.userId = userId;
    this.sessionId = sessionId;
    this.streaming = true;
    this.tracker.reset();
    this.request('conversations.list').then((result) => {
      for (const c of result.conversations) this.tracker.setBaseline(c.conversation_id, c.last_seq);
    }, () => {
      // Without a baseline a resume asks for those conversations from the joining: more, but nothing lost.
    });
  }

  // A request of the client itself (re-authentication, resume), sent ahead of everything waiting.
  internal(op, params, done, timeoutMs = REQUEST_TIMEOUT_MS) {
    const pending = { id: this.nextId++, op, params, internal: true, timeoutMs,
      resolve: (result) => done(result, null), reject: (error) => done(null, error), timer: null };
    this.startTimer(pending);
    return pending;
  }

  startTimer(pending) {
    clearTimeout(pending.timer);
    pending.timer = setTimeout(() => {
      this.forget(pending);
      pending.reject(new HubError('timeout', `no answer to ${pending.op}`));
    }, pending.timeoutMs);
  }

  write(pending) {
    if (pending.sendClientId) this.startTimer(pending);
    this.sendFrame(pending);
  }

  sendFrame(pending) {
    this.inFlight.set(pending.id, pending);
    this.socket.send(JSON.stringify({ id: pending.id, op: pending.op, ...pending.params }));
  }

  flushWaiting() {
    const ready = this.waiting;
    this.waiting = [];
    for (const pending of ready) {
      if (this.token || SESSION_OPS.has(pending.op)) this.write(pending);
      else this.waiting.push(pending);
    }
  }

  // Requests on the wire when the connection dropped: resent if safe, failed otherwise.
  requeueInFlight() {
    const lost = [...this.inFlight.values()].sort((a, b) => a.id - b.id);
    this.inFlight.clear();
    const resend = [];
    for (const pending of lost) {
      if (pending.internal) {
        clearTimeout(pending.timer);
      } else if (pending.sendClientId || RESENDABLE_OPS.has(pending.op) || (pending.op === 'post.create' && pending.params.client_id)) {
        // A post with a client_id is answered with the post it already made when resent (docs/protocol.md).
        if (pending.sendClientId) clearTimeout(pending.timer);
        resend.push(pending);
      } else {
        clearTimeout(pending.timer);
        pending.reject(new HubError('connection_lost', `the connection dropped during ${pending.op}`));
      }
    }
    this.waiting = resend.concat(this.waiting);
  }

  forget(pending) {
    this.inFlight.delete(pending.id);
    this.waiting = this.waiting.filter((p) => p !== pending);
  }

  failAll(error) {
    const all = [...this.inFlight.values(), ...this.waiting];
    this.inFlight.clear();
    this.waiting = [];
    for (const pending of all) {
      clearTimeout(pending.timer);
      pending.reject(error);
    }
  }

  // MARK: incoming

  received(text) {
    this.lastHeardAt = Date.now();
    let frame;
    try {
      frame = JSON.parse(text);
    } catch {
      return;
    }
    if (frame.ev) {
      this.handleEvent(frame);
      return;
    }
    const pending = this.inFlight.get(frame.re);
    if (!pending) return;
    this.inFlight.delete(frame.re);
    clearTimeout(pending.timer);
    if (frame.error) {
      const { code, message, ...extra } = frame.error;
      pending.reject(new HubError(code, message, extra));
      if (pending.op === 'sync') this.syncEnded();
      return;
    }
    if (pending.op === 'messages.send') this.tracker.acknowledge(frame.ok.conversation_id, frame.ok.seq);
    pending.resolve(frame.ok);
    if (pending.op === 'sync') this.syncEnded();
  }

  handleEvent(event) {
    if (event.ev === 'message') {
      const m = event.message;
      if (this.acknowledgesPendingSend(m)) return;
      if (!this.tracker.observe(m.conversation_id, m.seq)) return;
      if (this.tracker.hasGap(m.conversation_id, m.seq)) queueMicrotask(() => this.syncGap());
    } else if (event.ev === 'session.revoked' && event.session_id === this.sessionId) {
      this.revokedHere = true;
    }
    this.emit(event.ev, event);
  }

  // A message event arrived over a gap (a seq before it is missing, docs/protocol.md "Resume"): sync from the
  // resume points, so the server sends the missing messages as events in seq order (the ones given already are
  // dropped by the tracker). One sync at a time (the server refuses a second): a gap seen while one runs is
  // checked again when it ends.
  syncGap() {
    if (!this.ready || !this.token) return;
    const running = (p) => p.op === 'sync';
    if ([...this.inFlight.values()].some(running) || this.waiting.some(running)) {
      this.gapSyncWanted = true;
      return;
    }
    this.sendFrame(this.internal('sync', { since: this.tracker.resumePoints() }, (result, error) => {
      // A failure (a sync of the app's ran) is retried at the next gap.
      if (error) return;
      for (const c of result.conversations) this.tracker.advance(c.conversation_id, c.last_seq);
    }, SYNC_TIMEOUT_MS));
  }

  syncEnded() {
    if (!this.gapSyncWanted) return;
    this.gapSyncWanted = false;
    if (this.tracker.hasAnyGap()) this.syncGap();
  }

  // A message of ours brought by a catch-up while its send still waits for a reply (the acknowledgement was
  // lost with the connection): the message is the acknowledgement, given once, as the send's result.
  acknowledgesPendingSend(m) {
    if (!m.client_id || m.sender_id !== this.userId) return false;
    const pending = [...this.inFlight.values(), ...this.waiting]
      .find((p) => p.sendClientId === m.client_id && p.params.conversation_id === m.conversation_id);
    if (!pending) return false;
    this.forget(pending);
    clearTimeout(pending.timer);
    this.tracker.acknowledge(m.conversation_id, m.seq);
    pending.resolve({ message_id: m.id, conversation_id: m.conversation_id, seq: m.seq, ts: m.ts });
    return true;
  }
}
