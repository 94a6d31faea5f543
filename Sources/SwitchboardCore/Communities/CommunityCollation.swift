//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardDomain
public import SwitchboardStore
import Synchronization

/// The ICU collation that orders names in a user's locale.
public enum CommunityCollation {
    private static let known = Mutex<Set<String>?>(nil)

    /// The name of the ICU collation for a BCP 47 locale (`fr-FR`): `fr-FR-x-icu` when PostgreSQL has it, else the
    /// language's (`fr-x-icu`), else the root collation `und-x-icu`. Only names read from `pg_collation` are
    /// returned (they are put in SQL text).
    public static func name(_ db: PostgresConnection, locale: String?) throws -> String {
        let names: Set<String>
        if let cached = known.withLock({ $0 }) {
            names = cached
        } else {
            names = Set(
                try db.execute(cached: "SELECT collname FROM pg_collation WHERE collprovider = 'i'").map {
                    try $0.decode(String.self, column: 0)
                }
                .filter(isSafeName))
            known.withLock { $0 = names }
        }
        let tag = (locale ?? "en-US").replacingOccurrences(of: "_", with: "-")
        var candidates = ["\(tag)-x-icu"]
        if let language = tag.split(separator: "-").first { candidates.append("\(language)-x-icu") }
        for candidate in candidates {
            if let found = names.first(where: { $0.caseInsensitiveCompare(candidate) == .orderedSame }) { return found }
        }
        guard names.contains("und-x-icu") else { throw CommunityError.noCollations }
        return "und-x-icu"
    }

    /// Whether a collation name can be put in SQL text between double quotes (letters, digits, `-`, `_`).
    static func isSafeName(_ name: String) -> Bool {
        !name.isEmpty
            && name.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_")
            }
    }
}
