//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardProtocol

/// A frame from the server, classified with one JSON parse.
enum IncomingFrame {
    /// A successful reply.
    case reply(id: RequestID, payload: ReplyPayload)
    /// An error reply (`id` nil when the server could not read the request's id).
    case error(id: RequestID?, ServerError)
    /// An event.
    case event(ClientEvent)

    /// - Parameter receivedAt: when the frame was read (monotonic ns), for `RawEvent.receivedAt`.
    ///
    /// An event the client passes on raw (calls, communities, social, later versions' events) is not parsed here:
    /// a scan of the top-level object finds its `ev`, and its consumer decodes the fields it needs. A load tester's
    /// clients otherwise spent one full JSON parse per community notification (2,000 per publication) before any
    /// other event behind them was seen. Replies and the events the client models get the one full parse.
    static func decode(_ bytes: [UInt8], receivedAt: UInt64 = 0) throws -> IncomingFrame {
        if let name = TopLevelScan.eventName(bytes), !Decoded.modelled.contains(name) {
            return .event(.other(RawEvent(name: name, frame: bytes, receivedAt: receivedAt)))
        }
        return try WireCoding.decoder().decode(Decoded.self, from: Data(bytes)).frame(bytes, receivedAt: receivedAt)
    }

    private struct Decoded: Decodable {
        enum Kind {
            case reply(RequestID)
            case error(RequestID?, ServerError)
            /// The typed event, or nil and the name read in the same parse (the frame is passed on raw).
            case event(ClientEvent?, name: String)
        }

        var kind: Kind

        func frame(_ bytes: [UInt8], receivedAt: UInt64) -> IncomingFrame {
            switch kind {
            case .reply(let id): return .reply(id: id, payload: ReplyPayload(frame: bytes))
            case .error(let id, let e): return .error(id: id, e)
            case .event(let event, let name):
                return .event(event ?? .other(RawEvent(name: name, frame: bytes, receivedAt: receivedAt)))
            }
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: WireKey.self)
            if let name = try c.decodeIfPresent(String.self, forKey: WireKey("ev")) {
                kind = .event(try Self.event(name, c, decoder), name: name)
                return
            }
            let re = WireKey("re")
            let id = try c.decodeNil(forKey: re) ? nil : try c.decode(RequestID.self, forKey: re)
            if c.contains(WireKey("error")) {
                kind = .error(id, try c.decode(ReplyError.self, forKey: WireKey("error")))
            } else if let id, c.contains(WireKey("ok")) {
                kind = .reply(id)
            } else {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(codingPath: [], debugDescription: "a server frame has ev, ok or error"))
            }
        }

        /// The names of the events `event(_:_:_:)` makes typed events of; every other event is passed on raw.
        static let modelled: Set<String> = [
            MessageEvent.name, ReadReceipt.name, HiddenMessage.name, MessageReactionEvent.name, PresenceUpdate.name,
            PresenceSnapshot.name, TypingUpdate.name, ServerEvent.Name.friendRequestReceived.rawValue,
            ServerEvent.Name.friendRequestAccepted.rawValue,
            ServerEvent.Name.friendRequestDeclined.rawValue, ServerEvent.Name.friendRequestCancelled.rawValue,
            ServerEvent.Name.friendRemoved.rawValue, ServerEvent.Name.profileUpdated.rawValue,
            ServerEvent.Name.sessionRevoked.rawValue,
        ]

        /// The typed event, or nil for one the client passes on raw (every name it types is in `modelled`).
        static func event(
            _ name: String, _ c: KeyedDecodingContainer<WireKey>, _ decoder: any Decoder
        ) throws -> ClientEvent? {
            switch name {
            case MessageEvent.name: return .message(try MessageEvent(from: decoder).message)
            case ReadReceipt.name: return .conversationRead(try ReadReceipt(from: decoder))
            case HiddenMessage.name: return .messageHidden(try HiddenMessage(from: decoder))
            case MessageReactionEvent.name: return .messageReaction(try MessageReactionEvent(from: decoder))
            case PresenceUpdate.name: return .presence(try PresenceUpdate(from: decoder))
            case PresenceSnapshot.name: return .presenceSnapshot(try PresenceSnapshot(from: decoder).presence)
            case TypingUpdate.name: return .typing(try TypingUpdate(from: decoder))
            case ServerEvent.Name.friendRequestReceived.rawValue:
                return .account(.friendRequestReceived(try .init(from: decoder)))
            case ServerEvent.Name.friendRequestAccepted.rawValue:
                return .account(.friendRequestAccepted(try .init(from: decoder)))
            case ServerEvent.Name.friendRequestDeclined.rawValue:
                return .account(.friendRequestDeclined(try .init(from: decoder)))
            case ServerEvent.Name.friendRequestCancelled.rawValue:
                return .account(.friendRequestCancelled(try .init(from: decoder)))
            case ServerEvent.Name.friendRemoved.rawValue: return .account(.friendRemoved(try .init(from: decoder)))
            case ServerEvent.Name.profileUpdated.rawValue: return .account(.profileUpdated(try .init(from: decoder)))
            case ServerEvent.Name.sessionRevoked.rawValue: return .account(.sessionRevoked(try .init(from: decoder)))
            default: return nil
            }
        }
    }
}
