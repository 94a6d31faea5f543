// Voice and video calls with WebRTC, signalled through the hub (docs/protocol.md, Calls; docs/calls.md).
//
// installCalls(app): called once after login; listens for the hub's call events on this tab and shows the
//   incoming-call screen (an overlay over whatever page is open) on every tab and device of the callee.
// startCall(app, userId, {video}): places a call to a friend and shows the caller's screen.
//
// One call at a time per tab. The peer connection is made before the invite (TURN credentials from
// `call.turn`, then the offer travels with `call.invite`); ICE candidates trickle through `call.signal`
// (the hub holds the caller's while the call rings). Renegotiation (an ICE restart after the other side came
// back from a lost connection) is started by the side that stayed connected, on `call.peer_reconnected`.

import { t } from './strings.js';
import { createCallView } from './screens/call.js';

const DEFAULT_RING_MS = 120_000;      // the hub's default --ring-timeout, if a reply lacks ring_ms
const RESUME_WAIT_MS = 6_000;         // after our own reconnect: how long to wait for call.resumed
const ENDED_SCREEN_MS = 6_000;        // an ended call's screen closes itself after this (or on Close)
const MAX_QUEUED_CANDIDATES = 64;     // the hub's buffer while ringing

let installed = null;                 // {app, session, unsubscribe[]}: one per page

// Tabs of one browser share a session (one device to the hub): the hub tells other *devices* that a call was
// answered, not other tabs of the same device, so the tabs tell each other.
const TAB_CHANNEL = 'switchboard-calls';
let tabs = null;

function tellTabs(app, type, callId) {
  try { if (tabs) tabs.postMessage({ type, callId, userId: app.client.userId }); } catch { /* no channel */ }
}

// client.on hands listeners the event's detail (the app's HubClient); a plain EventTarget hands the event.
function detailOf(arg) {
  return (typeof Event !== 'undefined' && arg instanceof Event) ? arg.detail : arg;
}

function newAlias() {
  const bytes = new Uint8Array(8);
  crypto.getRandomValues(bytes);
  return 'web-' + Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

function mediaError(error) {
  return error && error.name === 'TypeError' && typeof RTCPeerConnection === 'undefined'
    ? t('call.error.webrtc') : t('call.error.media');
}

// MARK: tones (Web Audio, no files): a ring for an incoming call, a ring-back for the caller while it rings.
// A page the user has not touched yet may not start audio (autoplay rules): then the screen alone shows it.

let audioContext = null;
let tone = null;            // {timer, kind}

function beep(frequencies, seconds) {
  const ctx = audioContext;
  const gain = ctx.createGain();
  gain.gain.setValueAtTime(0, ctx.currentTime);
  gain.gain.linearRampToValueAtTime(0.12, ctx.currentTime + 0.02);
  gain.gain.setValueAtTime(0.12, ctx.currentTime + seconds - 0.05);
  gain.gain.linearRampToValueAtTime(0, ctx.currentTime + seconds);
  gain.connect(ctx.destination);
  for (const frequency of frequencies) {
    const oscillator = ctx.createOscillator();
    oscillator.frequency.value = frequency;
    oscillator.connect(gain);
    oscillator.start();
    oscillator.stop(ctx.currentTime + seconds);
  }
}

function startTone(kind) {
  stopTone();
  try {
    if (!audioContext) audioContext = new AudioContext();
    if (audioContext.state === 'suspended') audioContext.resume().catch(() => {});
  } catch { return; }
  const play = () => {
    if (!audioContext || audioContext.state !== 'running') return;
    if (kind === 'incoming') { beep([480, 620], 0.4); setTimeout(() => tone && beep([480, 620], 0.4), 600); }
    else beep([440, 480], 1.2);
  };
  play();
  tone = { kind, timer: setInterval(play, kind === 'incoming' ? 3000 : 4000) };
  // vibration (phones) is allowed only after the user touched the page; asking earlier logs an error
  const touched = !navigator.userActivation || navigator.userActivation.hasBeenActive;
  if (kind === 'incoming' && navigator.vibrate && touched) { try { navigator.vibrate([400, 200, 400]); } catch { /* none */ } }
}

function stopTone() {
  if (tone) clearInterval(tone.timer);
  tone = null;
}

class CallSession {
  constructor(app, { role, peerId, peerName, media, callId }) {
    this.app = app;
    this.role = role;                 // 'caller' | 'callee'
    this.peerId = peerId;
    this.peerName = peerName || t('call.someone');
    this.media = media;               // 'voice' | 'video'
    this.callId = callId || null;     // the hub's id (the caller learns it from the invite reply)
    this.phase = 'preparing';         // preparing | ringing | incoming | connecting | active | ended
    this.notice = '';                 // a line under the status: reconnecting, peer lost, …
    this.ringDeadline = 0;            // Date.now() ms when the ring times out
    this.ringingDevices = 0;
    this.peerLostUntil = 0;           // Date.now() ms: the other side's grace deadline
    this.connectedAt = 0;
    this.muted = false;
    this.cameraOff = false;
    this.noCamera = false;            // a video call went on with sound only
    this.localStream = null;
    this.remoteStream = null;
    this.pc = null;
    this.offer = null;                // callee: the caller's SDP from call.ring
    this.canSignal = role === 'caller';   // callee: only after its accept went out
    this.outgoing = [];               // ICE candidates waiting until we may signal
    this.incoming = [];               // remote candidates waiting for the remote description
    this.earlyEvents = [];            // caller: events that came before the invite reply named the call
    this.endedText = '';
    this.closeTimer = null;
    this.resumeTimer = null;
    this.view = createCallView(app, this);
  }

  update() {
    if (this.view) this.view.update();
    const wanted = this.phase === 'incoming' ? 'incoming' : this.phase === 'ringing' ? 'ringback' : null;
    if (wanted && (!tone || tone.kind !== wanted || tone.owner !== this)) { startTone(wanted); if (tone) tone.owner = this; }
    else if (!wanted && tone && tone.owner === this) stopTone();
  }

  // MARK: peer connection

  async prepare(callIdForTurn) {
    if (typeof RTCPeerConnection === 'undefined') throw Object.assign(new Error('webrtc'), { kind: 'webrtc' });
    let iceServers = [];
    try {
      const turn = await this.app.client.request('call.turn', callIdForTurn ? { call_id: callIdForTurn } : {});
      iceServers = turn.ice_servers || [];
    } catch { /* rate limited or none: calls on a LAN or loopback still work */ }
    const pc = new RTCPeerConnection({ iceServers });
    this.pc = pc;
    this.remoteStream = new MediaStream();
    pc.addEventListener('track', (event) => {
      if (!this.remoteStream.getTracks().includes(event.track)) this.remoteStream.addTrack(event.track);
      this.update();
    });
    pc.addEventListener('icecandidate', (event) => {
      const payload = event.candidate ? JSON.stringify(event.candidate) : JSON.stringify({ candidate: '' });
      this.sendCandidate(payload);
    });
    pc.addEventListener('connectionstatechange', () => this.connectionChanged());
    pc.addEventListener('iceconnectionstatechange', () => this.connectionChanged());
    try {
      this.localStream = await navigator.mediaDevices.getUserMedia({
        audio: true,
        video: this.media === 'video' ? { width: { ideal: 640 }, height: { ideal: 480 } } : false,
      });
    } catch (error) {
      // no camera (or a blocked one) need not stop a video call: go on with sound only, camera shown as off
      let audioOnly = null;
      if (this.media === 'video') {
        try { audioOnly = await navigator.mediaDevices.getUserMedia({ audio: true }); } catch { /* below */ }
      }
      if (!audioOnly) throw Object.assign(new Error(mediaError(error)), { kind: 'media' });
      this.localStream = audioOnly;
      this.cameraOff = true;
      this.noCamera = true;
      this.notice = t('call.noCamera');
    }
    for (const track of this.localStream.getTracks()) pc.addTrack(track, this.localStream);
    this.update();
  }

  connectionChanged() {
    if (!this.pc || this.phase === 'ended') return;
    const state = this.pc.connectionState || this.pc.iceConnectionState;
    if ((state === 'connected' || this.pc.iceConnectionState === 'connected' || this.pc.iceConnectionState === 'completed')
        && this.phase === 'connecting') {
      this.phase = 'active';
      this.connectedAt = Date.now();
      this.notice = this.noCamera ? t('call.noCamera') : '';
    } else if (state === 'failed' && this.phase === 'active') {
      this.notice = t('call.error.media.failed');
      if (this.role === 'caller') this.restartIce();
    }
    this.update();
  }

  sendCandidate(payload) {
    if (!this.canSignal || !this.callId) {
      if (this.outgoing.length < MAX_QUEUED_CANDIDATES) this.outgoing.push(payload);
      return;
    }
    this.signal('ice_candidate', payload);
  }

  flushCandidates() {
    const waiting = this.outgoing;
    this.outgoing = [];
    for (const payload of waiting) this.signal('ice_candidate', payload);
  }

  signal(kind, payload) {
    if (!this.callId || this.phase === 'ended') return;
    this.app.client.request('call.signal', { call_id: this.callId, kind, payload }).catch(() => {
      // a candidate refused (the call ended, or rate limited) changes nothing worth telling the user
    });
  }

  async addRemoteCandidate(payload) {
    let init;
    try { init = JSON.parse(payload); } catch { return; }
    if (!this.pc || !this.pc.remoteDescription) { this.incoming.push(init); return; }
    try { await this.pc.addIceCandidate(init); } catch { /* a stale candidate after a restart */ }
  }

  async flushRemoteCandidates() {
    const waiting = this.incoming;
    this.incoming = [];
    for (const init of waiting) {
      try { await this.pc.addIceCandidate(init); } catch { /* ignore */ }
    }
  }

  async restartIce() {
    if (!this.pc || this.phase === 'ended') return;
    try {
      this.pc.restartIce();
      const offer = await this.pc.createOffer({ iceRestart: true });
      await this.pc.setLocalDescription(offer);
      this.signal('offer', this.pc.localDescription.sdp);
    } catch { /* the next reconnect tries again */ }
  }

  // MARK: the caller

  async place() {
    this.show();
    try {
      await this.prepare(null);
      const offer = await this.pc.createOffer();
      await this.pc.setLocalDescription(offer);
    } catch (error) {
      this.fail(error.kind === 'media' || error.kind === 'webrtc' ? error.message : t('call.error.failed'));
      return;
    }
    if (this.phase === 'ended') return;   // cancelled while preparing
    let reply;
    try {
      reply = await this.app.client.request('call.invite', {
        callee_id: this.peerId, media: this.media, call_id: newAlias(), offer: this.pc.localDescription.sdp,
      });
    } catch (error) {
      const text = error.code === 'already_in_call' ? t('call.alreadyInCall')
        : error.code === 'not_friends' ? t('call.notFriends') : t('call.error.failed');
      this.fail(text);
      return;
    }
    const call = reply.call || {};
    this.callId = call.call_id;
    if (this.phase === 'ended') {            // the user cancelled while the invite was on its way
      this.app.client.request('call.hangup', { call_id: this.callId }).catch(() => {});
      return;
    }
    switch (reply.disposition) {
      case 'ringing':
        this.phase = 'ringing';
        this.ringDeadline = Date.now() + (Number(call.ring_ms) || DEFAULT_RING_MS);
        this.flushCandidates();
        break;
      case 'joined':                          // glare: the callee's call to us became the call
        this.role = 'callee';
        this.media = call.media || this.media;
        await this.answerOffer(call.offer, true);
        break;
      case 'busy': this.end('busy'); return;
      case 'unavailable': this.end('unavailable'); return;
      default: this.end(call.reason || 'other'); return;
    }
    this.update();
    const early = this.earlyEvents;
    this.earlyEvents = [];
    for (const [name, detail] of early) {
      if ((detail.call_id || (detail.call && detail.call.call_id)) === this.callId) this.handle(name, detail);
    }
  }

  // Glare, or a renegotiation offer: answer the other side's offer.
  async answerOffer(sdp, fromJoin) {
    try {
      if (this.pc.signalingState === 'have-local-offer') await this.pc.setLocalDescription({ type: 'rollback' });
      await this.pc.setRemoteDescription({ type: 'offer', sdp });
      await this.flushRemoteCandidates();
      const answer = await this.pc.createAnswer();
      await this.pc.setLocalDescription(answer);
      this.signal('answer', this.pc.localDescription.sdp);
      if (fromJoin) {
        this.phase = 'connecting';
        this.canSignal = true;
        this.outgoing = [];                  // candidates of the rolled-back offer are useless
      }
    } catch {
      if (fromJoin) this.fail(t('call.error.failed'));
    }
  }

  // MARK: the callee

  ring(detail) {
    this.offer = detail.offer || null;
    this.phase = 'incoming';
    this.ringDeadline = Date.now() + (Number(detail.ring_ms) || DEFAULT_RING_MS);
    this.show();
  }

  async accept() {
    if (this.phase !== 'incoming') return;
    this.phase = 'connecting';
    this.update();
    try {
      await this.prepare(this.callId);
      if (this.offer) await this.pc.setRemoteDescription({ type: 'offer', sdp: this.offer });
      await this.flushRemoteCandidates();
      const answer = await this.pc.createAnswer();
      await this.pc.setLocalDescription(answer);
    } catch (error) {
      this.app.client.request('call.decline', { call_id: this.callId }).catch(() => {});
      this.fail(error.kind === 'media' || error.kind === 'webrtc' ? error.message : t('call.error.failed'));
      return;
    }
    if (this.phase === 'ended') return;     // answered elsewhere or cancelled meanwhile
    try {
      await this.app.client.request('call.accept', { call_id: this.callId, answer: this.pc.localDescription.sdp });
    } catch (error) {
      if (this.phase === 'ended') return;
      if (error.code === 'already_in_call') this.fail(t('call.alreadyInCall'));
      else if (error.code === 'invalid_state') this.fail(t('call.answeredElsewhere'));
      else this.fail(t('call.error.failed'));
      return;
    }
    this.canSignal = true;
    tellTabs(this.app, 'answered', this.callId);
    this.flushCandidates();
    this.connectionChanged();
  }

  decline() {
    if (this.phase !== 'incoming') return;
    this.app.client.request('call.decline', { call_id: this.callId }).catch(() => {});
    tellTabs(this.app, 'declined', this.callId);
    this.end('declined', { byMe: true });
  }

  // MARK: both

  cancel() {
    if (this.phase === 'preparing' && !this.callId) { this.end('cancelled'); return; }
    this.hangup();
  }

  hangup() {
    if (this.phase === 'ended') return;
    if (this.callId) this.app.client.request('call.hangup', { call_id: this.callId }).catch(() => {});
    const reason = this.phase === 'ringing' || this.phase === 'preparing' ? 'cancelled' : 'hangup';
    this.end(reason, { byMe: true, durationMs: this.connectedAt ? Date.now() - this.connectedAt : 0 });
  }

  toggleMute() {
    this.muted = !this.muted;
    if (this.localStream) this.localStream.getAudioTracks().forEach((track) => { track.enabled = !this.muted; });
    this.update();
  }

  toggleCamera() {
    if (this.noCamera) { this.notice = t('call.noCamera'); this.update(); return; }
    this.cameraOff = !this.cameraOff;
    if (this.localStream) this.localStream.getVideoTracks().forEach((track) => { track.enabled = !this.cameraOff; });
    this.update();
  }

  // Events of the hub for this call.
  handle(name, detail) {
    if (this.phase === 'ended' && name !== 'call.ended') return;
    switch (name) {
      case 'call.ringing':
        this.ringingDevices = detail.devices || 0;
        break;
      case 'call.accepted':
        this.phase = 'connecting';
        if (detail.answer) {
          this.pc.setRemoteDescription({ type: 'answer', sdp: detail.answer })
            .then(() => this.flushRemoteCandidates())
            .catch(() => this.fail(t('call.error.failed')));
        }
        this.connectionChanged();
        break;
      case 'call.signal':
        this.relay(detail);
        break;
      case 'call.answered_elsewhere':
        this.finish(t('call.answeredElsewhere'));
        return;
      case 'call.peer_connection_lost':
        this.peerLostUntil = Date.now() + (Number(detail.grace_ms) || 10_000);
        this.notice = 'peer-lost';
        break;
      case 'call.peer_reconnected':
        this.peerLostUntil = 0;
        this.notice = t('call.peerBack', { name: this.peerName });
        this.restartIce();
        break;
      case 'call.resumed':
        clearTimeout(this.resumeTimer);
        this.notice = t('call.selfBack');
        break;
      case 'call.ended':
        this.end(detail.reason, { durationMs: detail.duration_ms });
        return;
      default:
        return;
    }
    this.update();
  }

  async relay(detail) {
    const { kind, payload } = detail;
    if (!this.pc) return;
    try {
      if (kind === 'ice_candidate') await this.addRemoteCandidate(payload);
      else if (kind === 'offer') await this.answerOffer(payload, false);
      else if (kind === 'answer') {
        await this.pc.setRemoteDescription({ type: 'answer', sdp: payload });
        await this.flushRemoteCandidates();
      } else if (kind === 'media' && (payload === 'voice' || payload === 'video')) {
        this.media = payload;
        this.update();
      }
    } catch { /* a signal out of order; the next offer puts things right */ }
  }

  // Our own connection to the hub: offline while in a call shows a notice; back online, the hub says
  // `call.resumed` if the call survived the gap, else it ended while we were away.
  connection(state) {
    if (this.phase === 'ended') return;
    if (!this.app.client.token) { this.end('other'); return; }      // logged out in this tab
    if (state === 'offline' || state === 'connecting') {
      if (this.notice !== 'self-lost') { this.notice = 'self-lost'; this.update(); }
      clearTimeout(this.resumeTimer);
    } else if (state === 'open' && this.notice === 'self-lost') {
      if (this.phase === 'active' || this.phase === 'connecting') {
        clearTimeout(this.resumeTimer);
        this.resumeTimer = setTimeout(() => {
          if (this.notice === 'self-lost') this.end('connection_lost');
        }, RESUME_WAIT_MS);
      } else if (this.phase === 'incoming') {
        this.notice = '';                     // the hub rings this device again if the call still rings
        this.update();
      } else {
        this.notice = '';
        this.update();
      }
    } else if (state === 'revoked') {
      this.end('connection_lost');
    }
  }

  fail(text) {
    this.endWithText(text);
  }

  finish(text) {
    this.endWithText(text);
  }

  end(reason, { byMe = false, durationMs = 0 } = {}) {
    if (this.phase === 'ended') return;
    const name = this.peerName;
    const caller = this.role === 'caller';
    let text;
    switch (reason) {
      case 'hangup':
        text = durationMs > 0 ? t('call.ended.hangupDuration', { duration: formatDuration(durationMs) }) : t('call.ended.hangup');
        break;
      case 'declined': text = byMe ? t('call.ended.declinedByYou') : t('call.ended.declinedByThem', { name }); break;
      case 'busy': text = t('call.ended.busy', { name }); break;
      case 'timeout': text = caller ? t('call.ended.timeoutCaller', { name }) : t('call.ended.timeoutCallee', { name }); break;
      case 'unavailable': text = t('call.ended.unavailable', { name }); break;
      case 'cancelled': text = caller ? t('call.ended.cancelledCaller') : t('call.ended.cancelledCallee', { name }); break;
      case 'connection_lost': text = t('call.ended.connectionLost'); break;
      case 'server_shutdown': case 'server_failure': text = t('call.ended.server'); break;
      default: text = t('call.ended.other');
    }
    this.reason = reason;
    this.endWithText(text);
  }

  endWithText(text) {
    if (this.phase === 'ended') return;
    this.phase = 'ended';
    this.endedText = text;
    this.notice = '';
    clearTimeout(this.resumeTimer);
    if (this.pc) { try { this.pc.close(); } catch { /* closed */ } }
    if (this.localStream) this.localStream.getTracks().forEach((track) => track.stop());
    this.update();
    if (installed && installed.session === this) installed.session = null;
    this.closeTimer = setTimeout(() => this.close(), ENDED_SCREEN_MS);
  }

  show() {
    this.view.open();
    this.update();
  }

  close() {
    clearTimeout(this.closeTimer);
    if (this.phase !== 'ended') return;
    if (this.view) this.view.close();
    this.view = null;
    if (installed) installed.ringing.delete(this.callId);
  }
}

export function formatDuration(ms) {
  const total = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return h ? `${h}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}` : `${m}:${String(s).padStart(2, '0')}`;
}

const CALL_EVENTS = ['call.ringing', 'call.accepted', 'call.signal', 'call.answered_elsewhere', 'call.peer_connection_lost',
  'call.peer_reconnected', 'call.resumed', 'call.ended'];

export function installCalls(app) {
  if (installed && installed.app === app) return;
  if (installed) installed.unsubscribe.forEach((off) => off());
  const state = { app, session: null, ringing: new Map(), unsubscribe: [] };
  installed = state;

  state.unsubscribe.push(app.client.on('call.ring', (event) => {
    const detail = detailOf(event) || {};
    if (state.session && state.session.callId === detail.call_id) return;          // rung again after a reconnect
    const existing = state.ringing.get(detail.call_id);
    if (existing && existing.phase === 'incoming') return;
    if (state.session && state.session.phase !== 'ended') {
      // in a call already: the hub lets it ring (a busy answer is only for active calls); say who calls
      if (app.toast) app.toast(t('call.incoming', { name: (detail.caller && detail.caller.display_name) || t('call.someone') }));
      return;
    }
    const session = new CallSession(app, {
      role: 'callee', peerId: detail.caller && detail.caller.user_id,
      peerName: detail.caller && detail.caller.display_name, media: detail.media === 'video' ? 'video' : 'voice',
      callId: detail.call_id,
    });
    state.session = session;
    state.ringing.set(detail.call_id, session);
    session.ring(detail);
  }));

  for (const name of CALL_EVENTS) {
    state.unsubscribe.push(app.client.on(name, (event) => {
      const detail = detailOf(event) || {};
      const callId = detail.call_id || (detail.call && detail.call.call_id);    // call.resumed carries {call}
      const session = state.ringing.get(callId) || (state.session && state.session.callId === callId ? state.session : null);
      if (session) { session.handle(name, detail); return; }
      if (state.session && state.session.role === 'caller' && !state.session.callId) {
        state.session.earlyEvents.push([name, detail]);     // before the invite reply named the call
      }
    }));
  }

  if (typeof BroadcastChannel !== 'undefined') {
    if (tabs) tabs.close();
    tabs = new BroadcastChannel(TAB_CHANNEL);
    tabs.onmessage = (event) => {
      const { type, callId, userId } = event.data || {};
      if (userId !== app.client.userId) return;
      const session = state.ringing.get(callId);
      if (!session || session.phase !== 'incoming') return;
      if (type === 'answered') session.finish(t('call.answeredInOtherWindow'));
      else if (type === 'declined') session.end('declined', { byMe: true });
    };
  }

  state.unsubscribe.push(app.client.on('state', (event) => {
    const detail = detailOf(event);
    const s = detail && detail.state;
    if (state.session) state.session.connection(s);
    if (s === 'revoked') {
      for (const session of state.ringing.values()) session.end('connection_lost');
    }
  }));
}

export async function startCall(app, userId, { video = false } = {}) {
  if (!installed || installed.app !== app) installCalls(app);
  if (installed.session && installed.session.phase !== 'ended') {
    if (app.toast) app.toast(t('call.alreadyInCall'));
    return null;
  }
  const session = new CallSession(app, { role: 'caller', peerId: userId, media: video ? 'video' : 'voice' });
  installed.session = session;
  app.client.request('profile.get', { user_id: userId }).then((reply) => {
    if (reply && reply.profile && reply.profile.display_name) { session.peerName = reply.profile.display_name; session.update(); }
  }).catch(() => {});
  await session.place();
  return session;
}
