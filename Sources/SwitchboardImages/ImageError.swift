//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Why an image was refused or could not be processed.
///
/// `description` names the case and, for `corrupt` and `processingFailed`, the decoder's reason (for logs; it never
/// contains image bytes). ``message`` is the sentence to show a user.
public enum ImageError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The upload is empty.
    case empty
    /// The upload has more bytes than ``ImageLimits/maxInputBytes``.
    case tooLarge(byteCount: Int, limit: Int)
    /// The bytes are not JPEG, PNG, WebP or HEIC; carries what they look like (`gif`, `tiff`, `avif`, `unknown`...).
    case unsupportedFormat(String)
    /// The header claims more pixels than ``ImageLimits/maxPixels`` (a pixel bomb, or simply too big a picture).
    case tooManyPixels(width: Int, height: Int)
    /// The file is malformed or truncated; the string says where (for logs, not for end users).
    case corrupt(String)
    /// libvips failed to start or to encode an output: a server-side failure, not the upload's fault.
    case processingFailed(String)

    /// A sentence for the person who uploaded the file.
    public var message: String {
        switch self {
        case .empty: "The file is empty."
        case .tooLarge(_, let limit):
            "The file is too large: at most \(ImageError.megabytes(limit)) MB is accepted."
        case .unsupportedFormat(let kind):
            kind == "unknown"
                ? "This is not a supported image. Use a JPEG, PNG, WebP or HEIC photo."
                : "\(kind.uppercased()) images are not supported. Use a JPEG, PNG, WebP or HEIC photo."
        case .tooManyPixels(let width, let height):
            "The picture is too large (\(width) x \(height) pixels)."
        case .corrupt: "The image is damaged or incomplete and cannot be read."
        case .processingFailed: "The image could not be processed. Please try again later."
        }
    }

    /// The HTTP status an upload endpoint answers with: 400, 413, 415, 422, 422, 500.
    public var httpStatus: Int {
        switch self {
        case .empty: 400
        case .tooLarge: 413
        case .unsupportedFormat: 415
        case .tooManyPixels: 422
        case .corrupt: 422
        case .processingFailed: 500
        }
    }

    /// A stable machine-readable code for error bodies on the wire.
    public var wireCode: String {
        switch self {
        case .empty: "image_empty"
        case .tooLarge: "image_too_large"
        case .unsupportedFormat: "unsupported_media_type"
        case .tooManyPixels: "image_too_many_pixels"
        case .corrupt: "image_corrupt"
        case .processingFailed: "image_processing_failed"
        }
    }

    public var description: String {
        switch self {
        case .empty: "ImageError.empty"
        case .tooLarge(let count, let limit): "ImageError.tooLarge(\(count) bytes, limit \(limit))"
        case .unsupportedFormat(let kind): "ImageError.unsupportedFormat(\(kind))"
        case .tooManyPixels(let width, let height): "ImageError.tooManyPixels(\(width)x\(height))"
        case .corrupt(let reason): "ImageError.corrupt(\(reason))"
        case .processingFailed(let reason): "ImageError.processingFailed(\(reason))"
        }
    }

    private static func megabytes(_ bytes: Int) -> String {
        let tenths = (bytes * 10 + 524_288) / 1_048_576
        return tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(tenths % 10)"
    }
}
