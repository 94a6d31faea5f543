// This source file is part of the Switchboard open source project
// SPDX-License-Identifier: Apache-2.0
//
// The terminal client's media engine: GStreamer's webrtcbin, loaded at run time with dlopen so that the client
// builds and runs (signalling only) where GStreamer is not installed, and so that nothing of it is linked by the
// server. The engine owns one pipeline; GStreamer calls back from its own threads through `sbwr_callback`
// (the Swift side hops onto its media queue). Every function here may be called from any one thread at a time
// (the Swift wrapper calls them on its serial media queue).
#ifndef CWEBRTCMEDIA_H
#define CWEBRTCMEDIA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Loads GStreamer (core, SDP, WebRTC) and checks the elements a call needs. Returns 0 when media can be used;
/// otherwise a non-zero value and a sentence in `error` saying what is missing. Idempotent, thread-safe.
int sbwr_load(char *error, size_t error_capacity);

/// What the engine reports (the `kind` of a callback).
enum sbwr_event {
    /// `text`: the local SDP (an offer when `number` is 0, an answer when 1), already set as the local description.
    SBWR_LOCAL_DESCRIPTION = 1,
    /// `text`: a local ICE candidate line (`candidate:...`), `number`: its m-line index.
    SBWR_LOCAL_CANDIDATE = 2,
    /// `text`: what failed (an error posted by an element, or a refused description).
    SBWR_ERROR = 3,
    /// The first RTP of a remote stream arrived; `text`: "audio" or "video".
    SBWR_REMOTE_MEDIA = 4,
    /// `text`: the new ICE connection state name; `number`: its value.
    SBWR_ICE_STATE = 5,
    /// A file being played (`sbwr_set_audio_pcm` without looping) has ended.
    SBWR_PLAYBACK_ENDED = 6,
    /// A warning posted by an element (`text`).
    SBWR_WARNING = 7,
};

typedef void (*sbwr_callback)(void *context, int kind, const char *text, int number);

typedef struct sbwr_engine sbwr_engine;

/// Builds the pipeline from `description` (gst-launch syntax; it must contain a `webrtcbin name=sbwebrtc` and may
/// contain `appsrc name=sbpcm` (fed by `sbwr_set_audio_pcm`) and `valve` elements named `sbvalve*` (hold)).
/// Received streams are linked into a bin built from `audio_receive` or `video_receive` (gst-launch syntax, one
/// unlinked sink pad; a `level` element reports the audio level, a `fakesink name=sbframes signal-handoffs=true`
/// counts video frames, `filesink` elements named `sbrec*` are finished by `sbwr_finish`).
/// `stun` ("stun://host:port") and `turn` ("turn://user:pass@host:port", several separated by spaces) may be NULL.
/// `local_addresses` (IP addresses separated by spaces, loopback allowed) restricts host candidates to them; NULL:
/// every interface but loopback (libnice's default).
/// Returns NULL and a sentence in `error` on failure.
sbwr_engine *sbwr_engine_new(const char *description, const char *audio_receive, const char *video_receive,
                             const char *stun, const char *turn, int relay_only, const char *local_addresses,
                             sbwr_callback callback, void *context, char *error, size_t error_capacity);

/// Sets the pipeline playing. 0 on success.
int sbwr_start(sbwr_engine *engine, char *error, size_t error_capacity);

/// Creates an offer; it arrives as SBWR_LOCAL_DESCRIPTION (number 0).
void sbwr_create_offer(sbwr_engine *engine);

/// Sets the remote description: `is_offer` 1 for an offer (an answer then arrives as SBWR_LOCAL_DESCRIPTION with
/// number 1), 0 for an answer. Returns 0, or -1 when the SDP does not parse.
int sbwr_set_remote(sbwr_engine *engine, int is_offer, const char *sdp);

/// Adds a remote ICE candidate for m-line `mline`.
void sbwr_add_candidate(sbwr_engine *engine, int mline, const char *candidate);

/// Sends (0) or stops sending (1) media through the `sbvalve*` elements.
void sbwr_set_hold(sbwr_engine *engine, int hold);

/// Audio to send through `appsrc name=sbpcm`: 16-bit signed little-endian mono PCM at 48 kHz (copied), paced in
/// real time by the engine's own thread, 20 ms at a time; repeated when `loop`, else silence after the end.
void sbwr_set_audio_pcm(sbwr_engine *engine, const int16_t *samples, size_t count, int loop);

/// A snapshot of the call's figures (what `get-stats` says, summed over streams, and what the engine counted).
typedef struct sbwr_stats {
    int ice_state;                 ///< GstWebRTCICEConnectionState
    int connection_state;          ///< GstWebRTCPeerConnectionState
    char local_candidate_type[16]; ///< of the selected pair: host, srflx, prflx, relay ("" when unknown)
    char remote_candidate_type[16];
    double rtt_seconds;            ///< < 0 when unknown (RTCP receiver reports, else the ICE pair's)
    double jitter_seconds;         ///< < 0 when unknown (the highest of the received streams, as seen by us)
    uint64_t packets_received;
    int64_t packets_lost;          ///< inbound, as seen by us
    uint64_t bytes_received;
    uint64_t bytes_sent;
    uint64_t packets_sent;
    double remote_fraction_lost;   ///< < 0 when unknown: what the peer reports about our stream (0-1)
    int64_t remote_packets_lost;   ///< what the peer reports about our stream; < 0 when unknown
    double audio_level_db;         ///< received audio RMS in dBFS (-inf-ish: < -120 when silent); NAN when unknown
    uint64_t video_frames_received;
    int remote_audio;              ///< a remote audio stream arrived
    int remote_video;
} sbwr_stats;

/// Fills `stats` (waits for webrtcbin's answer up to `timeout_ms`). 0 on success.
int sbwr_get_stats(sbwr_engine *engine, sbwr_stats *stats, int timeout_ms);

/// The whole `get-stats` reply as text (for debugging; free with sbwr_free_string), or NULL.
char *sbwr_stats_text(sbwr_engine *engine, int timeout_ms);
void sbwr_free_string(char *text);

/// Ends the received streams (so recordings are complete files) and waits for the recording sinks up to
/// `timeout_ms`. Returns 0 when every recording finished.
int sbwr_finish(sbwr_engine *engine, int timeout_ms);

/// Stops the pipeline and its threads and frees the engine; no callback comes after it returns.
void sbwr_engine_free(sbwr_engine *engine);

/// Runs a separate pipeline (gst-launch syntax) to its end: 0 on EOS, -1 and a sentence in `error` on an error or
/// after `timeout_ms`. Used to decode a file to play into raw PCM.
int sbwr_run_to_end(const char *description, int timeout_ms, char *error, size_t error_capacity);

#ifdef __cplusplus
}
#endif

#endif
