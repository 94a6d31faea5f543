//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardStore

/// Courses' part of account deletion (lessons marked completed) and of the data export (`community_posts.json`,
/// `lesson_progress.json`).
public enum CoursesAccountData {
    /// Lessons the user marked completed.
    public static let deletionSteps: [AccountDeletionStep] = [
        .rows("lesson_progress", order: 110) { db, userId, limit in
            try CoursePostRepository.removeProgress(db, userId: userId, limit: limit)
        }
    ]

    /// `community_posts.json` (the posts the user wrote) and `lesson_progress.json` (the lessons the user completed).
    public static let exportSection = AccountExportSection(
        files: "community_posts.json, lesson_progress.json", order: 110
    ) { c in
        let userId = c.userId
        let (posts, progress) = try await c.pool.withConnection { db in
            (
                try CoursePostRepository.exportedPosts(db, userId: userId),
                try CoursePostRepository.exportedProgress(db, userId: userId)
            )
        }
        try c.add("community_posts.json", json: posts)
        try c.add("lesson_progress.json", json: progress)
    }
}
