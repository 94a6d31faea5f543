//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardDomain
public import SwitchboardProtocol

extension WireTimestamp {
    /// The SQL expression formatting the `timestamptz` expression `column` in the wire format (NULL stays NULL).
    /// Independent of the session's time zone.
    public static func sql(_ column: String) -> String {
        "to_char((\(column)) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"
    }
}
