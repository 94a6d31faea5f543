// Voice messages in the browser: recording (MediaRecorder, uploaded to POST /voice) and playing.
//
// voiceRecorder(app, {onSend(voiceId, durationMs, clip), onRecording(active)}) returns an element:
//   - hold to record: press the button (pointer, or Space held while it has focus), talk, let go: it is sent;
//   - tap to toggle: a short tap (or Enter) starts, a second tap (or Enter) stops and sends;
//   - Escape or the Cancel button throws the recording away; a running timer shows the length.
//   onRecording(true/false) lets the chat page send its "recording" indicator.
// voicePlayer(app, message) returns an element for a voice message: the server's waveform (100 bars),
//   the duration, play/pause, progress and seeking (click or arrow keys on the waveform). One plays at a time.
//
// How playback gets the audio: GET /voice/{id} needs `Authorization: Bearer <token>` (docs/protocol.md, Voice)
// and an <audio src> cannot send a header, the server has no token-in-URL or cookie form, and a Service Worker
// would need a scope the server does not grant. So the player fetches the clip with the header into a Blob
// and plays a blob: URL (the CSP allows `media-src blob:`). Clips are small (Opus at ~24 kbit/s: 5 minutes
// are under 1 MB, a typical message 10-30 KB), so the whole clip arrives in one request, and seeking is local and
// instant: the server's ranged requests are not needed by this client. The fetch starts as soon as a player
// scrolls into view, so a tap plays at once; clips are kept in a small cache of blob URLs (ETag revalidation
// is left to the browser's HTTP cache).

import { t } from './strings.js';

const HOLD_MS = 450;               // a press longer than this is "hold to record"; shorter is a tap (toggle)
const MIN_SEND_MS = 500;           // recordings shorter than this are not sent
const MAX_RECORD_MS = 300_000;     // the server's --max-audio-seconds default (300 s)
const CHUNK_MS = 250;              // MediaRecorder timeslice
const CACHE_LIMIT = 40;            // blob URLs kept for played or prefetched clips
const SEEK_STEP_S = 2;             // arrow keys on the waveform

export function formatTime(ms) {
  const total = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(total / 60)}:${String(total % 60).padStart(2, '0')}`;
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function pickMimeType() {
  if (typeof MediaRecorder === 'undefined') return null;
  for (const type of ['audio/webm;codecs=opus', 'audio/ogg;codecs=opus', 'audio/webm']) {
    if (MediaRecorder.isTypeSupported(type)) return type;
  }
  return '';
}

function microphoneError(error) {
  switch (error && error.name) {
    case 'NotAllowedError': case 'SecurityError': return t('voice.error.denied');
    case 'NotFoundError': case 'OverconstrainedError': return t('voice.error.noMicrophone');
    case 'NotReadableError': case 'AbortError': return t('voice.error.busyMicrophone');
    default: return t('voice.error.noMicrophone');
  }
}

function uploadError(status, code) {
  if (status === 401) return t('voice.error.signedOut');
  if (code === 'audio_too_long') return t('voice.error.tooLong');
  if (code === 'audio_too_large' || status === 413) return t('voice.error.tooLarge');
  if (status === 415 || status === 422) return t('voice.error.unreadable');
  if (status === 503) return t('voice.error.busy');
  return t('voice.error.upload');
}

// Uploads a recording; resolves with the server's reply {voice_id, duration_ms, waveform, size, mime_type}.
export async function uploadVoice(app, blob, type) {
  let response;
  try {
    response = await fetch('/voice', {
      method: 'POST',
      headers: { Authorization: `Bearer ${app.client.token}`, 'Content-Type': type || 'audio/webm' },
      body: blob,
    });
  } catch {
    throw new Error(t('voice.error.upload'));
  }
  let body = null;
  try { body = await response.json(); } catch { /* plain-text 408 */ }
  if (!response.ok) throw new Error(uploadError(response.status, body && body.error && body.error.code));
  return body;
}

// MARK: recorder

let recorders = 0;        // for element ids

export function voiceRecorder(app, { onSend, onRecording } = {}) {
  const root = el('div', 'voice-recorder');
  const hintId = `voice-hint-${++recorders}`;
  const button = el('button', 'voice-record');
  button.type = 'button';
  button.setAttribute('aria-describedby', hintId);
  const icon = el('span', 'voice-record-icon');
  icon.setAttribute('aria-hidden', 'true');
  const label = el('span', 'voice-record-label', t('voice.record'));
  button.append(icon, label);
  const timer = el('span', 'voice-timer', '');
  timer.setAttribute('role', 'timer');
  timer.hidden = true;
  const cancel = el('button', 'voice-cancel', t('voice.cancel'));
  cancel.type = 'button';
  cancel.hidden = true;
  const hint = el('span', 'voice-hint', t('voice.record.hint'));
  hint.id = hintId;
  const status = el('span', 'voice-status');
  status.setAttribute('role', 'status');
  status.setAttribute('aria-live', 'polite');
  root.append(button, timer, cancel, hint, status);

  // phase: idle | starting | recording | sending
  let phase = 'idle';
  let mode = null;            // 'hold' while the press lasts, 'toggle' after a tap
  let pressedAt = 0;
  let released = false;       // the press ended while the microphone was still starting
  let stream = null;
  let recorder = null;
  let chunks = [];
  let startedAt = 0;
  let ticker = null;
  let discard = false;

  function say(text, isError = false) {
    status.textContent = text || '';
    status.classList.toggle('voice-error', Boolean(isError));
  }

  function render() {
    const recording = phase === 'recording' || phase === 'starting';
    root.classList.toggle('recording', recording);
    button.setAttribute('aria-pressed', String(recording));
    label.textContent = !recording ? t('voice.record') : mode === 'toggle' ? t('voice.stopAndSend') : t('voice.letGo');
    timer.hidden = !recording;
    cancel.hidden = !recording;
    hint.hidden = recording;
    button.disabled = phase === 'sending';
  }

  function tick() {
    const elapsed = phase === 'recording' ? Date.now() - startedAt : 0;
    timer.textContent = t('voice.recording', { time: formatTime(elapsed) });
    if (elapsed >= MAX_RECORD_MS) finish('limit');
  }

  function releaseMicrophone() {
    clearInterval(ticker);
    ticker = null;
    if (stream) stream.getTracks().forEach((track) => track.stop());
    stream = null;
    if (onRecording) { try { onRecording(false); } catch { /* the page's indicator only */ } }
  }

  async function begin(how) {
    if (phase !== 'idle') return;
    const type = pickMimeType();
    if (type === null || !navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
      say(t('voice.error.unsupported'), true);
      return;
    }
    phase = 'starting';
    mode = how;
    released = false;
    discard = false;
    pressedAt = Date.now();
    say(t('voice.starting'));
    render();
    try {
      stream = await navigator.mediaDevices.getUserMedia({ audio: true });
    } catch (error) {
      phase = 'idle';
      mode = null;
      render();
      say(microphoneError(error), true);
      return;
    }
    if (phase !== 'starting') { releaseMicrophone(); return; }   // cancelled while starting
    chunks = [];
    recorder = new MediaRecorder(stream, type ? { mimeType: type } : undefined);
    recorder.addEventListener('dataavailable', (event) => { if (event.data && event.data.size) chunks.push(event.data); });
    recorder.addEventListener('stop', stopped);
    recorder.start(CHUNK_MS);
    startedAt = Date.now();
    phase = 'recording';
    if (released) mode = 'toggle';      // a tap that ended before the microphone was ready
    say('');
    render();
    tick();
    ticker = setInterval(tick, 200);
    if (onRecording) { try { onRecording(true); } catch { /* ignore */ } }
  }

  // Ends the recording; `why` is 'send', 'limit' or 'cancel'.
  function finish(why) {
    if (phase === 'starting') {
      if (why === 'cancel') { phase = 'idle'; mode = null; render(); say(t('voice.cancelled')); }
      else released = true;
      return;
    }
    if (phase !== 'recording') return;
    discard = why === 'cancel';
    if (why === 'limit') say(t('voice.limitReached'));
    phase = 'sending';
    render();
    recorder.stop();        // `stopped` runs once the last chunk is in
  }

  async function stopped() {
    const duration = Date.now() - startedAt;
    const type = recorder.mimeType || 'audio/webm';
    recorder = null;
    releaseMicrophone();
    if (discard) { phase = 'idle'; mode = null; render(); say(t('voice.cancelled')); return; }
    if (duration < MIN_SEND_MS) { phase = 'idle'; mode = null; render(); say(t('voice.tooShort'), true); return; }
    say(t('voice.sending'));
    const blob = new Blob(chunks, { type });
    chunks = [];
    try {
      const clip = await uploadVoice(app, blob, type);
      phase = 'idle';
      mode = null;
      render();
      say(t('voice.sent'));
      if (onSend) await onSend(clip.voice_id, clip.duration_ms, clip);
    } catch (error) {
      phase = 'idle';
      mode = null;
      render();
      say(error.message || t('voice.error.upload'), true);
    }
  }

  function press(how) {
    if (phase === 'idle') { begin(how); return; }
    // a press while recording in toggle mode: the release sends
  }

  function release() {
    if (phase === 'starting') {
      if (Date.now() - pressedAt < HOLD_MS) released = true;
      else finish('send');
      return;
    }
    if (phase !== 'recording') return;
    if (mode === 'hold' && Date.now() - pressedAt < HOLD_MS) { mode = 'toggle'; render(); return; }
    if (mode === 'toggle' && Date.now() - pressedAt < HOLD_MS && Date.now() - startedAt < HOLD_MS) return;
    finish('send');
  }

  button.addEventListener('pointerdown', (event) => {
    if (event.button !== 0) return;
    event.preventDefault();
    button.focus();
    if (phase === 'recording' && mode === 'toggle') { pressedAt = Date.now(); return; }
    press('hold');
  });
  button.addEventListener('pointerup', (event) => { if (event.button === 0) release(); });
  button.addEventListener('pointercancel', () => finish('cancel'));
  button.addEventListener('contextmenu', (event) => event.preventDefault());   // long press on touch screens
  button.addEventListener('keydown', (event) => {
    if (event.key === ' ' || event.key === 'Spacebar') {
      event.preventDefault();
      if (event.repeat) return;
      if (phase === 'recording' && mode === 'toggle') { pressedAt = Date.now(); return; }
      press('hold');
    } else if (event.key === 'Enter') {
      event.preventDefault();
      if (event.repeat) return;
      if (phase === 'idle') { begin('toggle'); }
      else if (phase === 'recording') finish('send');
    }
  });
  button.addEventListener('keyup', (event) => {
    if (event.key === ' ' || event.key === 'Spacebar') { event.preventDefault(); release(); }
  });
  button.addEventListener('click', (event) => event.preventDefault());   // handled by pointer and key events
  cancel.addEventListener('click', () => { finish('cancel'); button.focus(); });
  root.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && (phase === 'recording' || phase === 'starting')) {
      event.preventDefault();
      finish('cancel');
      button.focus();
    }
  });
  render();
  return root;
}

// MARK: player

const cache = new Map();   // voice id -> Promise<blob URL>, oldest first
let playing = null;        // the player whose audio plays now (one at a time)

function clipURL(app, voiceId) {
  const key = `${app.client.token}/${voiceId}`;     // per session: another login in this tab fetches anew
  if (cache.has(key)) {
    const entry = cache.get(key);
    cache.delete(key);
    cache.set(key, entry);
    return entry;
  }
  const entry = fetch(`/voice/${encodeURIComponent(String(voiceId))}`, { headers: { Authorization: `Bearer ${app.client.token}` } })
    .then((response) => {
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      return response.blob();
    })
    .then((blob) => URL.createObjectURL(blob));
  entry.catch(() => cache.delete(key));
  cache.set(key, entry);
  while (cache.size > CACHE_LIMIT) {
    const [oldKey, oldEntry] = cache.entries().next().value;
    cache.delete(oldKey);
    oldEntry.then((url) => { if (!playing || playing.url !== url) URL.revokeObjectURL(url); }, () => {});
  }
  return entry;
}

let visibility = null;     // one IntersectionObserver for every player: prefetch when it comes into view
function observe(node, prefetch) {
  if (typeof IntersectionObserver === 'undefined') { prefetch(); return; }
  if (!visibility) {
    visibility = new IntersectionObserver((entries) => {
      for (const entry of entries) {
        if (entry.isIntersecting) {
          visibility.unobserve(entry.target);
          if (entry.target.voicePrefetch) entry.target.voicePrefetch();
        }
      }
    }, { rootMargin: '200px' });
  }
  node.voicePrefetch = prefetch;
  visibility.observe(node);
}

export function voicePlayer(app, message) {
  const voice = (message && message.voice) || message || {};
  const voiceId = voice.voice_id;
  const durationMs = Number(voice.duration_ms) || 0;
  const waveform = Array.isArray(voice.waveform) && voice.waveform.length ? voice.waveform : new Array(50).fill(4);

  const root = el('div', 'voice-player');
  root.dataset.voiceId = String(voiceId);
  const button = el('button', 'voice-play');
  button.type = 'button';
  const icon = el('span', 'voice-play-icon');
  icon.setAttribute('aria-hidden', 'true');
  button.append(icon);
  const wave = el('div', 'voice-wave');
  wave.tabIndex = 0;
  wave.setAttribute('role', 'slider');
  wave.setAttribute('aria-label', t('voice.position'));
  wave.setAttribute('aria-valuemin', '0');
  wave.setAttribute('aria-valuemax', String(Math.round(durationMs / 1000)));
  const bars = waveform.map((value) => {
    const bar = el('span', 'voice-bar');
    // CSSOM, which the CSP allows (a style attribute in markup would be refused)
    bar.style.setProperty('--level', String(Math.max(0, Math.min(31, Number(value) || 0)) / 31));
    return bar;
  });
  wave.append(...bars);
  const time = el('span', 'voice-time');
  const status = el('span', 'voice-status');
  status.setAttribute('role', 'status');
  root.append(button, wave, time, status);

  const audio = el('audio', 'voice-audio');
  audio.preload = 'auto';
  audio.hidden = true;
  root.append(audio);
  const player = { url: null, pause: () => audio.pause() };
  let loading = null;
  let position = 0;           // seconds, shown while the audio is not loaded
  let shownBars = -1;

  function load() {
    if (!loading) {
      loading = clipURL(app, voiceId).then((url) => {
        player.url = url;
        if (audio.src !== url) audio.src = url;
        return url;
      });
      loading.catch(() => { loading = null; });
    }
    return loading;
  }

  function current() { return audio.src ? audio.currentTime : position; }

  function render() {
    const now = current() * 1000;
    const fraction = durationMs ? Math.min(1, now / durationMs) : 0;
    const isPlaying = !audio.paused && !audio.ended;
    root.classList.toggle('playing', isPlaying);
    button.setAttribute('aria-label', isPlaying ? t('voice.pause') : t('voice.play', { duration: formatTime(durationMs) }));
    time.textContent = now > 0 || isPlaying ? `${formatTime(now)} / ${formatTime(durationMs)}` : formatTime(durationMs);
    wave.setAttribute('aria-valuenow', String(Math.round(now / 1000)));
    wave.setAttribute('aria-valuetext', t('voice.positionText', { time: formatTime(now), duration: formatTime(durationMs) }));
    const played = Math.round(fraction * bars.length);
    if (played !== shownBars) {
      bars.forEach((bar, index) => bar.classList.toggle('played', index < played));
      shownBars = played;
    }
  }

  async function play() {
    if (playing && playing !== player) playing.pause();
    playing = player;
    status.textContent = '';
    const wasLoaded = Boolean(audio.src);
    if (!wasLoaded) { root.classList.add('loading'); }
    try {
      await load();
      if (!wasLoaded && position > 0) audio.currentTime = position;
      if (audio.ended) audio.currentTime = 0;
      await audio.play();
    } catch (error) {
      if (error && error.name === 'AbortError') return;   // paused before it started
      status.textContent = t('voice.error.play');
    } finally {
      root.classList.remove('loading');
      render();
    }
  }

  async function seek(seconds) {
    const total = durationMs / 1000;
    const target = Math.max(0, Math.min(total, seconds));
    position = target;
    if (!audio.src) {
      render();
      try { await load(); } catch { status.textContent = t('voice.error.play'); return; }
    }
    audio.currentTime = target;
    render();
  }

  button.addEventListener('click', () => {
    if (!audio.paused && !audio.ended) audio.pause();
    else play();
  });
  wave.addEventListener('click', (event) => {
    const rect = wave.getBoundingClientRect();
    if (!rect.width) return;
    seek(((event.clientX - rect.left) / rect.width) * (durationMs / 1000));
  });
  wave.addEventListener('keydown', (event) => {
    const total = durationMs / 1000;
    const steps = { ArrowRight: SEEK_STEP_S, ArrowUp: SEEK_STEP_S, ArrowLeft: -SEEK_STEP_S, ArrowDown: -SEEK_STEP_S,
      PageUp: total / 10, PageDown: -total / 10 };
    if (event.key in steps) { event.preventDefault(); seek(current() + steps[event.key]); }
    else if (event.key === 'Home') { event.preventDefault(); seek(0); }
    else if (event.key === 'End') { event.preventDefault(); seek(total); }
    else if (event.key === ' ' || event.key === 'Enter') { event.preventDefault(); button.click(); }
  });
  for (const name of ['play', 'pause', 'timeupdate', 'seeked', 'ended']) audio.addEventListener(name, render);
  audio.addEventListener('ended', () => { if (playing === player) playing = null; position = 0; });
  audio.addEventListener('error', () => { if (audio.src) status.textContent = t('voice.error.play'); });

  if (voiceId !== undefined && voiceId !== null) observe(root, () => { load().catch(() => {}); });
  render();
  return root;
}
