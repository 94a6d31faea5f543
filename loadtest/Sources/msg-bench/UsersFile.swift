//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// What `setup` writes and the scenarios read.
struct UsersFile: Codable, Sendable {
    var host: String
    var port: Int
    var users: [BenchUser]
    var pairs: [BenchPair]
    /// The group of users[0..<groupSize] (user 0 created it), if any.
    var groupId: Int?
    var groupSize: Int

    static func load(_ path: String) throws -> UsersFile {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(UsersFile.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }

    func save(_ path: String) throws {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        try encoder.encode(self).write(to: URL(fileURLWithPath: path))
    }
}
