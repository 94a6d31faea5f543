//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import Foundation
import SwitchboardCLIKit

/// The media options of `call` and `listen` (docs/cli.md, "Media").
struct MediaArguments: ParsableArguments {
    @Flag(help: "Signalling only: a generated SDP and candidates, no audio or video (env SWITCHBOARD_NO_MEDIA=1).")
    var noMedia = false
    @Option(help: "Send a sine tone of this frequency in Hz (the default audio: 440).") var tone: Double?
    @Option(help: "Send audio from this file (WAV, Ogg Opus/Vorbis, FLAC, ...; at most 10 minutes).") var play: String?
    @Flag(help: "Repeat the --play file (else silence after it).") var loop = false
    @Flag(help: "Send the default microphone.") var mic = false
    @Option(help: "Send video from this file instead of the test pattern (video calls).") var videoFile: String?
    @Option(help: "Record the received audio: .wav decoded, else Ogg/Opus as received.") var record: String?
    @Option(help: "Record the received video as WebM (VP8 as received).") var recordVideo: String?
    @Flag(help: "Use TURN relays only (the hub's call.turn credentials).") var relayOnly = false
    @Option(help: "Hang up this many seconds after media starts flowing.") var hangupAfter: Double?
    @Option(help: "Seconds between two quality lines.") var statsInterval: Double = 1
    @Option(
        help:
            """
            Gather host candidates only on this local IP address (repeatable; loopback allowed; default: every \
            interface but loopback).
            """
    )
    var iceAddress: [String] = []

    func validate() throws {
        let sources = (tone != nil ? 1 : 0) + (play != nil ? 1 : 0) + (mic ? 1 : 0)
        if sources > 1 { throw ValidationError("--tone, --play and --mic exclude each other") }
        if let tone, !(tone >= 20 && tone <= 20000) { throw ValidationError("--tone must be 20-20000 Hz") }
        if loop && play == nil { throw ValidationError("--loop needs --play") }
        if let hangupAfter, !(hangupAfter > 0 && hangupAfter <= 86400) {
            throw ValidationError("--hangup-after must be 0-86400 s")
        }
        if !(statsInterval >= 0.2 && statsInterval <= 3600) {
            throw ValidationError("--stats-interval must be 0.2-3600 s")
        }
        for address in iceAddress where address.isEmpty || address.contains(" ") {
            throw ValidationError("--ice-address takes one IP address")
        }
        if noMedia
            && (sources > 0 || record != nil || recordVideo != nil || relayOnly || hangupAfter != nil
                || videoFile != nil)
        {
            throw ValidationError("--no-media excludes the media options")
        }
    }

    func options(video: Bool) -> MediaOptions {
        let audio: MediaOptions.AudioSource =
            play.map { .file($0, loop: loop) } ?? (mic ? .microphone : .tone(tone ?? 440))
        let off =
            noMedia
            || ["1", "true", "yes"].contains(
                ProcessInfo.processInfo.environment["SWITCHBOARD_NO_MEDIA"]?.lowercased() ?? "")
        return MediaOptions(
            enabled: !off, audio: audio, video: video, videoFile: videoFile, record: record, recordVideo: recordVideo,
            relayOnly: relayOnly, hangupAfter: hangupAfter, statsInterval: statsInterval, iceAddresses: iceAddress)
    }
}
