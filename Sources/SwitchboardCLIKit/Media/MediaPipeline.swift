//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// The gst-launch descriptions of a call's pipelines (pure, so that they can be tested without GStreamer).
public enum MediaPipeline {
    /// Video sent: small enough for two encoders and a browser on a 2-core machine.
    public static let videoWidth = 320
    public static let videoHeight = 240
    public static let videoFramerate = 15
    public static let audioBitrate = 32000
    public static let videoBitrate = 300_000

    /// A value for a gst-launch property, quoted (paths may hold spaces, quotes and backslashes).
    public static func quoted(_ value: String) -> String {
        var out = "\""
        for c in value {
            if c == "\"" || c == "\\" { out.append("\\") }
            out.append(c)
        }
        out.append("\"")
        return out
    }

    /// The raw PCM the engine's `appsrc` takes (what a played file is decoded to).
    public static let pcmCaps = "audio/x-raw,format=S16LE,rate=48000,channels=1,layout=interleaved"

    /// The pipeline that decodes `file` to raw PCM in `output` (`sbwr_run_to_end`).
    public static func decode(file: String, to output: String) -> String {
        """
        filesrc location=\(quoted(file)) ! decodebin ! audioconvert ! audioresample ! \(pcmCaps) ! filesink \
        location=\(quoted(output))
        """
    }

    /// The sending pipeline: webrtcbin, the audio branch and, when `video`, the video branch.
    public static func send(_ options: MediaOptions, video: Bool) -> String {
        let source: String
        switch options.audio {
        case .tone(let hz):
            source = "audiotestsrc is-live=true wave=sine freq=\(format(hz)) volume=0.5"
        case .file:
            source = "appsrc name=sbpcm is-live=true format=time do-timestamp=true caps=\(pcmCaps)"
        case .microphone:
            source = "autoaudiosrc"
        }
        // `encoding-params=2`: the offer must say `opus/48000/2`, as RFC 7587 requires; Chromium refuses the audio
        // section of an offer with `OPUS/48000` alone.
        var description =
            "webrtcbin name=sbwebrtc "
            + "\(source) ! audioconvert ! audioresample ! audio/x-raw,rate=48000,channels=1 ! "
            + "valve name=sbvalve drop=false ! "
            + "queue ! opusenc bitrate=\(audioBitrate) ! rtpopuspay pt=111 ! "
            + "application/x-rtp,media=audio,encoding-name=OPUS,payload=111,clock-rate=48000,"
            + "encoding-params=(string)2 ! sbwebrtc."
        if video {
            let raw = "video/x-raw,width=\(videoWidth),height=\(videoHeight),framerate=\(videoFramerate)/1"
            let videoSource: String
            if let file = options.videoFile {
                videoSource =
                    """
                    filesrc location=\(quoted(file)) ! decodebin ! queue ! videoconvert ! videoscale ! videorate ! \
                    \(raw) ! clocksync
                    """
            } else {
                videoSource = "videotestsrc is-live=true pattern=ball ! \(raw)"
            }
            description +=
                " \(videoSource) ! videoconvert ! valve name=sbvalve1 drop=false ! queue ! "
                + "vp8enc deadline=1 cpu-used=8 target-bitrate=\(videoBitrate) keyframe-max-dist=30 ! "
                + "rtpvp8pay pt=96 ! "
                + "application/x-rtp,media=video,encoding-name=VP8,payload=96,clock-rate=90000 ! sbwebrtc."
        }
        return description
    }

    /// The bin a received audio stream goes into: decoded for the level meter, and recorded when asked.
    public static func receiveAudio(record: String?) -> String {
        let meter = "queue ! level interval=250000000 post-messages=true ! fakesink sync=false async=false"
        guard let record else {
            return "rtpopusdepay ! opusdec plc=true ! audioconvert ! \(meter)"
        }
        if record.lowercased().hasSuffix(".wav") {
            return "rtpopusdepay ! opusdec plc=true ! audioconvert ! tee name=sbtee ! \(meter) "
                + "sbtee. ! queue ! audioresample ! audio/x-raw,rate=48000 ! wavenc ! "
                + "filesink name=sbrec async=false location=\(quoted(record))"
        }
        return "rtpopusdepay ! tee name=sbtee ! queue ! opusdec plc=true ! audioconvert ! \(meter) "
            + "sbtee. ! queue ! opusparse ! oggmux ! filesink name=sbrec async=false location=\(quoted(record))"
    }

    /// The bin a received video stream goes into: frames counted, and recorded when asked.
    public static func receiveVideo(record: String?) -> String {
        let counter = "queue ! fakesink name=sbframes signal-handoffs=true sync=false async=false"
        guard let record else { return "rtpvp8depay ! \(counter)" }
        return "rtpvp8depay ! tee name=sbvtee ! \(counter) "
            + "sbvtee. ! queue ! webmmux ! filesink name=sbrec1 async=false location=\(quoted(record))"
    }

    /// webrtcbin's STUN and TURN settings from `call.turn`'s `ice_servers` (WebRTC URLs such as
    /// `stun:host:3478` and `turn:host:3478?transport=udp` with a username and credential).
    public static func iceServers(_ servers: [(urls: [String], username: String?, credential: String?)]) -> (
        stun: String?, turn: [String]
    ) {
        var stun: String?
        var turn: [String] = []
        for server in servers {
            for url in server.urls {
                if url.hasPrefix("stun:") {
                    if stun == nil { stun = "stun://" + hostPort(String(url.dropFirst(5))) }
                } else if url.hasPrefix("turn:") || url.hasPrefix("turns:") {
                    guard let user = server.username, let password = server.credential else { continue }
                    let scheme = url.hasPrefix("turns:") ? "turns" : "turn"
                    var rest = String(url.dropFirst(scheme.count + 1))
                    var query = ""
                    if let q = rest.firstIndex(of: "?") {
                        query = String(rest[q...])
                        rest = String(rest[..<q])
                    }
                    // webrtcbin splits user and password at the first ':' before unescaping them.
                    let transport = query.lowercased().contains("transport=tcp") ? "?transport=tcp" : ""
                    turn.append("\(scheme)://\(escape(user)):\(escape(password))@\(hostPort(rest))\(transport)")
                }
            }
        }
        return (stun, turn)
    }

    private static func hostPort(_ s: String) -> String {
        s.contains(":") || s.hasPrefix("[") ? s : s + ":3478"
    }

    /// Percent-encodes everything but RFC 3986's unreserved characters.
    static func escape(_ s: String) -> String {
        var out = ""
        for byte in s.utf8 {
            let c = Character(Unicode.Scalar(byte))
            if c.isASCII && (c.isLetter || c.isNumber || c == "-" || c == "." || c == "_" || c == "~") {
                out.append(c)
            } else {
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }

    private static func format(_ hz: Double) -> String {
        hz == hz.rounded() ? String(Int(hz)) : String(hz)
    }
}
