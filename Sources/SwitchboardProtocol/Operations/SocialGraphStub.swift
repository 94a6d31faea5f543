// replaced by h/graph (SocialGraph.swift): the shared `social_user` object, exactly as the contract fixes it.

/// A user as posts, lists and notifications show it.
public struct SocialUser: Codable, Sendable, Equatable {
    public var userId: Int64
    public var displayName: String
    public var handle: String?
    public var `protected`: Bool
    public init(userId: Int64, displayName: String, handle: String?, protected: Bool) {
        self.userId = userId
        self.displayName = displayName
        self.handle = handle
        self.protected = protected
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(userId, forKey: .userId)
        try c.encode(displayName, forKey: .displayName)
        try c.encode(handle, forKey: .handle)
        try c.encode(`protected`, forKey: .protected)
    }
}
