// This source file is part of the Switchboard open source project
// SPDX-License-Identifier: Apache-2.0
//
// The terminal client's media engine over GStreamer's webrtcbin, opened with dlopen (see CWebRTCMedia.h).
//
// Threads: the caller (the Swift media queue) calls the sbwr_* functions one at a time; GStreamer calls the
// signal handlers and promise callbacks below from its streaming threads; the engine runs two threads of its own:
// `bus_thread` (errors, warnings, audio levels) and `pcm_thread` (paces `appsrc name=sbpcm`). State touched by
// more than one of them is under `engine->lock`; the callback pointer and the element pointers are set before any
// thread starts and never change until sbwr_engine_free, which stops the pipeline (joining GStreamer's threads)
// and its own threads before freeing.

#include "CWebRTCMedia.h"
#include "gst_abi.h"

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// MARK: - The library, opened once

static struct {
    // glib / gobject
    void (*g_free)(gpointer);
    void (*g_error_free)(GError *);
    gulong (*g_signal_connect_data)(gpointer, const gchar *, void (*)(void), gpointer, void *, int);
    void (*g_signal_emit_by_name)(gpointer, const gchar *, ...);
    void (*g_object_set)(gpointer, const gchar *, ...);
    void (*g_object_get)(gpointer, const gchar *, ...);
    void (*g_object_unref)(gpointer);
    gpointer (*g_value_get_boxed)(const GValue *);
    gpointer (*g_value_array_get_nth)(gpointer, guint);
    double (*g_value_get_double)(const GValue *);
    const gchar *(*g_quark_to_string)(GQuark);
    guint (*g_log_set_handler)(const gchar *, guint, void (*)(const gchar *, guint, const gchar *, gpointer), gpointer);
    void (*g_log_default_handler)(const gchar *, guint, const gchar *, gpointer);
    // gstreamer
    gboolean (*gst_init_check)(int *, char ***, GError **);
    GstElement *(*gst_parse_launch)(const gchar *, GError **);
    GstElement *(*gst_parse_bin_from_description)(const gchar *, gboolean, GError **);
    GstElement *(*gst_bin_get_by_name)(GstElement *, const gchar *);
    gboolean (*gst_bin_add)(GstElement *, GstElement *);
    int (*gst_element_set_state)(GstElement *, int);
    GstBus *(*gst_element_get_bus)(GstElement *);
    gboolean (*gst_element_sync_state_with_parent)(GstElement *);
    GstPad *(*gst_element_get_static_pad)(GstElement *, const gchar *);
    void (*gst_object_unref)(gpointer);
    gchar *(*gst_object_get_name)(gpointer);
    int (*gst_pad_get_direction)(GstPad *);
    GstCaps *(*gst_pad_get_current_caps)(GstPad *);
    GstCaps *(*gst_pad_query_caps)(GstPad *, GstCaps *);
    int (*gst_pad_link)(GstPad *, GstPad *);
    gboolean (*gst_pad_send_event)(GstPad *, GstEvent *);
    gulong (*gst_pad_add_probe)(GstPad *, guint, GstPadProbeCallback, gpointer, void *);
    GstStructure *(*gst_caps_get_structure)(const GstCaps *, guint);
    void (*gst_mini_object_unref)(gpointer);
    const gchar *(*gst_structure_get_string)(const GstStructure *, const gchar *);
    const gchar *(*gst_structure_get_name)(const GstStructure *);
    const GValue *(*gst_structure_get_value)(const GstStructure *, const gchar *);
    gboolean (*gst_structure_get_double)(const GstStructure *, const gchar *, double *);
    gboolean (*gst_structure_get_uint64)(const GstStructure *, const gchar *, uint64_t *);
    gboolean (*gst_structure_get_int64)(const GstStructure *, const gchar *, int64_t *);
    gboolean (*gst_structure_get_uint)(const GstStructure *, const gchar *, guint *);
    gboolean (*gst_structure_get_int)(const GstStructure *, const gchar *, gint *);
    gboolean (*gst_structure_foreach)(const GstStructure *, GstStructureForeachFunc, gpointer);
    gchar *(*gst_structure_to_string)(const GstStructure *);
    const GstStructure *(*gst_value_get_structure)(const GValue *);
    GstPromise *(*gst_promise_new)(void);
    GstPromise *(*gst_promise_new_with_change_func)(GstPromiseChangeFunc, gpointer, void *);
    int (*gst_promise_wait)(GstPromise *);
    const GstStructure *(*gst_promise_get_reply)(GstPromise *);
    void (*gst_promise_interrupt)(GstPromise *);
    GstMessage *(*gst_bus_timed_pop_filtered)(GstBus *, GstClockTime, guint);
    void (*gst_message_parse_error)(GstMessage *, GError **, gchar **);
    void (*gst_message_parse_warning)(GstMessage *, GError **, gchar **);
    const GstStructure *(*gst_message_get_structure)(GstMessage *);
    GstElementFactory *(*gst_element_factory_find)(const gchar *);
    GstEvent *(*gst_event_new_eos)(void);
    GstBuffer *(*gst_buffer_new_allocate)(gpointer, size_t, gpointer);
    size_t (*gst_buffer_fill)(GstBuffer *, size_t, const void *, size_t);
    // SDP and WebRTC
    int (*gst_sdp_message_new_from_text)(const gchar *, GstSDPMessage **);
    gchar *(*gst_sdp_message_as_text)(const GstSDPMessage *);
    GstWebRTCSessionDescription *(*gst_webrtc_session_description_new)(int, GstSDPMessage *);
    void (*gst_webrtc_session_description_free)(GstWebRTCSessionDescription *);
    // libnice (webrtcbin's ICE agent), for pinning the local addresses
    gpointer (*nice_address_new)(void);
    gboolean (*nice_address_set_from_string)(gpointer, const gchar *);
    void (*nice_address_free)(gpointer);
    gboolean (*nice_agent_add_local_address)(gpointer, gpointer);
} G;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int load_status = -1;
static char load_error[512];

static void set_error(char *error, size_t capacity, const char *format, ...) {
    if (!error || capacity == 0) return;
    va_list args;
    va_start(args, format);
    vsnprintf(error, capacity, format, args);
    va_end(args);
}

#define INSTALL_HINT "install it with: apt-get install gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad gstreamer1.0-nice"

static void *open_library(const char *name) {
    void *handle = dlopen(name, RTLD_NOW | RTLD_GLOBAL);
    if (!handle) set_error(load_error, sizeof load_error, "GStreamer is not installed (%s not found); " INSTALL_HINT, name);
    return handle;
}

#define RESOLVE(lib, fn) do { \
        *(void **)&G.fn = dlsym(lib, #fn); \
        if (!G.fn) { set_error(load_error, sizeof load_error, "GStreamer is too old or incomplete (%s missing); " INSTALL_HINT, #fn); return; } \
    } while (0)

/// libnice warns on stderr when an agent with TURN allocations is freed without its asynchronous close, which is
/// how webrtcbin 1.22 tears down: harmless at the end of a call, so that one warning is dropped.
static void nice_log(const gchar *domain, guint level, const gchar *message, gpointer data) {
    if (message && strstr(message, "alive TURN refreshes")) return;
    G.g_log_default_handler(domain, level, message, data);
}

static void load(void) {
    void *glib = open_library("libglib-2.0.so.0");
    if (!glib) return;
    void *gobject = open_library("libgobject-2.0.so.0");
    if (!gobject) return;
    void *gst = open_library("libgstreamer-1.0.so.0");
    if (!gst) return;
    void *gstbase = open_library("libgstbase-1.0.so.0");
    if (!gstbase) return;
    void *sdp = open_library("libgstsdp-1.0.so.0");
    if (!sdp) return;
    void *webrtc = open_library("libgstwebrtc-1.0.so.0");
    if (!webrtc) return;
    void *nice = open_library("libnice.so.10");
    if (!nice) return;
    RESOLVE(glib, g_free);
    RESOLVE(glib, g_error_free);
    RESOLVE(glib, g_quark_to_string);
    RESOLVE(glib, g_log_set_handler);
    RESOLVE(glib, g_log_default_handler);
    RESOLVE(gobject, g_signal_connect_data);
    RESOLVE(gobject, g_signal_emit_by_name);
    RESOLVE(gobject, g_object_set);
    RESOLVE(gobject, g_object_get);
    RESOLVE(gobject, g_object_unref);
    RESOLVE(gobject, g_value_get_boxed);
    RESOLVE(gobject, g_value_array_get_nth);
    RESOLVE(gobject, g_value_get_double);
    RESOLVE(gst, gst_init_check);
    RESOLVE(gst, gst_parse_launch);
    RESOLVE(gst, gst_parse_bin_from_description);
    RESOLVE(gst, gst_bin_get_by_name);
    RESOLVE(gst, gst_bin_add);
    RESOLVE(gst, gst_element_set_state);
    RESOLVE(gst, gst_element_get_bus);
    RESOLVE(gst, gst_element_sync_state_with_parent);
    RESOLVE(gst, gst_element_get_static_pad);
    RESOLVE(gst, gst_object_unref);
    RESOLVE(gst, gst_object_get_name);
    RESOLVE(gst, gst_pad_get_direction);
    RESOLVE(gst, gst_pad_get_current_caps);
    RESOLVE(gst, gst_pad_query_caps);
    RESOLVE(gst, gst_pad_link);
    RESOLVE(gst, gst_pad_send_event);
    RESOLVE(gst, gst_pad_add_probe);
    RESOLVE(gst, gst_caps_get_structure);
    RESOLVE(gst, gst_mini_object_unref);
    RESOLVE(gst, gst_structure_get_string);
    RESOLVE(gst, gst_structure_get_name);
    RESOLVE(gst, gst_structure_get_value);
    RESOLVE(gst, gst_structure_get_double);
    RESOLVE(gst, gst_structure_get_uint64);
    RESOLVE(gst, gst_structure_get_int64);
    RESOLVE(gst, gst_structure_get_uint);
    RESOLVE(gst, gst_structure_get_int);
    RESOLVE(gst, gst_structure_foreach);
    RESOLVE(gst, gst_structure_to_string);
    RESOLVE(gst, gst_value_get_structure);
    RESOLVE(gst, gst_promise_new);
    RESOLVE(gst, gst_promise_new_with_change_func);
    RESOLVE(gst, gst_promise_wait);
    RESOLVE(gst, gst_promise_get_reply);
    RESOLVE(gst, gst_promise_interrupt);
    RESOLVE(gst, gst_bus_timed_pop_filtered);
    RESOLVE(gst, gst_message_parse_error);
    RESOLVE(gst, gst_message_parse_warning);
    RESOLVE(gst, gst_message_get_structure);
    RESOLVE(gst, gst_element_factory_find);
    RESOLVE(gst, gst_event_new_eos);
    RESOLVE(gst, gst_buffer_new_allocate);
    RESOLVE(gst, gst_buffer_fill);
    RESOLVE(sdp, gst_sdp_message_new_from_text);
    RESOLVE(sdp, gst_sdp_message_as_text);
    RESOLVE(webrtc, gst_webrtc_session_description_new);
    RESOLVE(webrtc, gst_webrtc_session_description_free);
    RESOLVE(nice, nice_address_new);
    RESOLVE(nice, nice_address_set_from_string);
    RESOLVE(nice, nice_address_free);
    RESOLVE(nice, nice_agent_add_local_address);
    (void)gstbase;

    G.g_log_set_handler("libnice", 1 << 4 /* G_LOG_LEVEL_WARNING */, nice_log, NULL);
    GError *error = NULL;
    if (!G.gst_init_check(NULL, NULL, &error)) {
        set_error(load_error, sizeof load_error, "GStreamer did not start: %s", error && error->message ? error->message : "unknown");
        if (error) G.g_error_free(error);
        return;
    }
    // The elements a call needs, and the package each comes in.
    static const char *const needed[][2] = {
        {"webrtcbin", "gstreamer1.0-plugins-bad"},
        {"nicesrc", "gstreamer1.0-nice"},
        {"dtlssrtpenc", "gstreamer1.0-plugins-bad"},
        {"srtpenc", "gstreamer1.0-plugins-bad"},
        {"rtpopuspay", "gstreamer1.0-plugins-good"},
        {"rtpvp8pay", "gstreamer1.0-plugins-good"},
        {"opusenc", "gstreamer1.0-plugins-base"},
        {"vp8enc", "gstreamer1.0-plugins-good"},
        {"audiotestsrc", "gstreamer1.0-plugins-base"},
        {"level", "gstreamer1.0-plugins-good"},
        {"oggmux", "gstreamer1.0-plugins-base"},
        {"webmmux", "gstreamer1.0-plugins-good"},
        {"wavenc", "gstreamer1.0-plugins-good"},
        {"decodebin", "gstreamer1.0-plugins-base"},
        {"appsrc", "gstreamer1.0-plugins-base"},
    };
    for (size_t i = 0; i < sizeof needed / sizeof needed[0]; i++) {
        GstElementFactory *factory = G.gst_element_factory_find(needed[i][0]);
        if (!factory) {
            set_error(load_error, sizeof load_error, "GStreamer's %s element is missing (package %s); " INSTALL_HINT, needed[i][0], needed[i][1]);
            return;
        }
        G.gst_object_unref(factory);
    }
    load_status = 0;
}

int sbwr_load(char *error, size_t error_capacity) {
    pthread_once(&load_once, load);
    if (load_status != 0) set_error(error, error_capacity, "%s", load_error);
    return load_status;
}

// MARK: - The engine

#define SBWR_MAX_RECEIVERS 8
#define SBWR_MAX_RECORDINGS 8

struct sbwr_engine {
    GstElement *pipeline;      // owned; set once
    GstElement *webrtc;        // owned reference; set once
    GstElement *pcm_source;    // owned reference or NULL; set once
    GstBus *bus;               // owned; set once
    sbwr_callback callback;    // set once
    void *context;             // set once
    char *audio_receive;       // owned; set once
    char *video_receive;       // owned; set once

    pthread_mutex_t lock;
    pthread_cond_t changed;
    // Under `lock`:
    int stopping;
    int finishing;
    GstPad *receivers[SBWR_MAX_RECEIVERS]; // the receive bins' sink pads (owned references)
    int receiver_count;
    int recordings;                         // recording sinks linked
    int recordings_done;                    // recording sinks that saw EOS
    int remote_audio, remote_video;
    double audio_level_db;                  // NAN until the level element reported
    uint64_t video_frames;
    int16_t *pcm;                           // owned
    size_t pcm_count;
    int pcm_loop;
    int pcm_generation;

    pthread_t bus_thread;
    int bus_thread_started;                 // written before the thread starts and read in free
    pthread_t pcm_thread;
    int pcm_thread_started;
};

static void report(sbwr_engine *engine, int kind, const char *text, int number) {
    engine->callback(engine->context, kind, text ? text : "", number);
}

static int stopping(sbwr_engine *engine) {
    pthread_mutex_lock(&engine->lock);
    int s = engine->stopping || engine->finishing;
    pthread_mutex_unlock(&engine->lock);
    return s;
}

// MARK: Signalling

static void on_negotiation_needed(GstElement *webrtc, gpointer data) {
    (void)webrtc;
    (void)data; // The Swift side decides when to offer (the caller offers once; an answerer never does).
}

static void on_ice_candidate(GstElement *webrtc, guint mline, gchar *candidate, gpointer data) {
    (void)webrtc;
    sbwr_engine *engine = data;
    report(engine, SBWR_LOCAL_CANDIDATE, candidate, (int)mline);
}

static void on_ice_state(GstElement *webrtc, gpointer pspec, gpointer data) {
    (void)pspec;
    sbwr_engine *engine = data;
    gint state = 0;
    G.g_object_get(webrtc, "ice-connection-state", &state, NULL);
    static const char *const names[] = {"new", "checking", "connected", "completed", "failed", "disconnected", "closed"};
    report(engine, SBWR_ICE_STATE, state >= 0 && state < 7 ? names[state] : "unknown", state);
}

/// The RTP sessions' RTCP interval. GStreamer's default minimum is RFC 3550's 5 s (the first report after 2.5 s),
/// so a short call sees one or two round trips, and the first can be far off: webrtcbin holds what it sends until
/// the DTLS handshake completes, and a sender report made before then leaves late, so the receiver report that
/// answers it measures the handshake's wait too (3.1 s after a handshake that lost packets, CI 2026-11-28). With
/// one report a second (RFC 4585 allows less for AVPF sessions; it is ~100 bytes a second) the figure is renewed
/// every second and a held report is replaced within a second or two.
#define SBWR_RTCP_MIN_INTERVAL_NS ((uint64_t)1000000000u)

static void tune_rtp_session(GstElement *element) {
    gchar *name = G.gst_object_get_name(element);
    // rtpbin names its sessions rtpsession<id>
    if (name && strncmp(name, "rtpsession", 10) == 0) {
        G.g_object_set(element, "rtcp-min-interval", SBWR_RTCP_MIN_INTERVAL_NS, NULL);
    }
    G.g_free(name);
}

static void on_deep_element_added(GstElement *bin, GstElement *sub_bin, GstElement *element, gpointer data) {
    (void)bin;
    (void)sub_bin;
    (void)data;
    tune_rtp_session(element);
}

/// Sets `description` as the local one and reports its text.
static void use_local_description(sbwr_engine *engine, GstPromise *promise, const char *field, int is_answer) {
    const GstStructure *reply = G.gst_promise_get_reply(promise);
    const GValue *value = reply ? G.gst_structure_get_value(reply, field) : NULL;
    GstWebRTCSessionDescription *description = value ? G.g_value_get_boxed(value) : NULL;
    if (!description) {
        const GValue *error = reply ? G.gst_structure_get_value(reply, "error") : NULL;
        GError *e = error ? G.g_value_get_boxed(error) : NULL;
        char text[300];
        snprintf(text, sizeof text, "webrtcbin did not create an %s: %s", field, e && e->message ? e->message : "no reason given");
        report(engine, SBWR_ERROR, text, 0);
        return;
    }
    G.g_signal_emit_by_name(engine->webrtc, "set-local-description", description, NULL);
    gchar *sdp = G.gst_sdp_message_as_text(description->sdp);
    report(engine, SBWR_LOCAL_DESCRIPTION, sdp, is_answer);
    G.g_free(sdp);
}

static void on_offer_created(GstPromise *promise, gpointer data) {
    sbwr_engine *engine = data;
    if (!stopping(engine)) use_local_description(engine, promise, "offer", 0);
    G.gst_mini_object_unref(promise);
}

static void on_answer_created(GstPromise *promise, gpointer data) {
    sbwr_engine *engine = data;
    if (!stopping(engine)) use_local_description(engine, promise, "answer", 1);
    G.gst_mini_object_unref(promise);
}

/// Reports a refused remote description (`what`: "offer" or "answer"); 1 when it was refused.
static int remote_refused(sbwr_engine *engine, GstPromise *promise, const char *what) {
    const GstStructure *reply = G.gst_promise_get_reply(promise);
    const GValue *error = reply ? G.gst_structure_get_value(reply, "error") : NULL;
    if (!error) return 0;
    GError *e = G.g_value_get_boxed(error);
    char text[300];
    snprintf(text, sizeof text, "the remote %s was refused: %s", what, e && e->message ? e->message : "no reason given");
    report(engine, SBWR_ERROR, text, 0);
    return 1;
}

static void on_remote_offer_set(GstPromise *promise, gpointer data) {
    sbwr_engine *engine = data;
    if (!remote_refused(engine, promise, "offer") && !stopping(engine)) {
        GstPromise *next = G.gst_promise_new_with_change_func(on_answer_created, engine, NULL);
        G.g_signal_emit_by_name(engine->webrtc, "create-answer", NULL, next);
    }
    G.gst_mini_object_unref(promise);
}

static void on_remote_answer_set(GstPromise *promise, gpointer data) {
    remote_refused(data, promise, "answer");
    G.gst_mini_object_unref(promise);
}

void sbwr_create_offer(sbwr_engine *engine) {
    GstPromise *promise = G.gst_promise_new_with_change_func(on_offer_created, engine, NULL);
    G.g_signal_emit_by_name(engine->webrtc, "create-offer", NULL, promise);
}

int sbwr_set_remote(sbwr_engine *engine, int is_offer, const char *sdp) {
    GstSDPMessage *message = NULL;
    if (G.gst_sdp_message_new_from_text(sdp, &message) != GST_SDP_OK || !message) return -1;
    GstWebRTCSessionDescription *description =
        G.gst_webrtc_session_description_new(is_offer ? GST_WEBRTC_SDP_TYPE_OFFER : GST_WEBRTC_SDP_TYPE_ANSWER, message);
    GstPromise *promise = G.gst_promise_new_with_change_func(is_offer ? on_remote_offer_set : on_remote_answer_set, engine, NULL);
    G.g_signal_emit_by_name(engine->webrtc, "set-remote-description", description, promise);
    G.gst_webrtc_session_description_free(description);
    return 0;
}

void sbwr_add_candidate(sbwr_engine *engine, int mline, const char *candidate) {
    G.g_signal_emit_by_name(engine->webrtc, "add-ice-candidate", (guint)mline, candidate);
}

// MARK: Received streams

static guint on_recording_event(GstPad *pad, GstPadProbeInfoHead *info, gpointer data) {
    (void)pad;
    sbwr_engine *engine = data;
    GstEventHead *event = info->data;
    if (event && event->type == GST_EVENT_EOS) {
        pthread_mutex_lock(&engine->lock);
        engine->recordings_done += 1;
        pthread_cond_broadcast(&engine->changed);
        pthread_mutex_unlock(&engine->lock);
    }
    return GST_PAD_PROBE_OK;
}

static void on_video_frame(GstElement *sink, GstBuffer *buffer, GstPad *pad, gpointer data) {
    (void)sink, (void)buffer, (void)pad;
    sbwr_engine *engine = data;
    pthread_mutex_lock(&engine->lock);
    engine->video_frames += 1;
    pthread_mutex_unlock(&engine->lock);
}

/// Watches the `sbrec*` filesinks and the `sbframes` counter of a new receive bin.
static void watch_receive_bin(sbwr_engine *engine, GstElement *bin) {
    char name[16];
    for (int i = 0; i < SBWR_MAX_RECORDINGS; i++) {
        snprintf(name, sizeof name, i == 0 ? "sbrec" : "sbrec%d", i);
        GstElement *sink = G.gst_bin_get_by_name(bin, name);
        if (!sink) continue;
        GstPad *pad = G.gst_element_get_static_pad(sink, "sink");
        if (pad) {
            G.gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, on_recording_event, engine, NULL);
            pthread_mutex_lock(&engine->lock);
            engine->recordings += 1;
            pthread_mutex_unlock(&engine->lock);
            G.gst_object_unref(pad);
        }
        G.gst_object_unref(sink);
    }
    GstElement *frames = G.gst_bin_get_by_name(bin, "sbframes");
    if (frames) {
        G.g_signal_connect_data(frames, "handoff", (void (*)(void))on_video_frame, engine, NULL, G_CONNECT_DEFAULT);
        G.gst_object_unref(frames);
    }
}

static void on_pad_added(GstElement *webrtc, GstPad *pad, gpointer data) {
    (void)webrtc;
    sbwr_engine *engine = data;
    if (G.gst_pad_get_direction(pad) != GST_PAD_SRC || stopping(engine)) return;
    GstCaps *caps = G.gst_pad_get_current_caps(pad);
    if (!caps) caps = G.gst_pad_query_caps(pad, NULL);
    const char *media = NULL;
    if (caps) {
        GstStructure *s = G.gst_caps_get_structure(caps, 0);
        media = s ? G.gst_structure_get_string(s, "media") : NULL;
    }
    int is_video = media && strcmp(media, "video") == 0;
    int is_audio = media && strcmp(media, "audio") == 0;
    const char *description = is_video ? engine->video_receive : is_audio ? engine->audio_receive : NULL;
    if (!description) {
        description = "fakesink sync=false async=false";
    }
    GError *error = NULL;
    GstElement *bin = G.gst_parse_bin_from_description(description, 1, &error);
    if (!bin) {
        char text[400];
        snprintf(text, sizeof text, "cannot build the receiving pipeline for %s: %s", media ? media : "a stream", error && error->message ? error->message : "?");
        if (error) G.g_error_free(error);
        report(engine, SBWR_ERROR, text, 0);
        if (caps) G.gst_mini_object_unref(caps);
        return;
    }
    if (error) G.g_error_free(error);
    G.gst_bin_add(engine->pipeline, bin); // takes the floating reference
    watch_receive_bin(engine, bin);
    G.gst_element_sync_state_with_parent(bin);
    GstPad *sink = G.gst_element_get_static_pad(bin, "sink");
    int linked = sink && G.gst_pad_link(pad, sink) == GST_PAD_LINK_OK;
    if (sink) {
        pthread_mutex_lock(&engine->lock);
        if (linked && engine->receiver_count < SBWR_MAX_RECEIVERS) {
            engine->receivers[engine->receiver_count++] = sink;
            sink = NULL;
        }
        if (is_audio) engine->remote_audio = 1;
        if (is_video) engine->remote_video = 1;
        pthread_mutex_unlock(&engine->lock);
        if (sink) G.gst_object_unref(sink);
    }
    if (caps) G.gst_mini_object_unref(caps);
    if (!linked) {
        report(engine, SBWR_ERROR, "cannot link a received stream", 0);
        return;
    }
    report(engine, SBWR_REMOTE_MEDIA, is_video ? "video" : is_audio ? "audio" : "other", 0);
}

// MARK: The bus

static void *bus_main(void *data) {
    sbwr_engine *engine = data;
    for (;;) {
        pthread_mutex_lock(&engine->lock);
        int stop = engine->stopping;
        pthread_mutex_unlock(&engine->lock);
        if (stop) break;
        GstMessage *message = G.gst_bus_timed_pop_filtered(engine->bus, 100 * GST_MSECOND,
                                                            GST_MESSAGE_ERROR | GST_MESSAGE_WARNING | GST_MESSAGE_ELEMENT);
        if (!message) continue;
        guint type = ((GstMessageHead *)message)->type;
        if (type == GST_MESSAGE_ERROR || type == GST_MESSAGE_WARNING) {
            GError *error = NULL;
            gchar *debug = NULL;
            if (type == GST_MESSAGE_ERROR) G.gst_message_parse_error(message, &error, &debug);
            else G.gst_message_parse_warning(message, &error, &debug);
            if (!stopping(engine)) report(engine, type == GST_MESSAGE_ERROR ? SBWR_ERROR : SBWR_WARNING, error && error->message ? error->message : "unknown", 0);
            if (error) G.g_error_free(error);
            if (debug) G.g_free(debug);
        } else {
            const GstStructure *s = G.gst_message_get_structure(message);
            const char *name = s ? G.gst_structure_get_name(s) : NULL;
            if (name && strcmp(name, "level") == 0) {
                const GValue *rms = G.gst_structure_get_value(s, "rms");
                gpointer array = rms ? G.g_value_get_boxed(rms) : NULL;
                const GValue *first = array ? G.g_value_array_get_nth(array, 0) : NULL;
                if (first) {
                    double db = G.g_value_get_double(first);
                    pthread_mutex_lock(&engine->lock);
                    engine->audio_level_db = db;
                    pthread_mutex_unlock(&engine->lock);
                }
            }
        }
        G.gst_mini_object_unref(message);
    }
    return NULL;
}

// MARK: Audio from a file

static void sleep_until(struct timespec *deadline) {
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, deadline, NULL) == EINTR) {}
}

static void *pcm_main(void *data) {
    sbwr_engine *engine = data;
    enum { chunk = 960 }; // 20 ms at 48 kHz
    int16_t samples[chunk];
    size_t position = 0;
    int generation = -1;
    int ended_reported = 0;
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    for (;;) {
        pthread_mutex_lock(&engine->lock);
        if (engine->stopping) {
            pthread_mutex_unlock(&engine->lock);
            break;
        }
        if (generation != engine->pcm_generation) {
            generation = engine->pcm_generation;
            position = 0;
            ended_reported = 0;
        }
        size_t filled = 0;
        int ended_now = 0;
        while (filled < chunk) {
            if (position >= engine->pcm_count) {
                if (engine->pcm_loop && engine->pcm_count > 0) {
                    position = 0;
                    continue;
                }
                memset(samples + filled, 0, (chunk - filled) * sizeof(int16_t));
                if (!ended_reported && engine->pcm_count > 0) ended_now = 1;
                filled = chunk;
                break;
            }
            size_t take = engine->pcm_count - position;
            if (take > chunk - filled) take = chunk - filled;
            memcpy(samples + filled, engine->pcm + position, take * sizeof(int16_t));
            position += take;
            filled += take;
        }
        pthread_mutex_unlock(&engine->lock);
        if (ended_now) {
            ended_reported = 1;
            report(engine, SBWR_PLAYBACK_ENDED, "", 0);
        }
        GstBuffer *buffer = G.gst_buffer_new_allocate(NULL, sizeof samples, NULL);
        if (buffer) {
            G.gst_buffer_fill(buffer, 0, samples, sizeof samples);
            int flow = 0;
            G.g_signal_emit_by_name(engine->pcm_source, "push-buffer", buffer, &flow);
            G.gst_mini_object_unref(buffer);
        }
        next.tv_nsec += 20 * 1000000L;
        if (next.tv_nsec >= 1000000000L) {
            next.tv_sec += 1;
            next.tv_nsec -= 1000000000L;
        }
        sleep_until(&next);
    }
    return NULL;
}

void sbwr_set_audio_pcm(sbwr_engine *engine, const int16_t *samples, size_t count, int loop) {
    int16_t *copy = count ? malloc(count * sizeof(int16_t)) : NULL;
    if (count && !copy) return;
    if (copy) memcpy(copy, samples, count * sizeof(int16_t));
    pthread_mutex_lock(&engine->lock);
    free(engine->pcm);
    engine->pcm = copy;
    engine->pcm_count = copy ? count : 0;
    engine->pcm_loop = loop;
    engine->pcm_generation += 1;
    pthread_mutex_unlock(&engine->lock);
}

// MARK: Life

/// Gives webrtcbin's libnice agent `addresses` (space-separated) as its only local addresses.
static int pin_local_addresses(GstElement *webrtc, const char *addresses, char *error, size_t error_capacity) {
    gpointer ice = NULL;
    G.g_object_get(webrtc, "ice-agent", &ice, NULL);
    gpointer agent = NULL;
    if (ice) G.g_object_get(ice, "agent", &agent, NULL);
    if (!agent) {
        if (ice) G.g_object_unref(ice);
        set_error(error, error_capacity, "this webrtcbin's ICE agent is not libnice: local addresses cannot be chosen");
        return -1;
    }
    int status = 0;
    char *copy = strdup(addresses);
    char *saved = NULL;
    for (char *ip = strtok_r(copy, " ", &saved); ip; ip = strtok_r(NULL, " ", &saved)) {
        gpointer address = G.nice_address_new();
        if (!G.nice_address_set_from_string(address, ip) || !G.nice_agent_add_local_address(agent, address)) {
            set_error(error, error_capacity, "not a usable local IP address: %s", ip);
            status = -1;
        }
        G.nice_address_free(address);
        if (status) break;
    }
    free(copy);
    G.g_object_unref(agent);
    G.g_object_unref(ice);
    return status;
}

sbwr_engine *sbwr_engine_new(const char *description, const char *audio_receive, const char *video_receive,
                             const char *stun, const char *turn, int relay_only, const char *local_addresses,
                             sbwr_callback callback, void *context, char *error, size_t error_capacity) {
    if (sbwr_load(error, error_capacity) != 0) return NULL;
    GError *parse_error = NULL;
    GstElement *pipeline = G.gst_parse_launch(description, &parse_error);
    if (!pipeline || parse_error) {
        set_error(error, error_capacity, "cannot build the media pipeline: %s", parse_error && parse_error->message ? parse_error->message : "?");
        if (parse_error) G.g_error_free(parse_error);
        if (pipeline) G.gst_object_unref(pipeline);
        return NULL;
    }
    GstElement *webrtc = G.gst_bin_get_by_name(pipeline, "sbwebrtc");
    if (!webrtc) {
        set_error(error, error_capacity, "the media pipeline has no webrtcbin named sbwebrtc");
        G.gst_object_unref(pipeline);
        return NULL;
    }
    if (local_addresses && *local_addresses && pin_local_addresses(webrtc, local_addresses, error, error_capacity) != 0) {
        G.gst_object_unref(webrtc);
        G.gst_object_unref(pipeline);
        return NULL;
    }
    sbwr_engine *engine = calloc(1, sizeof *engine);
    if (!engine) {
        G.gst_object_unref(webrtc);
        G.gst_object_unref(pipeline);
        set_error(error, error_capacity, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&engine->lock, NULL);
    pthread_condattr_t attributes;
    pthread_condattr_init(&attributes);
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC);
    pthread_cond_init(&engine->changed, &attributes);
    pthread_condattr_destroy(&attributes);
    engine->pipeline = pipeline;
    engine->webrtc = webrtc;
    engine->callback = callback;
    engine->context = context;
    engine->audio_receive = audio_receive ? strdup(audio_receive) : NULL;
    engine->video_receive = video_receive ? strdup(video_receive) : NULL;
    engine->audio_level_db = NAN;
    engine->pcm_source = G.gst_bin_get_by_name(pipeline, "sbpcm");
    engine->bus = G.gst_element_get_bus(pipeline);

    G.g_object_set(webrtc, "bundle-policy", 3 /* max-bundle */, NULL);
    if (relay_only) G.g_object_set(webrtc, "ice-transport-policy", 1 /* relay */, NULL);
    if (stun && *stun) G.g_object_set(webrtc, "stun-server", stun, NULL);
    if (turn && *turn) {
        char *copy = strdup(turn);
        char *saved = NULL;
        for (char *uri = strtok_r(copy, " ", &saved); uri; uri = strtok_r(NULL, " ", &saved)) {
            gboolean added = 0;
            G.g_signal_emit_by_name(webrtc, "add-turn-server", uri, &added);
        }
        free(copy);
    }
    G.g_signal_connect_data(webrtc, "on-negotiation-needed", (void (*)(void))on_negotiation_needed, engine, NULL, G_CONNECT_DEFAULT);
    G.g_signal_connect_data(webrtc, "on-ice-candidate", (void (*)(void))on_ice_candidate, engine, NULL, G_CONNECT_DEFAULT);
    G.g_signal_connect_data(webrtc, "pad-added", (void (*)(void))on_pad_added, engine, NULL, G_CONNECT_DEFAULT);
    G.g_signal_connect_data(webrtc, "notify::ice-connection-state", (void (*)(void))on_ice_state, engine, NULL, G_CONNECT_DEFAULT);
    // sessions made from now on (webrtcbin makes them as transceivers appear), and any the description already made
    G.g_signal_connect_data(webrtc, "deep-element-added", (void (*)(void))on_deep_element_added, engine, NULL, G_CONNECT_DEFAULT);
    GstElement *rtpbin = G.gst_bin_get_by_name(webrtc, "rtpbin");
    if (rtpbin) {
        for (guint id = 0; id < 4; id++) {
            GstElement *session = NULL;
            G.g_signal_emit_by_name(rtpbin, "get-session", id, &session);
            if (session) {
                tune_rtp_session(session);
                G.gst_object_unref(session);
            }
        }
        G.gst_object_unref(rtpbin);
    }
    return engine;
}

int sbwr_start(sbwr_engine *engine, char *error, size_t error_capacity) {
    if (!engine->bus_thread_started) {
        if (pthread_create(&engine->bus_thread, NULL, bus_main, engine) != 0) {
            set_error(error, error_capacity, "cannot start the media bus thread");
            return -1;
        }
        engine->bus_thread_started = 1;
    }
    if (engine->pcm_source && !engine->pcm_thread_started) {
        if (pthread_create(&engine->pcm_thread, NULL, pcm_main, engine) != 0) {
            set_error(error, error_capacity, "cannot start the audio thread");
            return -1;
        }
        engine->pcm_thread_started = 1;
    }
    if (G.gst_element_set_state(engine->pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
        set_error(error, error_capacity, "the media pipeline did not start (a device or file could not be opened?)");
        return -1;
    }
    return 0;
}

void sbwr_set_hold(sbwr_engine *engine, int hold) {
    char name[16];
    for (int i = 0; i < 4; i++) {
        snprintf(name, sizeof name, i == 0 ? "sbvalve" : "sbvalve%d", i);
        GstElement *valve = G.gst_bin_get_by_name(engine->pipeline, name);
        if (!valve) continue;
        G.g_object_set(valve, "drop", hold ? 1 : 0, NULL);
        G.gst_object_unref(valve);
    }
}

// MARK: Statistics

typedef struct {
    sbwr_stats *stats;
    char selected_local[128];
    char selected_remote[128];
    double pair_rtt;
    double remote_inbound_rtt;
} stats_walk;

static int copy_string(const GstStructure *s, const char *field, char *out, size_t capacity) {
    const char *value = G.gst_structure_get_string(s, field);
    if (!value) return 0;
    snprintf(out, capacity, "%s", value);
    return 1;
}

// The stats' structure names are the W3C stats types (GStreamer 1.22): codec, transport, candidate-pair,
// local-candidate, remote-candidate, inbound-rtp, outbound-rtp, remote-inbound-rtp, remote-outbound-rtp,
// peer-connection. (1.22 names its local candidates' structures "remote-candidate" and the other way round, so
// the selected pair's candidates are found by id alone.)
static gboolean first_pass(GQuark field, const GValue *value, gpointer data) {
    (void)field;
    stats_walk *walk = data;
    const GstStructure *s = G.gst_value_get_structure(value);
    if (!s) return 1;
    const char *name = G.gst_structure_get_name(s);
    if (!name) return 1;
    sbwr_stats *stats = walk->stats;
    if (strcmp(name, "inbound-rtp") == 0) {
        uint64_t u = 0;
        int64_t i = 0;
        guint ui = 0;
        double d = 0;
        if (G.gst_structure_get_uint64(s, "packets-received", &u)) stats->packets_received += u;
        if (G.gst_structure_get_uint64(s, "bytes-received", &u)) stats->bytes_received += u;
        // Lost as we see it: the highest of webrtcbin's count, the RTP source's own (nested) and the jitter
        // buffer's. 1.22 leaves the top-level `packets-lost` out of an answering session's inbound stats (and
        // its jitter buffer stats with it); the nested `gst-rtpsource-stats` has it.
        int64_t lost = 0;
        if (G.gst_structure_get_int64(s, "packets-lost", &i)) lost = i;
        else if (G.gst_structure_get_int(s, "packets-lost", (gint *)&ui)) lost = (gint)ui;
        const GValue *source = G.gst_structure_get_value(s, "gst-rtpsource-stats");
        const GstStructure *ss = source ? G.gst_value_get_structure(source) : NULL;
        gint source_lost = 0;
        if (ss && G.gst_structure_get_int(ss, "packets-lost", &source_lost) && source_lost > lost) lost = source_lost;
        const GValue *jb = G.gst_structure_get_value(s, "gst-rtpjitterbuffer-stats");
        const GstStructure *jbs = jb ? G.gst_value_get_structure(jb) : NULL;
        if (jbs && G.gst_structure_get_uint64(jbs, "num-lost", &u) && (int64_t)u > lost) lost = (int64_t)u;
        stats->packets_lost += lost;
        // The highest of the received streams' jitter (1.22 labels every bundled stream with the first m-line's
        // kind, so audio and video cannot be told apart here).
        if (G.gst_structure_get_double(s, "jitter", &d) && d >= 0) {
            if (d > stats->jitter_seconds) stats->jitter_seconds = d;
        }
    } else if (strcmp(name, "outbound-rtp") == 0) {
        uint64_t u = 0;
        if (G.gst_structure_get_uint64(s, "bytes-sent", &u)) stats->bytes_sent += u;
        if (G.gst_structure_get_uint64(s, "packets-sent", &u)) stats->packets_sent += u;
    } else if (strcmp(name, "remote-inbound-rtp") == 0) {
        double d = 0;
        int64_t i = 0;
        gint gi = 0;
        if (G.gst_structure_get_double(s, "round-trip-time", &d) && d > 0) {
            if (d > walk->remote_inbound_rtt) walk->remote_inbound_rtt = d;
        }
        if (G.gst_structure_get_double(s, "fraction-lost", &d)) {
            if (stats->remote_fraction_lost < 0 || d > stats->remote_fraction_lost) stats->remote_fraction_lost = d;
        }
        if (G.gst_structure_get_int64(s, "packets-lost", &i)) {
            stats->remote_packets_lost = (stats->remote_packets_lost < 0 ? 0 : stats->remote_packets_lost) + i;
        } else if (G.gst_structure_get_int(s, "packets-lost", &gi)) {
            stats->remote_packets_lost = (stats->remote_packets_lost < 0 ? 0 : stats->remote_packets_lost) + gi;
        }
    } else if (strcmp(name, "candidate-pair") == 0) {
        // webrtcbin reports the selected pair of each transport.
        copy_string(s, "local-candidate-id", walk->selected_local, sizeof walk->selected_local);
        copy_string(s, "remote-candidate-id", walk->selected_remote, sizeof walk->selected_remote);
        double d = 0;
        if (G.gst_structure_get_double(s, "current-round-trip-time", &d) && d > 0) walk->pair_rtt = d;
    }
    return 1;
}

static gboolean second_pass(GQuark field, const GValue *value, gpointer data) {
    stats_walk *walk = data;
    const GstStructure *s = G.gst_value_get_structure(value);
    if (!s) return 1;
    const char *name = G.gst_structure_get_name(s);
    if (!name) return 1;
    const char *id = G.gst_structure_get_string(s, "id");
    if (!id) id = G.g_quark_to_string(field);
    const char *type = G.gst_structure_get_string(s, "candidate-type");
    if (!type || !id) return 1;
    (void)name;
    if (walk->selected_local[0] && strcmp(id, walk->selected_local) == 0) {
        snprintf(walk->stats->local_candidate_type, sizeof walk->stats->local_candidate_type, "%s", type);
    } else if (walk->selected_remote[0] && strcmp(id, walk->selected_remote) == 0) {
        snprintf(walk->stats->remote_candidate_type, sizeof walk->stats->remote_candidate_type, "%s", type);
    }
    return 1;
}

static GstPromise *request_stats(sbwr_engine *engine, int timeout_ms, const GstStructure **reply) {
    (void)timeout_ms; // webrtcbin answers get-stats from its own thread without waiting on the network
    GstPromise *promise = G.gst_promise_new();
    G.g_signal_emit_by_name(engine->webrtc, "get-stats", NULL, promise);
    if (G.gst_promise_wait(promise) != GST_PROMISE_RESULT_REPLIED) {
        G.gst_mini_object_unref(promise);
        return NULL;
    }
    *reply = G.gst_promise_get_reply(promise);
    return promise;
}

int sbwr_get_stats(sbwr_engine *engine, sbwr_stats *stats, int timeout_ms) {
    memset(stats, 0, sizeof *stats);
    stats->rtt_seconds = -1;
    stats->jitter_seconds = -1;
    stats->remote_fraction_lost = -1;
    stats->remote_packets_lost = -1;
    gint state = 0;
    G.g_object_get(engine->webrtc, "ice-connection-state", &state, NULL);
    stats->ice_state = state;
    G.g_object_get(engine->webrtc, "connection-state", &state, NULL);
    stats->connection_state = state;
    pthread_mutex_lock(&engine->lock);
    stats->audio_level_db = engine->audio_level_db;
    stats->video_frames_received = engine->video_frames;
    stats->remote_audio = engine->remote_audio;
    stats->remote_video = engine->remote_video;
    pthread_mutex_unlock(&engine->lock);

    const GstStructure *reply = NULL;
    GstPromise *promise = request_stats(engine, timeout_ms, &reply);
    if (!promise) return -1;
    if (reply) {
        stats_walk walk;
        memset(&walk, 0, sizeof walk);
        walk.stats = stats;
        walk.pair_rtt = -1;
        walk.remote_inbound_rtt = -1;
        G.gst_structure_foreach(reply, first_pass, &walk);
        G.gst_structure_foreach(reply, second_pass, &walk);
        stats->rtt_seconds = walk.remote_inbound_rtt > 0 ? walk.remote_inbound_rtt : walk.pair_rtt;
    }
    G.gst_mini_object_unref(promise);
    return 0;
}

char *sbwr_stats_text(sbwr_engine *engine, int timeout_ms) {
    const GstStructure *reply = NULL;
    GstPromise *promise = request_stats(engine, timeout_ms, &reply);
    if (!promise) return NULL;
    char *text = NULL;
    if (reply) {
        gchar *g = G.gst_structure_to_string(reply);
        if (g) {
            text = strdup(g);
            G.g_free(g);
        }
    }
    G.gst_mini_object_unref(promise);
    return text;
}

void sbwr_free_string(char *text) { free(text); }

int sbwr_finish(sbwr_engine *engine, int timeout_ms) {
    GstPad *pads[SBWR_MAX_RECEIVERS];
    pthread_mutex_lock(&engine->lock);
    engine->finishing = 1;
    int count = engine->receiver_count;
    memcpy(pads, engine->receivers, sizeof pads);
    int expected = engine->recordings;
    pthread_mutex_unlock(&engine->lock);
    for (int i = 0; i < count; i++) G.gst_pad_send_event(pads[i], G.gst_event_new_eos());
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += timeout_ms / 1000;
    deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec += 1;
        deadline.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&engine->lock);
    while (engine->recordings_done < expected) {
        if (pthread_cond_timedwait(&engine->changed, &engine->lock, &deadline) == ETIMEDOUT) break;
    }
    int done = engine->recordings_done >= expected;
    pthread_mutex_unlock(&engine->lock);
    return done ? 0 : -1;
}

void sbwr_engine_free(sbwr_engine *engine) {
    if (!engine) return;
    pthread_mutex_lock(&engine->lock);
    engine->finishing = 1;
    pthread_mutex_unlock(&engine->lock);
    // Stopping the pipeline joins GStreamer's streaming threads: no signal handler runs after it.
    G.gst_element_set_state(engine->pipeline, GST_STATE_NULL);
    pthread_mutex_lock(&engine->lock);
    engine->stopping = 1;
    pthread_mutex_unlock(&engine->lock);
    if (engine->bus_thread_started) pthread_join(engine->bus_thread, NULL);
    if (engine->pcm_thread_started) pthread_join(engine->pcm_thread, NULL);
    for (int i = 0; i < engine->receiver_count; i++) G.gst_object_unref(engine->receivers[i]);
    if (engine->pcm_source) G.gst_object_unref(engine->pcm_source);
    if (engine->bus) G.gst_object_unref(engine->bus);
    G.gst_object_unref(engine->webrtc);
    G.gst_object_unref(engine->pipeline);
    free(engine->audio_receive);
    free(engine->video_receive);
    free(engine->pcm);
    pthread_cond_destroy(&engine->changed);
    pthread_mutex_destroy(&engine->lock);
    free(engine);
}

int sbwr_run_to_end(const char *description, int timeout_ms, char *error, size_t error_capacity) {
    if (sbwr_load(error, error_capacity) != 0) return -1;
    GError *parse_error = NULL;
    GstElement *pipeline = G.gst_parse_launch(description, &parse_error);
    if (!pipeline || parse_error) {
        set_error(error, error_capacity, "%s", parse_error && parse_error->message ? parse_error->message : "cannot build the pipeline");
        if (parse_error) G.g_error_free(parse_error);
        if (pipeline) G.gst_object_unref(pipeline);
        return -1;
    }
    GstBus *bus = G.gst_element_get_bus(pipeline);
    int status = -1;
    if (G.gst_element_set_state(pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
        set_error(error, error_capacity, "cannot open it");
    } else {
        GstMessage *message = G.gst_bus_timed_pop_filtered(bus, (GstClockTime)timeout_ms * GST_MSECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
        if (!message) {
            set_error(error, error_capacity, "it took longer than %d ms", timeout_ms);
        } else {
            if (((GstMessageHead *)message)->type == GST_MESSAGE_EOS) {
                status = 0;
            } else {
                GError *e = NULL;
                gchar *debug = NULL;
                G.gst_message_parse_error(message, &e, &debug);
                set_error(error, error_capacity, "%s", e && e->message ? e->message : "unknown error");
                if (e) G.g_error_free(e);
                if (debug) G.g_free(debug);
            }
            G.gst_mini_object_unref(message);
        }
    }
    G.gst_element_set_state(pipeline, GST_STATE_NULL);
    G.gst_object_unref(bus);
    G.gst_object_unref(pipeline);
    return status;
}
