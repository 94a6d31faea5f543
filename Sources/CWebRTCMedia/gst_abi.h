// This source file is part of the Switchboard open source project
// SPDX-License-Identifier: Apache-2.0
//
// The few GLib/GStreamer 1.x declarations the engine needs, so that it builds without GStreamer's headers (the
// libraries are opened at run time). Only types and constants that GStreamer 1.x keeps ABI-stable are written out
// here; values were checked against the 1.22 headers (GstMiniObject 64 bytes, GstMessage.type and GstEvent.type
// right after it, GstPadProbeInfo.data at 16, GstWebRTCSessionDescription.sdp at 8, GST_EVENT_EOS 28174).
#ifndef SBWR_GST_ABI_H
#define SBWR_GST_ABI_H

#include <stddef.h>
#include <stdint.h>

typedef int gboolean;
typedef char gchar;
typedef int gint;
typedef unsigned int guint;
typedef unsigned long gulong;
typedef unsigned long GType;
typedef uint32_t GQuark;
typedef void *gpointer;
typedef uint64_t GstClockTime;

typedef struct {
    GType g_type;
    union { int v_int; unsigned v_uint; long v_long; double v_double; int64_t v_int64; uint64_t v_uint64; void *v_pointer; } data[2];
} GValue;

typedef struct { GQuark domain; gint code; gchar *message; } GError;

typedef struct {
    GType type;
    gint refcount;
    gint lockstate;
    guint flags;
    void *copy, *dispose, *free_fn;
    guint priv_uint;
    void *priv_pointer;
} GstMiniObject;

typedef struct { GstMiniObject mini_object; guint type; } GstMessageHead;
typedef struct { GstMiniObject mini_object; guint type; } GstEventHead;

typedef struct { guint type; gulong id; gpointer data; } GstPadProbeInfoHead;

typedef struct GstElement GstElement;
typedef struct GstPad GstPad;
typedef struct GstBus GstBus;
typedef struct GstMessage GstMessage;
typedef struct GstStructure GstStructure;
typedef struct GstCaps GstCaps;
typedef struct GstPromise GstPromise;
typedef struct GstEvent GstEvent;
typedef struct GstBuffer GstBuffer;
typedef struct GstSDPMessage GstSDPMessage;
typedef struct GstElementFactory GstElementFactory;
typedef struct { gint type; GstSDPMessage *sdp; } GstWebRTCSessionDescription;

enum {
    GST_STATE_NULL = 1,
    GST_STATE_PLAYING = 4,
    GST_STATE_CHANGE_FAILURE = 0,
    GST_MESSAGE_EOS = 1 << 0,
    GST_MESSAGE_ERROR = 1 << 1,
    GST_MESSAGE_WARNING = 1 << 2,
    GST_MESSAGE_ELEMENT = 1 << 15,
    GST_EVENT_EOS = 28174,
    GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM = 1 << 6,
    GST_PAD_PROBE_OK = 1,
    GST_PAD_SRC = 1,
    GST_PAD_LINK_OK = 0,
    GST_PROMISE_RESULT_REPLIED = 2,
    GST_WEBRTC_SDP_TYPE_OFFER = 1,
    GST_WEBRTC_SDP_TYPE_ANSWER = 3,
    GST_SDP_OK = 0,
    G_CONNECT_DEFAULT = 0,
};
#define GST_CLOCK_TIME_NONE ((GstClockTime)-1)
#define GST_MSECOND ((GstClockTime)1000000)

typedef void (*GstPromiseChangeFunc)(GstPromise *promise, gpointer user_data);
typedef guint (*GstPadProbeCallback)(GstPad *pad, GstPadProbeInfoHead *info, gpointer user_data);
typedef gboolean (*GstStructureForeachFunc)(GQuark field_id, const GValue *value, gpointer user_data);

#endif
