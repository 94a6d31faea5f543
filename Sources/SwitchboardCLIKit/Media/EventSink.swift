//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import CWebRTCMedia
import Foundation

/// Where the engine's callbacks land (GStreamer threads). State under `lock`.
final class EventSink: @unchecked Sendable {
    private let lock = NSLock()
    private let onEvent: @Sendable (MediaEvent) -> Void
    /// Under `lock`: the one offer/answer being awaited.
    private var waiting: (token: Int, resume: @Sendable (Result<String, CLIError>) -> Void)?
    /// Under `lock`.
    private var nextToken = 0

    init(_ onEvent: @escaping @Sendable (MediaEvent) -> Void) {
        self.onEvent = onEvent
    }

    func expectDescription(_ resume: @escaping @Sendable (Result<String, CLIError>) -> Void) -> Int {
        lock.lock()
        defer { lock.unlock() }
        nextToken += 1
        if let old = waiting {
            old.resume(.failure(CLIError("media: a newer description replaced this one", exitCode: .media)))
        }
        waiting = (nextToken, resume)
        return nextToken
    }

    func failDescription(_ token: Int, _ error: CLIError) {
        lock.lock()
        guard let w = waiting, w.token == token else {
            lock.unlock()
            return
        }
        waiting = nil
        lock.unlock()
        w.resume(.failure(error))
    }

    private func takeWaiting() -> (@Sendable (Result<String, CLIError>) -> Void)? {
        lock.lock()
        defer { lock.unlock() }
        let w = waiting
        waiting = nil
        return w?.resume
    }

    func receive(kind: Int32, text: String, number: Int) {
        switch kind {
        case Int32(SBWR_LOCAL_DESCRIPTION.rawValue):
            if let resume = takeWaiting() {
                resume(.success(text))
            } else {
                onEvent(.localDescription(sdp: text, isAnswer: number == 1))
            }
        case Int32(SBWR_LOCAL_CANDIDATE.rawValue):
            onEvent(.localCandidate(mline: number, candidate: text))
        case Int32(SBWR_ERROR.rawValue):
            if let resume = takeWaiting() {
                resume(.failure(CLIError("media: \(text)", exitCode: .media)))
            } else {
                onEvent(.error(text))
            }
        case Int32(SBWR_REMOTE_MEDIA.rawValue):
            onEvent(.remoteMedia(text))
        case Int32(SBWR_ICE_STATE.rawValue):
            onEvent(.iceState(text))
        case Int32(SBWR_PLAYBACK_ENDED.rawValue):
            onEvent(.playbackEnded)
        case Int32(SBWR_WARNING.rawValue):
            onEvent(.warning(text))
        default:
            break
        }
    }
}
