//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// How a string parameter of an op is checked while the op's parameters are decoded (`docs/protocol.md`, "Stored
/// strings"). Every string of every op's parameters is checked, whatever its op: an op declares the fields that are
/// not one-line strings in `ProtocolOperation.stringParameters`, every other string is `.line`.
public enum StringParameter: Sendable, Equatable {
    /// A name, an id, a cursor, a phone number: no U+0000, no control character (U+0000-001F, U+007F-009F), no
    /// U+2028/U+2029, at most `StringParameterLimits.maxLineBytes` bytes (UTF-8).
    case line
    /// Free text (a message, a caption, a description): line feed, carriage return and tab allowed, no other
    /// control character, at most `StringParameterLimits.maxTextBytes` bytes; its feature's limits apply after.
    case text
    /// Free text like `.text` whose refusal is `invalid_text`, not `bad_request`: the `text` of `messages.send` and
    /// `post.create`, which answer every rule of their text with that code.
    case message
    /// A password: compared, never stored as given; only U+0000 is refused, at most `maxLineBytes` bytes.
    case secret
    /// A value parsed or compared by its feature, never stored as given (a phone number, a handle to check): only
    /// its length is checked here (`maxLineBytes`); its feature answers for its characters (`invalid_phone`, an
    /// invalid number skipped by `contacts.match`, `handle.check`'s `reason: "invalid"`).
    case lookup
}
