//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardClient
import SwitchboardProtocol

extension CLIContext {
    /// `hangup [CALL_ID]`: ends a call of this profile's device from another process. The process
    /// authenticates with the same saved token, so the server sees the same device (a device is a session)
    /// and accepts the hangup (or the cancel/decline of a ringing call). Without an id, the call recorded by
    /// a running `call` or `listen` of this profile is used.
    public func hangup(callId given: String?) async throws(CLIError) {
        guard let callId = given ?? store.currentCall() else {
            throw CLIError(
                "no current call is recorded for profile \"\(store.profile)\" (\(store.callPath)); give the call id",
                exitCode: .usage)
        }
        try await withSession { session throws(CLIError) in
            do throws(SwitchboardClientError) {
                try await session.client.send(Ops.CallHangup.self, .init(callId: callId))
            } catch .server(let e) where e.code == "not_found" || e.code == "invalid_state" {
                store.recordCurrentCall(nil)
                throw CLIError(
                    "call \(callId) is not in progress (\(e.code))", exitCode: .serverRefused, serverCode: e.code)
            } catch {
                throw fail(error, "hanging up", session.url)
            }
            if given == nil || given == store.currentCall() { store.recordCurrentCall(nil) }
            printer.emit(
                OutputRecord(
                    "call.hangup", ["call_id": .string(callId)], text: "hung up call \(callId)", style: .success))
        }
    }
}
