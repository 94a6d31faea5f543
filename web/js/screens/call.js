// The call screen: an overlay (a modal dialog) over whatever page is open, for the caller's ringing screen,
// the incoming-call screen, the call itself and its end. calls.js owns the call; this module only draws a
// CallSession (its fields are read on each update) and forwards the buttons to it.
//
// show(root, {session}, app) fills `root` the screen way; createCallView(app, session) makes the overlay that
// calls.js uses ({open(), update(), close()}).

import { t } from '../strings.js';
import { formatDuration } from '../calls.js';

let counter = 0;
let shown = null;
const openViews = new Set();   // call overlays on the page
const madeInert = [];          // page elements made inert while any call overlay is open (given back after the last)

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function button(className, text, onClick) {
  const node = el('button', `call-button ${className}`);
  node.type = 'button';
  const icon = el('span', 'call-icon');
  icon.setAttribute('aria-hidden', 'true');
  const label = el('span', 'call-button-label', text);
  node.append(icon, label);
  node.addEventListener('click', onClick);
  return node;
}

export function createCallView(app, session) {
  const id = `call-${++counter}`;
  const overlay = el('div', 'call-overlay');
  overlay.dataset.screen = 'call';
  overlay.setAttribute('role', 'dialog');
  overlay.setAttribute('aria-modal', 'true');
  overlay.setAttribute('aria-describedby', `${id}-status`);
  const panel = el('section', 'call-panel');
  const stage = el('div', 'call-stage');
  const remoteVideo = el('video', 'call-remote');
  remoteVideo.autoplay = true;
  remoteVideo.playsInline = true;
  const localVideo = el('video', 'call-local');
  localVideo.autoplay = true;
  localVideo.playsInline = true;
  localVideo.muted = true;
  localVideo.setAttribute('aria-label', t('call.localVideo'));
  const remoteAudio = el('audio', 'call-audio');
  remoteAudio.autoplay = true;
  remoteAudio.hidden = true;
  const avatar = el('div', 'call-avatar');
  avatar.setAttribute('aria-hidden', 'true');
  stage.append(avatar, remoteVideo, localVideo, remoteAudio);
  const title = el('h2', 'call-title');
  title.id = `${id}-title`;
  const kind = el('p', 'call-kind');
  const status = el('p', 'call-status');
  status.id = `${id}-status`;
  status.setAttribute('role', 'status');
  status.setAttribute('aria-live', 'polite');
  const clock = el('p', 'call-clock');
  const notice = el('p', 'call-notice');
  notice.setAttribute('role', 'alert');
  const controls = el('div', 'call-controls');
  panel.append(stage, title, kind, status, clock, notice, controls);
  overlay.append(panel);

  let renderedPhase = null;
  let renderedMedia = null;
  let ticker = null;
  let returnFocus = null;
  const buttons = {};

  function buildControls() {
    controls.replaceChildren();
    for (const key of Object.keys(buttons)) delete buttons[key];
    const add = (key, node) => { buttons[key] = node; controls.append(node); };
    switch (session.phase) {
      case 'incoming':
        add('accept', button('call-accept', session.media === 'video' ? t('call.acceptVideo') : t('call.accept'), () => session.accept()));
        add('decline', button('call-decline', t('call.decline'), () => session.decline()));
        break;
      case 'preparing': case 'ringing':
        add('cancel', button('call-hangup', t('call.cancel'), () => session.cancel()));
        break;
      case 'connecting': case 'active':
        add('mute', button('call-mute', t('call.mute'), () => session.toggleMute()));
        if (session.media === 'video') add('camera', button('call-camera', t('call.cameraOff'), () => session.toggleCamera()));
        add('hangup', button('call-hangup', t('call.hangup'), () => session.hangup()));
        break;
      case 'ended':
        add('close', button('call-close', t('call.close'), () => session.close()));
        break;
      default:
        break;
    }
  }

  function statusText() {
    switch (session.phase) {
      case 'preparing': return session.media === 'video' ? t('call.preparing') : t('call.preparingVoice');
      case 'ringing':
        if (session.ringingDevices === 1) return `${t('call.calling')} ${t('call.ringingOne')}`;
        if (session.ringingDevices > 1) return `${t('call.calling')} ${t('call.ringingMany', { count: session.ringingDevices })}`;
        return t('call.calling');
      case 'incoming': return t('call.incoming', { name: session.peerName });
      case 'connecting': return t('call.connecting');
      case 'active': return t('call.inCall');
      case 'ended': return session.endedText;
      default: return '';
    }
  }

  function clockText() {
    const now = Date.now();
    if ((session.phase === 'ringing' || session.phase === 'incoming') && session.ringDeadline) {
      return t('call.timeLeft', { time: formatDuration(Math.max(0, session.ringDeadline - now)) });
    }
    if (session.phase === 'active' && session.connectedAt) return formatDuration(now - session.connectedAt);
    return '';
  }

  function noticeText() {
    if (session.notice === 'self-lost') return t('call.selfLost');
    if (session.notice === 'peer-lost') {
      const seconds = Math.max(0, Math.ceil((session.peerLostUntil - Date.now()) / 1000));
      return t('call.peerLost', { name: session.peerName, seconds });
    }
    return session.notice || '';
  }

  function tick() {
    clock.textContent = clockText();
    const text = noticeText();
    if (notice.textContent !== text) notice.textContent = text;
  }

  function update() {
    const video = session.media === 'video';
    overlay.dataset.phase = session.phase;
    overlay.classList.toggle('call-video', video);
    overlay.setAttribute('aria-label', t('call.dialogLabel', { name: session.peerName }));
    title.textContent = session.peerName;
    avatar.textContent = (session.peerName || '?').trim().charAt(0).toUpperCase();
    kind.textContent = video ? t('call.video') : t('call.voice');
    const text = statusText();
    if (status.textContent !== text) status.textContent = text;
    remoteVideo.setAttribute('aria-label', t('call.remoteVideo', { name: session.peerName }));
    if (session.phase !== renderedPhase || session.media !== renderedMedia) {
      const hadFocus = overlay.contains(document.activeElement);
      buildControls();
      renderedPhase = session.phase;
      renderedMedia = session.media;
      const first = controls.querySelector('button');
      if (first && (hadFocus || session.phase === 'incoming' || session.phase === 'ringing' || session.phase === 'preparing' || session.phase === 'ended')) first.focus();
    }
    if (buttons.mute) {
      buttons.mute.setAttribute('aria-pressed', String(session.muted));
      buttons.mute.querySelector('.call-button-label').textContent = session.muted ? t('call.unmute') : t('call.mute');
      buttons.mute.classList.toggle('off', session.muted);
    }
    if (buttons.camera) {
      buttons.camera.setAttribute('aria-pressed', String(session.cameraOff));
      buttons.camera.querySelector('.call-button-label').textContent = session.cameraOff ? t('call.cameraOn') : t('call.cameraOff');
      buttons.camera.classList.toggle('off', session.cameraOff);
    }
    const live = session.phase === 'connecting' || session.phase === 'active';
    const showVideo = video && live;
    remoteVideo.hidden = !showVideo;
    localVideo.hidden = !(video && session.localStream && session.phase !== 'ended' && session.phase !== 'incoming');
    avatar.hidden = showVideo;
    if (session.remoteStream && live) {
      const target = video ? remoteVideo : remoteAudio;
      const other = video ? remoteAudio : remoteVideo;
      if (target.srcObject !== session.remoteStream) { target.srcObject = session.remoteStream; target.play().catch(() => {}); }
      if (other.srcObject) other.srcObject = null;
    }
    if (session.localStream && localVideo.srcObject !== session.localStream && video) localVideo.srcObject = session.localStream;
    if (session.phase === 'ended') {
      remoteVideo.srcObject = null;
      remoteAudio.srcObject = null;
      localVideo.srcObject = null;
    }
    tick();
  }

  function keydown(event) {
    if (event.key === 'Escape' && session.phase === 'ended') { event.preventDefault(); session.close(); return; }
    if (event.key !== 'Tab') return;
    // keep the keyboard inside the dialog
    const focusable = Array.from(overlay.querySelectorAll('button:not([hidden])'));
    if (!focusable.length) return;
    const first = focusable[0];
    const last = focusable[focusable.length - 1];
    if (event.shiftKey && document.activeElement === first) { event.preventDefault(); last.focus(); }
    else if (!event.shiftKey && document.activeElement === last) { event.preventDefault(); first.focus(); }
  }
  overlay.addEventListener('keydown', keydown);

  return {
    root: overlay,
    open() {
      if (overlay.isConnected) return;
      returnFocus = document.activeElement;
      // the page behind is out of reach (keyboard, pointer, screen readers) while a call screen is open
      if (openViews.size === 0) {
        for (const child of document.body.children) {
          // live regions (the app's banner and toast) stay: they still tell what happens
          if (!child.inert && !child.matches('[role=status], [role=alert], [aria-live], script, link')) {
            child.inert = true;
            madeInert.push(child);
          }
        }
      }
      openViews.add(this);
      document.body.append(overlay);
      document.body.classList.add('call-open');
      ticker = setInterval(tick, 500);
      shown = this;
    },
    update,
    close() {
      clearInterval(ticker);
      overlay.remove();
      openViews.delete(this);
      if (openViews.size === 0) {
        for (const node of madeInert) node.inert = false;
        madeInert.length = 0;
      }
      if (!document.querySelector('.call-overlay')) document.body.classList.remove('call-open');
      if (returnFocus && returnFocus.isConnected) returnFocus.focus();
      if (shown === this) shown = null;
    },
  };
}

// The screen form of the contract: draws the session into `root` instead of an overlay.
export function show(root, params, app) {
  const view = createCallView(app, params.session);
  root.dataset.screen = 'call';
  root.replaceChildren(view.root.firstChild);
  view.update();
  shown = view;
  return view;
}

export function hide() {
  if (shown) shown.close();
  shown = null;
}
