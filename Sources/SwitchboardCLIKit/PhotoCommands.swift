//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
public import SwitchboardClient
import SwitchboardProtocol

// moment post, moments [--more], moments like, moment delete, avatar set/remove, and the photos of `post --photo`
// (docs/cli.md, "Photos and moments"). Files are read before anything is sent, so a missing file uploads nothing;
// each is uploaded with the client library (`uploadPhoto`: one `POST /photos`, or tus for files over 5 MB).

/// A photo file read from disk, ready to upload.
public struct PhotoFile: Sendable {
    public var path: String
    public var bytes: [UInt8]
}

extension CLIContext {
    /// At most this many files per `moment post` (the server's `--moment-max-photos` default).
    public static let maxMomentPhotos = 9
    /// At most this many `--photo` per post (the server's `--post-max-photos` default).
    public static let maxPostPhotos = 4

    /// Reads every file first: a missing or unreadable one is exit 6 (local file) before anything is uploaded.
    public static func readPhotoFiles(_ paths: [String]) throws(CLIError) -> [PhotoFile] {
        var files: [PhotoFile] = []
        for path in paths {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw CLIError("cannot read \(path)", exitCode: .localFile)
            }
            guard !data.isEmpty else { throw CLIError("\(path) is empty", exitCode: .localFile) }
            files.append(PhotoFile(path: path, bytes: Array(data)))
        }
        return files
    }

    /// `12.3 MB`, `840 kB`.
    static func byteSize(_ n: Int) -> String {
        n >= 1_000_000 ? String(format: "%.1f MB", Double(n) / 1e6) : "\(max(1, n / 1000)) kB"
    }

    /// Uploads the files one after the other (`photo.uploaded` for each, with the upload's progress on a terminal
    /// for large files); the photo ids in order.
    func uploadPhotos(_ files: [PhotoFile], _ session: AuthenticatedSession) async throws(CLIError) -> [Int64] {
        var ids: [Int64] = []
        for (index, file) in files.enumerated() {
            let name = (file.path as NSString).lastPathComponent
            let counter = files.count > 1 ? " \(index + 1)/\(files.count)" : ""
            let printer = self.printer
            let resumable = file.bytes.count > PhotoUploadOptions().resumableThreshold
            var progress: (@Sendable (Int, Int) -> Void)?
            if resumable {
                progress = { received, total in
                    printer.hint("uploading \(name): \(received * 100 / max(1, total)) % of \(Self.byteSize(total))")
                }
            }
            let report = progress
            let photo = try await ask(session, "uploading \(name)") { () async throws(SwitchboardClientError) in
                try await session.client.uploadPhoto(bytes: file.bytes, progress: report)
            }
            ids.append(photo.photoId)
            printer.emit(
                OutputRecord(
                    "photo.uploaded",
                    [
                        "file": .string(file.path), "photo_id": .int(photo.photoId), "width": .int(Int64(photo.width)),
                        "height": .int(Int64(photo.height)), "color": .string(photo.color),
                        "has_alpha": .bool(photo.hasAlpha),
                        "created_at": .string(photo.createdAt), "duplicate": .bool(photo.duplicate),
                    ],
                    text:
                        "uploaded photo\(counter) \(name) "
                        + "(\(Self.byteSize(file.bytes.count))\(resumable ? ", resumable" : "")): "
                        + "photo #\(photo.photoId) \(photo.width) x \(photo.height)"
                        + (photo.duplicate ? " (uploaded before)" : ""),
                    style: .dim))
        }
        return ids
    }

    // MARK: formatting

    /// `#12 4000x3000`.
    static func photoLabel(_ p: Photo) -> String { "#\(p.photoId) \(p.width)x\(p.height)" }

    static func userLabel(_ u: SocialUser) -> String {
        u.handle.map { "@\($0)" } ?? u.displayName
    }

    /// `#7 @ann: caption  [3 photos: #12 4000x3000, ...]  ♥ 2✓ (@bob, @cy)  2026-11-25 01:02`.
    static func momentLine(_ m: Moment) -> String {
        var s = "#\(m.momentId) \(userLabel(m.owner))"
        if !m.caption.isEmpty { s += ": " + m.caption.replacingOccurrences(of: "\n", with: " ⏎ ") }
        s +=
            "  [\(m.photos.count) photo\(m.photos.count == 1 ? "" : "s"): "
            + m.photos.map(photoLabel).joined(separator: ", ") + "]"
        s += "  ♥ \(m.likeCount)\(m.liked ? "✓" : "")"
        if !m.recentLikers.isEmpty {
            let others = m.likeCount - Int64(m.recentLikers.count)
            s +=
                " (" + m.recentLikers.map(userLabel).joined(separator: ", ") + (others > 0 ? " and \(others) more" : "")
                + ")"
        }
        if !m.createdAt.isEmpty { s += "  " + shortTime(m.createdAt) }
        return s
    }

    static func momentRecord(_ type: String, _ m: Moment, style: OutputStyle = .plain) -> OutputRecord {
        OutputRecord(type, ["moment": SocialAPI.jsonValue(m)], text: momentLine(m), style: style)
    }

    static func momentId(_ text: String) throws(CLIError) -> Int64 { try id(text, what: "MOMENT_ID") }

    // MARK: moments

    /// `moment post FILE... [--caption TEXT]`: uploads the photos, then `moments.create` (with a `client_id`, so a
    /// resend after a lost reply makes one moment).
    public func postMoment(files paths: [String], caption: String?) async throws(CLIError) {
        guard !paths.isEmpty else {
            throw CLIError(
                "moment post FILE... [--caption TEXT]: give 1-\(Self.maxMomentPhotos) photos", exitCode: .usage)
        }
        guard paths.count <= Self.maxMomentPhotos else {
            throw CLIError("a moment has at most \(Self.maxMomentPhotos) photos (not \(paths.count))", exitCode: .usage)
        }
        let files = try Self.readPhotoFiles(paths)
        try await withSession { session throws(CLIError) in
            let ids = try await uploadPhotos(files, session)
            guard Set(ids).count == ids.count else {
                throw CLIError("the same photo twice: a moment's photos are distinct", exitCode: .usage)
            }
            let clientId = "cli-" + UUID().uuidString.lowercased()
            let moment = try await ask(session, "posting the moment") { () async throws(SwitchboardClientError) in
                try await session.client.createMoment(photoIds: ids, caption: caption, clientId: clientId)
            }
            var r = Self.momentRecord("moment.created", moment, style: .success)
            r.text = "posted moment " + r.text
            printer.emit(r)
        }
    }

    /// `moments [--more] [--before ID] [--limit N]`: a page of the feed (mine and my friends', newest first);
    /// `--more` goes on from where the last page of this profile ended.
    public func showMoments(more: Bool, before: Int64?, limit: Int?) async throws(CLIError) {
        if more && before != nil { throw CLIError("give --more or --before, not both", exitCode: .usage) }
        var cursor = before
        if more {
            guard let saved = store.momentsCursor() else {
                printer.hint("no more moments (run `moments` for the newest)")
                return
            }
            cursor = saved
        }
        try await withSession { session throws(CLIError) in
            let from = cursor
            let page = try await ask(session, "reading the moments") { () async throws(SwitchboardClientError) in
                try await session.client.momentsFeed(before: from, limit: limit)
            }
            for m in page.moments { printer.emit(Self.momentRecord("moment", m)) }
            store.recordMomentsCursor(page.nextBefore)
            printer.emit(
                OutputRecord(
                    "moments.page",
                    [
                        "next_before": page.nextBefore.map(JSONValue.int) ?? .null,
                        "count": .int(Int64(page.moments.count)),
                    ],
                    text: page.moments.isEmpty && from == nil
                        ? "No moments yet" : page.nextBefore != nil ? "more: moments --more" : "no older moments",
                    style: .dim))
        }
    }

    /// `moments like ID [--undo]`.
    public func likeMoment(_ target: String, undo: Bool) async throws(CLIError) {
        let id = try Self.momentId(target)
        try await withSession { session throws(CLIError) in
            let r = try await ask(session, undo ? "unliking the moment" : "liking the moment") {
                () async throws(SwitchboardClientError) in
                if undo { try await session.client.unlikeMoment(id) } else { try await session.client.likeMoment(id) }
            }
            printer.emit(
                OutputRecord(
                    undo ? "moment.unliked" : "moment.liked",
                    ["moment_id": .int(r.momentId), "like_count": .int(r.likeCount), "liked": .bool(r.liked)],
                    text: "\(r.liked ? "liked" : "not liking") moment #\(r.momentId)  ♥ \(r.likeCount)", style: .success
                ))
        }
    }

    /// `moments likers ID`: who liked a moment, newest first.
    public func momentLikers(_ target: String) async throws(CLIError) {
        let id = try Self.momentId(target)
        try await withSession { session throws(CLIError) in
            var before: String?
            var shown = 0
            for _ in 0..<100 {
                let cursor = before
                let page = try await ask(session, "listing the likers") { () async throws(SwitchboardClientError) in
                    try await session.client.momentLikers(id, before: cursor, limit: 100)
                }
                for u in page.likers {
                    printer.emit(
                        OutputRecord(
                            "moment.liker", ["moment_id": .int(id), "user": SocialAPI.jsonValue(u)],
                            text: (u.handle.map { "@\($0) (\(u.displayName))" } ?? u.displayName) + "  #\(u.userId)"))
                }
                shown += page.likers.count
                guard let next = page.nextBefore, !page.likers.isEmpty else { break }
                before = next
            }
            if shown == 0 { printer.hint("no likes yet") }
        }
    }

    /// `moment delete ID`.
    public func deleteMoment(_ target: String) async throws(CLIError) {
        let id = try Self.momentId(target)
        try await withSession { session throws(CLIError) in
            try await ask(session, "deleting the moment") { () async throws(SwitchboardClientError) in
                try await session.client.deleteMoment(id)
            }
            printer.emit(
                OutputRecord("moment.deleted", ["moment_id": .int(id)], text: "deleted moment #\(id)", style: .success))
        }
    }

    // MARK: avatar

    /// `avatar set FILE`: uploads the photo and makes it your profile picture.
    public func setAvatar(file path: String) async throws(CLIError) {
        let files = try Self.readPhotoFiles([path])
        try await withSession { session throws(CLIError) in
            let ids = try await uploadPhotos(files, session)
            let profile = try await ask(session, "setting the profile picture") {
                () async throws(SwitchboardClientError) in
                try await session.client.setAvatar(photoId: ids[0])
            }
            let avatar = profile.avatar
            printer.emit(
                OutputRecord(
                    "avatar.set", ["profile": SocialAPI.jsonValue(profile)],
                    text: "your profile picture is photo " + (avatar.map(Self.photoLabel) ?? "#\(ids[0])"),
                    style: .success))
        }
    }

    /// `avatar remove`.
    public func removeAvatar() async throws(CLIError) {
        try await withSession { session throws(CLIError) in
            let profile = try await ask(session, "removing the profile picture") {
                () async throws(SwitchboardClientError) in
                try await session.client.removeAvatar()
            }
            printer.emit(
                OutputRecord(
                    "avatar.removed", ["profile": SocialAPI.jsonValue(profile)], text: "profile picture removed",
                    style: .success))
        }
    }
}

extension EventFormatter {
    /// A moment event in a sentence (`listen` shows them): a friend's new moment, a deletion, a like; nil for other
    /// events.
    public static func moments(_ raw: RawEvent) -> OutputRecord? {
        switch raw.name {
        case MomentEvents.Created.name:
            guard let e = try? raw.decode(MomentEvents.Created.self) else { return nil }
            var r = CLIContext.momentRecord("moment.created", e.moment, style: .incoming)
            r.text = "new moment " + r.text
            return r
        case MomentEvents.Deleted.name:
            guard let e = try? raw.decode(MomentEvents.Deleted.self) else { return nil }
            return OutputRecord(
                "moment.deleted", ["moment_id": .int(e.momentId), "owner_id": .int(e.ownerId)],
                text: "moment #\(e.momentId) was deleted",
                style: .dim)
        case MomentEvents.Liked.name:
            guard let e = try? raw.decode(MomentEvents.Liked.self) else { return nil }
            return OutputRecord(
                "moment.liked",
                [
                    "moment_id": .int(e.momentId), "like_count": .int(e.likeCount), "liked": .bool(e.liked),
                    "user": SocialAPI.jsonValue(e.user),
                ],
                text:
                    """
                    \(CLIContext.userLabel(e.user)) \(e.liked ? "liked" : "unliked") moment #\(e.momentId)  ♥ \
                    \(e.likeCount)
                    """,
                style: .incoming)
        default:
            return nil
        }
    }
}
