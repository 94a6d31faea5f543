// replaced by h/live (SocialLive.swift): the contract's change enum and a publish that drops changes.

public enum SocialChange: Sendable {
    case postCreated(postId: Int64)
    case postDeleted(postId: Int64, authorId: Int64, threadRoot: Int64?, seq: Int64)
    case counts(postId: Int64)
    case notified(userId: Int64, notificationId: Int64)
    case followChanged(followerId: Int64, followeeId: Int64, active: Bool)
    case blockChanged(blockerId: Int64, blockedId: Int64, blocked: Bool)
    case muteChanged(muterId: Int64, mutedId: Int64, muted: Bool)
}

func publishSocial(_ services: ProtocolServices, _ change: SocialChange) {}

import SwitchboardProtocol
// replaced by h/graph: `.handleRequired`.
let handleRequiredCode = ErrorCode.forbidden
