//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardDomain

extension FeatureError {
    /// `error` itself when it is this feature's, otherwise the store's failure as `database(_:)`.
    public static func mapping(_ error: any Error) -> Self {
        if let own = error as? Self { return own }
        return .database(DatabaseError(error))
    }
}
