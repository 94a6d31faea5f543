//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// What the media engine reports to a call session (through `SessionInput.media`).
public enum MediaEvent: Sendable, Equatable {
    /// A local ICE candidate line and its m-line index, to send as an `ice_candidate` signal.
    case localCandidate(mline: Int, candidate: String)
    /// A local description nobody awaited (a renegotiation's answer is awaited; this should not happen).
    case localDescription(sdp: String, isAnswer: Bool)
    /// The first RTP of a remote stream ("audio" or "video").
    case remoteMedia(String)
    case iceState(String)
    case error(String)
    case warning(String)
    /// The played file ended (played once).
    case playbackEnded
    /// A stats reading the session asked for (nil when the engine did not answer).
    case stats(MediaSnapshot?)
}
