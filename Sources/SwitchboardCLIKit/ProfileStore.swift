//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The profile files in the config folder: `<dir>/<profile>.json` (mode 0600, folder 0700), plus
/// `<dir>/<profile>.call` with the id of the call a `call` or `listen` process of this profile is in (for
/// `hangup` without an argument), and `<dir>/<profile>.moments` with where `moments --more` goes on.
public struct ProfileStore: Sendable {
    /// The config folder.
    public let directory: String
    /// The profile name (`default`).
    public let profile: String

    /// - Throws: `CLIError` (usage) for a profile name that is not 1-64 letters, digits, `.`, `_` or `-`, or
    ///   starts with a dot.
    public init(directory: String, profile: String) throws(CLIError) {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        guard (1...64).contains(profile.count), !profile.hasPrefix("."), profile.allSatisfy({ allowed.contains($0) })
        else {
            throw CLIError(
                "invalid profile name \"\(profile)\": use 1-64 letters, digits, '.', '_' or '-'", exitCode: .usage)
        }
        self.directory = directory
        self.profile = profile
    }

    /// The config folder: `$SWITCHBOARD_CONFIG_DIR`, else `$XDG_CONFIG_HOME/switchboard`, else
    /// `$HOME/.config/switchboard`.
    public static func defaultDirectory(environment: [String: String]) -> String {
        if let dir = environment["SWITCHBOARD_CONFIG_DIR"], !dir.isEmpty { return dir }
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") { return xdg + "/switchboard" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.config/switchboard"
    }

    /// The profile's file.
    public var path: String { directory + "/" + profile + ".json" }
    /// The file naming the profile's current call.
    public var callPath: String { directory + "/" + profile + ".call" }
    /// The file with where `moments --more` goes on (the last page's `next_before`).
    public var momentsCursorPath: String { directory + "/" + profile + ".moments" }

    /// The saved profile, or nil when there is none.
    /// - Throws: `CLIError` (local file) when the file exists but cannot be read or parsed.
    public func load() throws(CLIError) -> Profile? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CLIError("cannot read \(path)", exitCode: .localFile)
        }
        do {
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            return try decoder.decode(Profile.self, from: data)
        } catch {
            throw CLIError(
                "\(path) is not a valid profile file (\(error)); delete it and log in again", exitCode: .localFile)
        }
    }

    /// Writes the profile: the folder is created with mode 0700 (and set to it), the file is written to a
    /// temporary name inside it with mode 0600 and renamed over the old one.
    public func save(_ value: Profile) throws(CLIError) {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        let data: Data
        do { data = try encoder.encode(value) } catch {
            throw CLIError("cannot encode the profile: \(error)", exitCode: .localFile)
        }
        try writePrivate(data + Data("\n".utf8), to: path)
    }

    /// Deletes the profile's files (a missing file is fine).
    public func delete() throws(CLIError) {
        for file in [path, callPath, momentsCursorPath] where FileManager.default.fileExists(atPath: file) {
            do { try FileManager.default.removeItem(atPath: file) } catch {
                throw CLIError("cannot delete \(file): \(error.localizedDescription)", exitCode: .localFile)
            }
        }
    }

    /// Records the call this profile's device is in (or clears it with nil). Failures are ignored: the file
    /// is only a convenience for `hangup`.
    public func recordCurrentCall(_ callId: String?) {
        if let callId {
            try? writePrivate(Data((callId + "\n").utf8), to: callPath)
        } else {
            try? FileManager.default.removeItem(atPath: callPath)
        }
    }

    /// The call recorded by `recordCurrentCall`, if any.
    public func currentCall() -> String? {
        guard let data = FileManager.default.contents(atPath: callPath) else { return nil }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }

    /// Records where the moments feed goes on (the last page's `next_before`), or clears it with nil (the end).
    /// Failures are ignored: the file is only a convenience for `moments --more`.
    public func recordMomentsCursor(_ before: Int64?) {
        if let before {
            try? writePrivate(Data("\(before)\n".utf8), to: momentsCursorPath)
        } else {
            try? FileManager.default.removeItem(atPath: momentsCursorPath)
        }
    }

    /// The cursor recorded by `recordMomentsCursor`, if any.
    public func momentsCursor() -> Int64? {
        guard let data = FileManager.default.contents(atPath: momentsCursorPath) else { return nil }
        return Int64(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// The permission bits of a file or folder (for checks and tests).
    public static func mode(of path: String) -> Int? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return nil }
        return (attributes[.posixPermissions] as? NSNumber)?.intValue
    }

    private func writePrivate(_ data: Data, to target: String) throws(CLIError) {
        let fm = FileManager.default
        do {
            try fm.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try fm.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory)
        } catch {
            throw CLIError(
                "cannot create the config folder \(directory): \(error.localizedDescription)", exitCode: .localFile)
        }
        // The folder is private (0700), so the temporary file is never visible to others, whatever its mode
        // is for the instant between its creation and the chmod.
        let temporary = directory + "/." + profile + ".tmp-\(getpid())"
        guard fm.createFile(atPath: temporary, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw CLIError("cannot write \(temporary)", exitCode: .localFile)
        }
        do {
            try fm.setAttributes([.posixPermissions: 0o600], ofItemAtPath: temporary)
        } catch {
            try? fm.removeItem(atPath: temporary)
            throw CLIError("cannot set the mode of \(temporary): \(error.localizedDescription)", exitCode: .localFile)
        }
        guard rename(temporary, target) == 0 else {
            let why = String(cString: strerror(errno))
            try? fm.removeItem(atPath: temporary)
            throw CLIError("cannot write \(target): \(why)", exitCode: .localFile)
        }
    }
}
