//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardDomain
public import SwitchboardProtocol
public import SwitchboardStore

/// One file of an export archive.
public struct ExportEntry: Sendable {
    public var path: String
    public var bytes: [UInt8]
}

/// The collected export ran past its size limit.
public struct ExportTooLarge: Error {
    public init() {}
}

/// The SQL of data exports (`data_exports`) and of collecting a user's data.
public enum AccountExportRepository {
    static let infoColumns = """
        id, state, \(WireTimestamp.sql("requested_at")), CASE WHEN expires_at IS NULL THEN NULL ELSE \(WireTimestamp.sql("expires_at")) END, size, error
        """

    static func info(_ r: PostgresRow) throws(PostgresDecodingError) -> DataExportInfo {
        DataExportInfo(
            exportId: try r.decode(column: 0), state: try r.decode(column: 1), requestedAt: try r.decode(column: 2),
            expiresAt: try r.decode(column: 3), size: try r.decode(column: 4), error: try r.decode(column: 5))
    }

    /// Starts an export (one transaction, under the user's row lock): `rate_limited` while another is building or
    /// when `perDay` were requested in the last 24 hours.
    public static func start(_ db: PostgresConnection, userId: Int64, perDay: Int) throws -> DataExportInfo {
        guard try db.execute(cached: "SELECT id FROM users WHERE id = $1 AND deleted_at IS NULL FOR UPDATE", [.int(userId)]).first != nil
        else { throw ServiceError(.notFound, "no such account") }
        let r = try db.execute(
            cached: """
                SELECT count(*) FILTER (WHERE state = 'building'), count(*),
                  COALESCE(CEIL(EXTRACT(EPOCH FROM (min(requested_at) + interval '1 day' - now())) * 1000), 0)::bigint
                FROM data_exports WHERE user_id = $1 AND requested_at > now() - interval '1 day'
                """, [.int(userId)]
        ).first
        let building = try r?.decode(Int64.self, column: 0) ?? 0
        let today = try r?.decode(Int64.self, column: 1) ?? 0
        if building > 0 { throw ServiceError(.rateLimited, "an export is already being built", extra: ["retry_after_ms": 5_000]) }
        if today >= perDay {
            let retry = max(1_000, try r?.decode(Int64.self, column: 2) ?? 1_000)
            throw ServiceError(.rateLimited, "at most \(perDay) exports a day", extra: ["retry_after_ms": retry])
        }
        guard
            let row = try db.execute(
                cached: "INSERT INTO data_exports (user_id, state) VALUES ($1, 'building') RETURNING \(infoColumns)", [.int(userId)]
            ).first
        else { throw ServiceError(.internal, "internal error") }
        return try info(row)
    }

    /// The user's exports, newest first (at most 20).
    public static func list(_ db: PostgresConnection, userId: Int64) throws -> [DataExportInfo] {
        try db.execute(
            cached: "SELECT \(infoColumns) FROM data_exports WHERE user_id = $1 ORDER BY id DESC LIMIT 20", [.int(userId)]
        ).map { try info($0) }
    }

    /// Exports still building whose builder is gone (requested before `olderThanSeconds` ago): (id, user).
    public static func stale(_ db: PostgresConnection, olderThanSeconds: Double) throws -> [(Int64, Int64)] {
        try db.execute(
            cached: """
                SELECT id, user_id FROM data_exports WHERE state = 'building'
                AND requested_at < now() - make_interval(secs => $1::double precision) ORDER BY id LIMIT 100
                """, [.double(olderThanSeconds)]
        ).map { (try $0.decode(Int64.self, column: 0), try $0.decode(Int64.self, column: 1)) }
    }

    /// Marks an export ready (with its file, size and expiry) or failed; the updated info, nil when it is gone.
    public static func finish(
        _ db: PostgresConnection, id: Int64, file: String?, size: Int64?, ttlSeconds: Double, error: String?
    ) throws -> DataExportInfo? {
        try db.execute(
            cached: """
                UPDATE data_exports SET state = CASE WHEN $5::text IS NULL THEN 'ready' ELSE 'failed' END, ready_at = now(),
                  expires_at = CASE WHEN $5::text IS NULL THEN now() + make_interval(secs => $4::double precision) END,
                  file = $2, size = $3, error = $5
                WHERE id = $1 AND state = 'building' RETURNING \(infoColumns)
                """, [.int(id), file.map { .text($0) }, size.map { .int($0) }, .double(ttlSeconds), error.map { .text($0) }]
        ).first.map { try info($0) }
    }

    /// Marks expired exports and returns their files (to delete).
    public static func expire(_ db: PostgresConnection) throws -> [String] {
        try db.execute(
            cached: "UPDATE data_exports SET state = 'expired', file = NULL WHERE state = 'ready' AND expires_at <= now() RETURNING file"
        ).compactMap { try $0.decode(String?.self, column: 0) }
    }

    /// Every file a live export row names (the others in the folder are leftovers).
    public static func liveFiles(_ db: PostgresConnection) throws -> Set<String> {
        Set(try db.execute(cached: "SELECT file FROM data_exports WHERE file IS NOT NULL").map { try $0.decode(String.self, column: 0) })
    }

    /// The file of a ready, unexpired export of `userId` (nil for anyone else's, or an unknown id).
    public static func readyFile(_ db: PostgresConnection, id: Int64, userId: Int64) throws -> String? {
        try db.execute(
            cached: "SELECT file FROM data_exports WHERE id = $1 AND user_id = $2 AND state = 'ready' AND expires_at > now()",
            [.int(id), .int(userId)]
        ).first.map { try $0.decode(String?.self, column: 0) } ?? nil
    }

    // MARK: collecting

    private struct ExportedConversation: Encodable {
        var conversationId: Int64
        var kind: String
        var name: String?
        var members: [ExportedUser]
        var joinedSeq: Int64
        var leftSeq: Int64?
        var messages: [ChatMessage]
    }

    private struct ExportedUser: Encodable {
        var userId: Int64
        var displayName: String
    }

    private struct ExportedReaction: Encodable {
        var messageId: Int64
        var conversationId: Int64
        var emoji: String
        var createdAt: String
    }

    private struct ExportedClip: Encodable {
        var voiceId: Int64
        var durationMs: Int64
        var size: Int64
        var createdAt: String
        var file: String
    }

    private struct ExportedActiveHours: Encodable {
        struct Day: Encodable {
            var date: String
            var seconds: Int64
        }
        var timeZone: String
        var days: [Day]
    }

    /// The active-hours series (`active_hours.json`): seconds per local date, in the zones they were recorded in.
    private static func activeHours(pool: DatabasePool, userId: Int64) async throws -> ExportedActiveHours {
        try await pool.withConnection { db in
            let zone = try ActiveHoursRepository.subject(db, userId: userId)?.timeZone
            let days = try ActiveHoursRepository.series(db, userId: userId).map { ExportedActiveHours.Day(date: $0.day, seconds: $0.seconds) }
            return ExportedActiveHours(timeZone: zone ?? "UTC", days: days)
        }
    }

    private struct ExportedCommunity: Encodable {
        var communityId: Int64
        var name: String
        var role: String
        var joinedAt: String
    }

    private struct Manifest: Encodable {
        var format = "switchboard-export-1"
        var userId: Int64
        var exportId: Int64
        var createdAt: String
        var files: [String]
    }

    static func json(_ value: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }

    /// Collects `userId`'s data as the archive's files: `profile.json`, `friends.json`, `sessions.json`,
    /// `conversations.json` (every conversation the user is or was in, with the messages the user can see),
    /// `reactions.json`, `voice.json` and `voice/<id>.ogg` (the clips the user sent), `communities.json` (the
    /// communities the user is a member of: id, name, role, joined_at), `community_posts.json` (the posts the user
    /// wrote), `lesson_progress.json` (the lessons the user completed), `manifest.json`. Reads in
    /// pages, each on a connection lease of its own; throws `ExportTooLarge` past `maxBytes`.
    public static func collect(pool: DatabasePool, userId: Int64, exportId: Int64, maxBytes: Int) async throws -> [ExportEntry] {
        var entries: [ExportEntry] = []
        var total = 0
        func add(_ path: String, _ bytes: [UInt8]) throws {
            total += bytes.count + 1024
            if total > maxBytes { throw ExportTooLarge() }
            entries.append(ExportEntry(path: path, bytes: bytes))
        }
        let (profile, friends, sessions, memberships, reactions, clips, now, communities) = try await pool.withConnection { db in
            var profile = try UserRepository.profile(db, of: userId)
            if var p = profile {
                try SocialGraphRepository.decorate(db, &p, viewer: userId)
                profile = p
            }
            let friends = try FriendRepository.friends(db, of: userId).map { ExportedUser(userId: $0.userId, displayName: $0.displayName) }
            let sessions = try SessionRepository.list(db, of: userId, currentSessionId: 0)
            let memberships = try db.execute(
                cached: """
                    SELECT c.id, c.kind, c.name, mb.joined_seq, mb.left_seq FROM members mb JOIN conversations c ON c.id = mb.conversation_id
                    WHERE mb.user_id = $1 ORDER BY c.id
                    """, [.int(userId)]
            ).map { r in
                ExportedConversation(
                    conversationId: try r.decode(column: 0), kind: try r.decode(column: 1), name: try r.decode(column: 2), members: [],
                    joinedSeq: try r.decode(column: 3), leftSeq: try r.decode(column: 4), messages: [])
            }
            let reactions = try db.execute(
                cached: """
                    SELECT r.message_id, m.conversation_id, r.emoji, \(WireTimestamp.sql("r.created_at")) FROM message_reactions r
                    JOIN messages m ON m.id = r.message_id WHERE r.user_id = $1 ORDER BY r.created_at
                    """, [.int(userId)]
            ).map { r in
                ExportedReaction(
                    messageId: try r.decode(column: 0), conversationId: try r.decode(column: 1), emoji: try r.decode(column: 2),
                    createdAt: try r.decode(column: 3))
            }
            let clips = try db.execute(
                cached: """
                    SELECT id, duration_ms, size, \(WireTimestamp.sql("created_at")) FROM voice_clips WHERE uploader_id = $1 ORDER BY id
                    """, [.int(userId)]
            ).map { r in
                let id = try r.decode(Int64.self, column: 0)
                return ExportedClip(
                    voiceId: id, durationMs: try r.decode(column: 1), size: try r.decode(column: 2), createdAt: try r.decode(column: 3),
                    file: "voice/\(id).ogg")
            }
            let now = try db.execute(cached: "SELECT \(WireTimestamp.sql("now()"))").decodeFirst(String.self) ?? ""
            let communities = try CommunityRepository.memberships(db, userId: userId).map {
                ExportedCommunity(communityId: $0.communityId, name: $0.name, role: $0.role, joinedAt: $0.joinedAt)
            }
            return (profile, friends, sessions, memberships, reactions, clips, now, communities)
        }
        try add("profile.json", try json(profile))
        try add("friends.json", try json(friends))
        try add("sessions.json", try json(sessions))
        var conversations: [ExportedConversation] = []
        for var conversation in memberships {
            let id = conversation.conversationId
            let range = (conversation.joinedSeq, conversation.leftSeq ?? Int64.max)
            conversation.members = try await pool.withConnection { db in
                try db.execute(
                    cached: """
                        SELECT u.id, u.display_name FROM members mb JOIN users u ON u.id = mb.user_id
                        WHERE mb.conversation_id = $1 ORDER BY u.id
                        """, [.int(id)]
                ).map { ExportedUser(userId: try $0.decode(column: 0), displayName: try $0.decode(column: 1)) }
            }
            var after = range.0
            while true {
                let from = after
                let page = try await pool.withConnection { db in
                    try db.execute(
                        cached: """
                            SELECT \(MessageStore.messageColumns) FROM messages m
                            WHERE m.conversation_id = $1 AND m.seq > $2 AND m.seq <= $3 ORDER BY m.seq LIMIT 1000
                            """, [.int(id), .int(from), .int(range.1)]
                    ).map { try MessageStore.message($0) }
                }
                for message in page { total += (message.text?.utf8.count ?? 0) + 200 }
                if total > maxBytes { throw ExportTooLarge() }
                conversation.messages += page
                guard page.count == 1000, let last = page.last else { break }
                after = last.seq
            }
            conversations.append(conversation)
        }
        try add("conversations.json", try json(conversations))
        try add("reactions.json", try json(reactions))
        try add("voice.json", try json(clips))
        try add("active_hours.json", try json(try await Self.activeHours(pool: pool, userId: userId)))
        try add("communities.json", try json(communities))
        for clip in clips {
            let audio = try await pool.withConnection { db in
                try db.execute(cached: "SELECT audio FROM voice_clips WHERE id = $1 AND uploader_id = $2", [.int(clip.voiceId), .int(userId)])
                    .first.map { try $0.decode(PostgresBytes.self, column: 0).bytes }
            }
            if let audio { try add(clip.file, audio) }
        }
        let (posts, progress) = try await pool.withConnection { db in
            (try CoursePostRepository.exportedPosts(db, userId: userId), try CoursePostRepository.exportedProgress(db, userId: userId))
        }
        try add("social.json", try json(try await pool.withConnection { db in try SocialGraphRepository.export(db, userId: userId) }))
        // Moments and photos (issue 19): `moments.json` ({photos, moments}: every photo's metadata, the user's moments
        // as the user sees them) and `photos/<id>.jpg`, the display JPEG of each photo (the original is not kept).
        let (photos, moments) = try await pool.withConnection { db in
            let photos = try MomentRepository.mine(db, owner: userId, before: nil, limit: Int(Int32.max))
            let ids = try db.execute(cached: "SELECT id FROM moments WHERE owner_id = $1 ORDER BY id DESC", [.int(userId)]).decode(Int64.self, column: 0)
            return (photos, try MomentRepository.moments(db, ids: ids, viewer: userId))
        }
        try add("moments.json", try json(ExportedMoments(photos: photos, moments: moments)))
        for photo in photos {
            let jpeg = try await pool.withConnection { db in
                try db.execute(
                    cached: """
                        SELECT r.bytes FROM photo_renditions r JOIN photos p ON p.id = r.photo_id
                        WHERE r.photo_id = $1 AND p.owner_id = $2 AND r.size = 'display' AND r.format = 'jpeg'
                        """, [.int(photo.photoId), .int(userId)]
                ).first.map { try $0.decode(PostgresBytes.self, column: 0).bytes }
            }
            if let jpeg { try add("photos/\(photo.photoId).jpg", jpeg) }
        }
        try add("community_posts.json", try json(posts))
        try add("lesson_progress.json", try json(progress))
        let files = entries.map(\.path) + ["manifest.json"]
        try add("manifest.json", try json(Manifest(userId: userId, exportId: exportId, createdAt: now, files: files)))
        return entries
    }
}

/// `moments.json` of an export: the user's photos (metadata; the bytes are `photos/<id>.jpg`) and moments.
struct ExportedMoments: Encodable {
    var photos: [Photo]
    var moments: [Moment]
}
