//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import CWebRTCMedia
import Foundation

/// The text of a NUL-terminated C buffer.
func cText(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// A call's media: one GStreamer webrtcbin pipeline (the C engine in `CWebRTCMedia`, opened at run time).
///
/// Concurrency: the engine pointer is used only on `queue` (a serial queue of its own: GStreamer calls such as
/// `get-stats` block briefly, so they never run on the client's loop queue or the cooperative pool). Engine
/// callbacks arrive on GStreamer's threads and go to `EventSink`, which resumes a waiting offer/answer or forwards
/// the event (its state is under its own lock).
public final class CallMedia: @unchecked Sendable {
    private let queue = DispatchQueue(label: "switchboard-cli.media")
    /// On `queue` only.
    private var engine: OpaquePointer?
    private let sink: EventSink
    private let sinkPointer: UnsafeMutableRawPointer
    /// Set once in init.
    public let sendsVideo: Bool

    /// nil when media can be used here, else why not (GStreamer or one of its plugins missing, with the
    /// command that installs it).
    public static func unavailableReason() -> String? {
        var error = [CChar](repeating: 0, count: 512)
        return sbwr_load(&error, error.count) == 0 ? nil : cText(error)
    }

    /// Builds and starts the pipeline. `stun`/`turn` come from `MediaPipeline.iceServers`.
    public init(
        options: MediaOptions, video: Bool, stun: String?, turn: [String],
        onEvent: @escaping @Sendable (MediaEvent) -> Void
    ) throws(CLIError) {
        sendsVideo = video
        var pcm: [Int16]?
        if case .file(let path, _) = options.audio {
            pcm = try Self.decode(path)
        }
        sink = EventSink(onEvent)
        sinkPointer = Unmanaged.passRetained(sink).toOpaque()
        var error = [CChar](repeating: 0, count: 512)
        let description = MediaPipeline.send(options, video: video)
        let audioReceive = MediaPipeline.receiveAudio(record: options.record)
        let videoReceive = MediaPipeline.receiveVideo(record: options.recordVideo)
        let turnList = turn.joined(separator: " ")
        let addresses = options.iceAddresses.joined(separator: " ")
        let callback: sbwr_callback = { context, kind, text, number in
            guard let context else { return }
            let sink = Unmanaged<EventSink>.fromOpaque(context).takeUnretainedValue()
            sink.receive(kind: kind, text: text.map { String(cString: $0) } ?? "", number: Int(number))
        }
        guard
            let engine = sbwr_engine_new(
                description, audioReceive, videoReceive, stun, turnList.isEmpty ? nil : turnList,
                options.relayOnly ? 1 : 0, addresses.isEmpty ? nil : addresses, callback, sinkPointer, &error,
                error.count)
        else {
            Unmanaged<EventSink>.fromOpaque(sinkPointer).release()
            throw CLIError("media: \(cText(error))", exitCode: .media)
        }
        if let pcm, case .file(_, let loop) = options.audio {
            pcm.withUnsafeBufferPointer { sbwr_set_audio_pcm(engine, $0.baseAddress, $0.count, loop ? 1 : 0) }
        }
        if sbwr_start(engine, &error, error.count) != 0 {
            sbwr_engine_free(engine)
            Unmanaged<EventSink>.fromOpaque(sinkPointer).release()
            throw CLIError("media: \(cText(error))", exitCode: .media)
        }
        self.engine = engine
    }

    /// Decodes an audio file to 48 kHz mono PCM (at most `MediaOptions.maxPlaySeconds`).
    static func decode(_ path: String) throws(CLIError) -> [Int16] {
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw CLIError("cannot read the audio file \(path)", exitCode: .localFile)
        }
        let raw = FileManager.default.temporaryDirectory.appendingPathComponent(
            "switchboard-play-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).raw"
        ).path
        defer { try? FileManager.default.removeItem(atPath: raw) }
        var error = [CChar](repeating: 0, count: 512)
        if sbwr_run_to_end(MediaPipeline.decode(file: path, to: raw), 60_000, &error, error.count) != 0 {
            throw CLIError("cannot decode the audio file \(path): \(cText(error))", exitCode: .localFile)
        }
        guard let handle = FileHandle(forReadingAtPath: raw) else {
            throw CLIError("cannot decode the audio file \(path)", exitCode: .localFile)
        }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: MediaOptions.maxPlaySeconds * 48000 * 2)) ?? Data()
        if data.count < 2 { throw CLIError("the audio file \(path) holds no audio", exitCode: .localFile) }
        return data.withUnsafeBytes { bytes in
            (0..<(data.count / 2)).map {
                Int16(littleEndian: bytes.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self))
            }
        }
    }

    /// Creates the offer (set as the local description).
    public func offer(timeout: Double = 10) async throws(CLIError) -> String {
        try await awaitDescription(timeout: timeout) { engine in
            sbwr_create_offer(engine); return true
        }
    }

    /// Sets a remote offer and returns the answer (set as the local description).
    public func answer(offer sdp: String, timeout: Double = 10) async throws(CLIError) -> String {
        try await awaitDescription(timeout: timeout) { engine in sbwr_set_remote(engine, 1, sdp) == 0 }
    }

    /// Sets the remote answer; false when it does not parse.
    public func setAnswer(_ sdp: String) async -> Bool {
        await onQueue { engine in sbwr_set_remote(engine, 0, sdp) == 0 } ?? false
    }

    public func addCandidate(mline: Int, candidate: String) {
        queue.async { [self] in
            guard let engine else { return }
            sbwr_add_candidate(engine, Int32(clamping: mline), candidate)
        }
    }

    public func setHold(_ hold: Bool) {
        queue.async { [self] in
            guard let engine else { return }
            sbwr_set_hold(engine, hold ? 1 : 0)
        }
    }

    /// A stats reading; `elapsedMs` is stamped by the caller's clock.
    public func snapshot(elapsedMs: Int64) async -> MediaSnapshot? {
        await onQueue { engine -> MediaSnapshot? in
            var s = sbwr_stats()
            guard sbwr_get_stats(engine, &s, 2000) == 0 else { return nil }
            return MediaSnapshot(stats: s, elapsedMs: elapsedMs)
        } ?? nil
    }

    /// Ends the recordings (complete files); false when one did not finish within `timeout` seconds.
    public func finish(timeout: Double = 3) async -> Bool {
        await onQueue { engine in sbwr_finish(engine, Int32(timeout * 1000)) == 0 } ?? true
    }

    /// Stops the pipeline; nothing is reported after it returns.
    public func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async { [self] in
                if let engine {
                    sbwr_engine_free(engine)
                    self.engine = nil
                    Unmanaged<EventSink>.fromOpaque(sinkPointer).release()
                }
                continuation.resume()
            }
        }
    }

    private func onQueue<T: Sendable>(_ body: @escaping @Sendable (OpaquePointer) -> T) async -> T? {
        await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
            queue.async { [self] in
                continuation.resume(returning: engine.map(body))
            }
        }
    }

    private func awaitDescription(
        timeout: Double, _ start: @escaping @Sendable (OpaquePointer) -> Bool
    ) async throws(CLIError) -> String {
        let result: Result<String, CLIError> = await withCheckedContinuation { continuation in
            let token = sink.expectDescription { continuation.resume(returning: $0) }
            queue.async { [self] in
                guard let engine else {
                    sink.failDescription(token, CLIError("media: the engine is closed", exitCode: .media))
                    return
                }
                if !start(engine) {
                    sink.failDescription(token, CLIError("media: the remote SDP does not parse", exitCode: .media))
                }
            }
            queue.asyncAfter(deadline: .now() + timeout) { [sink] in
                sink.failDescription(
                    token, CLIError("media: no local description within \(Int(timeout)) s", exitCode: .media))
            }
        }
        return try result.get()
    }
}
