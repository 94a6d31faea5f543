//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardMedia
import Testing

/// Runs an installed tool; returns its exit status and combined output.
@discardableResult
func run(_ tool: String, _ arguments: [String], stdout: URL? = nil) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [tool] + arguments
    let pipe = Pipe()
    if let stdout {
        _ = FileManager.default.createFile(atPath: stdout.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: stdout)
        process.standardError = pipe
    } else {
        process.standardOutput = pipe
        process.standardError = pipe
    }
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

/// Whether a tool is on PATH.
func hasTool(_ tool: String) -> Bool {
    (try? run("which", [tool]).status) == 0
}

let requiredTools = ["sox", "espeak-ng", "ffmpeg", "opusenc", "opusdec", "opusinfo"]
let missingTools = requiredTools.filter { !hasTool($0) }
/// Why audio-tool tests are skipped, or nil if every tool is installed.
let toolsMissingReason: Comment? =
    missingTools.isEmpty ? nil : "missing audio tools: \(missingTools.joined(separator: ", "))"

/// Audio files generated once per test run with the installed tools.
final class Fixtures: Sendable {
    let dir: URL

    static let shared: Fixtures = {
        do { return try Fixtures() } catch { fatalError("cannot generate audio fixtures: \(error)") }
    }()

    private init() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("switchboard-media-\(getpid())")
        try? FileManager.default.removeItem(at: dir)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let text = "Hello, this is a voice message for the switchboard hub. Testing one, two, three."
        try make("espeak-ng", ["-w", path("speech.wav"), text])
        try make(
            "sox",
            [
                "-n", "-r", "44100", "-c", "2", "-b", "24", path("tone44k-s24.wav"), "synth", "3", "sine", "440",
                "tremolo", "3", "90",
            ])
        try make(
            "sox",
            [
                "-n", "-r", "8000", "-c", "1", "-b", "16", path("tone8k.wav"), "synth", "2", "sine", "300", "tremolo",
                "4", "90",
            ])
        try make(
            "sox",
            [
                "-n", "-r", "48000", "-c", "2", "-e", "floating-point", "-b", "32", path("tone48k-f32.wav"),
                "synth", "2", "sine", "500", "tremolo", "2", "90",
            ])
        // 0.5 s tone, 0.5 s silence, three times: an envelope with structure.
        try make(
            "sox",
            [
                "-n", "-r", "16000", "-c", "1", "-b", "16", path("gaps.wav"),
                "synth", "0.5", "sine", "440", "pad", "0", "0.5", "repeat", "2",
            ])
        try make(
            "ffmpeg",
            [
                "-hide_banner", "-loglevel", "error", "-y", "-i", path("speech.wav"), "-c:a", "libopus",
                "-f", "webm", path("speech.webm"),
            ])
        // A live stream as MediaRecorder writes it: unknown-size Segment and Clusters, no Duration.
        try make(
            "ffmpeg",
            [
                "-hide_banner", "-loglevel", "error", "-i", path("speech.wav"), "-c:a", "libopus",
                "-live", "1", "-f", "webm", "pipe:1",
            ], stdout: url("live.webm"))
        // Chrome's MediaRecorder also leaves every Cluster's size unknown; ffmpeg buffers clusters, so patch them.
        try Data(markClustersUnknownSize(bytes("live.webm"))).write(to: url("chrome-like.webm"))
        // A browser recording with camera: VP8 track 1, Opus track 2.
        try make(
            "ffmpeg",
            [
                "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=10",
                "-i", path("speech.wav"), "-c:v", "libvpx", "-c:a", "libopus", "-shortest", "-f", "webm",
                path("av.webm"),
            ])
        try make(
            "ffmpeg",
            [
                "-hide_banner", "-loglevel", "error", "-y", "-i", path("tone44k-s24.wav"), "-c:a", "libopus",
                "-f", "webm", path("tone-stereo.webm"),
            ])
        try make("opusenc", ["--quiet", path("speech.wav"), path("speech.opus")])
        try make("opusenc", ["--quiet", path("tone44k-s24.wav"), path("tone-stereo.opus")])
    }

    func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
    func url(_ name: String) -> URL { dir.appendingPathComponent(name) }
    func bytes(_ name: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: url(name))) }

    private func make(_ tool: String, _ args: [String], stdout: URL? = nil) throws {
        let result = try run(tool, args, stdout: stdout)
        if result.status != 0 { throw FixtureError(message: "\(tool) failed: \(result.output)") }
    }

    /// A fresh unique path in the fixture folder.
    func scratch(_ suffix: String) -> URL {
        dir.appendingPathComponent("\(UUID().uuidString)\(suffix)")
    }
}

struct FixtureError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// RMS per 20 ms window.
func envelope(_ samples: [Float], sampleRate: Int) -> [Float] {
    let window = sampleRate / 50
    return stride(from: 0, to: samples.count - window + 1, by: window).map { start in
        var sum: Float = 0
        for i in start..<(start + window) { sum += samples[i] * samples[i] }
        return (sum / Float(window)).squareRoot()
    }
}

/// Pearson correlation of two series over their common length.
func pearson(_ a: [Float], _ b: [Float]) -> Double {
    let n = min(a.count, b.count)
    guard n > 1 else { return 0 }
    let x = a.prefix(n).map(Double.init)
    let y = b.prefix(n).map(Double.init)
    let mx = x.reduce(0, +) / Double(n)
    let my = y.reduce(0, +) / Double(n)
    var sxy = 0.0
    var sxx = 0.0
    var syy = 0.0
    for i in 0..<n {
        sxy += (x[i] - mx) * (y[i] - my)
        sxx += (x[i] - mx) * (x[i] - mx)
        syy += (y[i] - my) * (y[i] - my)
    }
    return sxy / (sxx * syy).squareRoot()
}

func readWAV(_ bytes: [UInt8]) throws -> DecodedAudio {
    try bytes.withUnsafeBytes { try WAVReader.read($0) }
}

/// Checks a transcoded file with the reference tools: opusinfo accepts it as one mono stream, and opusdec's
/// 48 kHz decode matches `reference` in duration (within 20 ms) and loudness envelope (Pearson > 0.9).
func verifyWithReferenceTools(_ voice: TranscodedVoice, reference: DecodedAudio) throws {
    let fixtures = Fixtures.shared
    let opus = fixtures.scratch(".opus")
    let wav = fixtures.scratch(".wav")
    try Data(voice.ogg).write(to: opus)
    let info = try run("opusinfo", [opus.path])
    #expect(info.status == 0, "opusinfo: \(info.output)")
    #expect(info.output.contains("Channels: 1"))
    #expect(!info.output.contains("WARNING"), "opusinfo: \(info.output)")
    let dec = try run("opusdec", ["--quiet", "--rate", "48000", opus.path, wav.path])
    #expect(dec.status == 0, "opusdec: \(dec.output)")
    let decoded = try readWAV(fixtures.bytes(wav.lastPathComponent))
    #expect(decoded.sampleRate == 48_000)
    let outMs = Double(decoded.samples.count) / 48.0
    let inMs = Double(reference.samples.count) * 1000 / Double(reference.sampleRate)
    #expect(abs(outMs - inMs) <= 20, "decoded \(outMs) ms vs input \(inMs) ms")
    #expect(abs(Double(voice.durationMs) - inMs) <= 20)
    let r = pearson(
        envelope(reference.samples, sampleRate: reference.sampleRate), envelope(decoded.samples, sampleRate: 48_000))
    #expect(r > 0.9, "envelope correlation \(r)")
}

/// Rewrites the size of every top-level Cluster of a WebM with an unknown-size Segment to the all-ones "unknown"
/// value of the same length, as Chrome's MediaRecorder writes them.
func markClustersUnknownSize(_ input: [UInt8]) -> [UInt8] {
    var b = input
    func vintLength(_ first: UInt8) -> Int { first.leadingZeroBitCount + 1 }
    func size(at p: Int) -> (Int, Int) {
        let n = vintLength(b[p])
        var v = Int(b[p]) & (0xFF >> n)
        for i in 1..<n { v = v << 8 | Int(b[p + i]) }
        return (v, n)
    }
    var pos = 4
    let (headerSize, headerLength) = size(at: pos)
    pos += headerLength + headerSize + 4 + 8  // EBML header, Segment ID and its unknown size
    while pos < b.count {
        let idLength = vintLength(b[pos])
        let id = b[pos..<(pos + idLength)]
        let (elementSize, sizeLength) = size(at: pos + idLength)
        if id.elementsEqual([0x1F, 0x43, 0xB6, 0x75]) {
            b[pos + idLength] = 0xFF >> (sizeLength - 1)
            for i in 1..<sizeLength { b[pos + idLength + i] = 0xFF }
        }
        pos += idLength + sizeLength + elementSize
    }
    return b
}
